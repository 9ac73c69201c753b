/**
 * The plugin's own options, validated once from one table (core's checkOptions, kept in step with the
 * options type by the compiler): unknown keys and bad values are TypeErrors that name them and list
 * only the options a user can set.
 */
import { checkOptions, type OptionCheck, type OptionTable, oneOf } from '@politely/core/adapter';
import type { CrawleePolitenessOptions } from './types.js';

const BOOLEAN: OptionCheck = [(value) => typeof value === 'boolean', 'a boolean'];

const PLUGIN_OPTIONS: OptionTable<CrawleePolitenessOptions> = {
  maxParked: [(value) => Number.isInteger(value) && (value as number) >= 1, 'an integer >= 1'],
  filterOnEnqueue: BOOLEAN,
  checkRedirects: BOOLEAN,
  spacing: oneOf('response', 'start'),
  subresources: oneOf('check', 'allow'),
  config: [
    (value) => value !== null && typeof value === 'object' && 'get' in value,
    'the Crawlee Configuration you give the crawler',
  ],
  enqueueSitemaps: BOOLEAN,
};

export const validatePluginOptions = (options: CrawleePolitenessOptions): CrawleePolitenessOptions =>
  checkOptions('@politely/crawlee', PLUGIN_OPTIONS, options);
