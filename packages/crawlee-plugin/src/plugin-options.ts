/**
 * The plugin's own options, validated once from one table (kept in step with the options type by the
 * compiler, as the core's OPTION_SCHEMA is): unknown keys and bad values are TypeErrors that name
 * them and list only the options a user can set.
 */
import type { CrawleePolitenessOptions } from './types.js';

/** A test of an option's value, and what the error says it should be. */
type Check = readonly [(value: unknown) => boolean, string];

const BOOLEAN: Check = [(value) => typeof value === 'boolean', 'a boolean'];

const PLUGIN_OPTIONS: { readonly [K in keyof CrawleePolitenessOptions]-?: Check } = {
  maxParked: [(value) => Number.isInteger(value) && (value as number) >= 1, 'an integer >= 1'],
  filterOnEnqueue: BOOLEAN,
  checkRedirects: BOOLEAN,
  spacing: [(value) => value === 'response' || value === 'start', "'response' or 'start'"],
  subresources: [(value) => value === 'check' || value === 'allow', "'check' or 'allow'"],
  config: [
    (value) => value !== null && typeof value === 'object' && 'get' in value,
    'the Crawlee Configuration you give the crawler',
  ],
  enqueueSitemaps: BOOLEAN,
};

export function validatePluginOptions(options: CrawleePolitenessOptions): CrawleePolitenessOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(
      `Expected plugin options to be an object, got \`${String(options)}\` (${typeof options})`,
    );
  }
  for (const [key, value] of Object.entries(options)) {
    const check = Object.hasOwn(PLUGIN_OPTIONS, key)
      ? (PLUGIN_OPTIONS as Readonly<Record<string, Check>>)[key]
      : undefined;
    if (!check) {
      const known = Object.keys(PLUGIN_OPTIONS).join(', ');
      throw new TypeError(`Unknown @politely/crawlee option \`${key}\`; expected one of ${known}`);
    }
    if (value !== undefined && !check[0](value)) {
      throw new TypeError(
        `Expected \`${key}\` to be ${check[1]}, got \`${String(value)}\` (${typeof value})`,
      );
    }
  }
  return options;
}
