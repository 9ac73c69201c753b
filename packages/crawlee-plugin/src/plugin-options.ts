/**
 * The plugin's own options, validated once: unknown keys and bad values are TypeErrors that name
 * them and list only the options a user can set.
 */
import type { CrawleePolitenessOptions } from './types.js';

const PLUGIN_OPTION_KEYS = [
  'onSkip',
  'maxParked',
  'filterOnEnqueue',
  'checkRedirects',
  'subresources',
  'config',
  'enqueueSitemaps',
] as const;

export function validatePluginOptions(options: CrawleePolitenessOptions): CrawleePolitenessOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(
      `Expected plugin options to be an object, got \`${String(options)}\` (${typeof options})`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!(PLUGIN_OPTION_KEYS as readonly string[]).includes(key)) {
      throw new TypeError(
        `Unknown @politely/crawlee option \`${key}\`; expected one of ${PLUGIN_OPTION_KEYS.join(', ')}`,
      );
    }
  }
  const { maxParked, onSkip, config } = options;
  if (maxParked !== undefined && (!Number.isInteger(maxParked) || maxParked < 1)) {
    throw new TypeError(
      `Expected \`maxParked\` to be an integer >= 1, got \`${maxParked}\` (${typeof maxParked})`,
    );
  }
  if (onSkip !== undefined && typeof onSkip !== 'function') {
    throw new TypeError(`Expected \`onSkip\` to be a function, got ${typeof onSkip}`);
  }
  if (config !== undefined && (config === null || typeof config !== 'object' || !('get' in config))) {
    throw new TypeError('Expected `config` to be the Crawlee Configuration you give the crawler');
  }
  const { subresources } = options;
  if (subresources !== undefined && subresources !== 'check' && subresources !== 'allow') {
    throw new TypeError(
      `Expected \`subresources\` to be 'check' or 'allow', got \`${String(subresources)}\` (${typeof subresources})`,
    );
  }
  for (const key of ['filterOnEnqueue', 'checkRedirects', 'enqueueSitemaps'] as const) {
    const value = options[key];
    if (value !== undefined && typeof value !== 'boolean') {
      throw new TypeError(`Expected \`${key}\` to be a boolean, got \`${String(value)}\` (${typeof value})`);
    }
  }
  return options;
}
