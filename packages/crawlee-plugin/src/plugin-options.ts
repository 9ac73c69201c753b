/**
 * The plugin's own options, validated once from one table (core's checkOptions, kept in step with the
 * options type by the compiler): unknown keys and bad values are TypeErrors that name them and list
 * only the options a user can set.
 */
import {
  booleanOption,
  checkOptions,
  methodsOption,
  numberOption,
  type OptionTable,
  oneOf,
  type ResolvedOf,
  SPACING_OPTION,
} from '@politely/core/adapter';
import type { CrawleePolitenessOptions } from './types.js';

const PLUGIN_OPTIONS = {
  maxParked: numberOption({ min: 1, integer: true, default: 1000 }),
  filterOnEnqueue: booleanOption({ default: true }),
  checkRedirects: booleanOption({ default: true }),
  spacing: SPACING_OPTION,
  subresources: oneOf(['check', 'allow'], { default: 'check' }),
  config: methodsOption<CrawleePolitenessOptions['config']>(
    'the Crawlee Configuration you give the crawler',
    ['get'],
  ),
  enqueueSitemaps: booleanOption({ default: false }),
  respectNofollow: booleanOption({ default: true }),
} as const satisfies OptionTable<CrawleePolitenessOptions>;

/** The plugin's options, checked, with every default filled in. */
export type ResolvedPluginOptions = ResolvedOf<typeof PLUGIN_OPTIONS>;

export const validatePluginOptions = (options: CrawleePolitenessOptions): ResolvedPluginOptions =>
  checkOptions('@politely/crawlee', PLUGIN_OPTIONS, options);
