/**
 * The robots.txt cache: robots.txt as a well-known file of the one file cache (file-cache.ts), its
 * body compiled by the engine, its fetches reported as `robots-fetch` events and a change of its
 * rules for our product token as `robots-changed`.
 */
import { parseRobotsTxt, RobotsTxt } from '../engine/index.js';
import type { ParseOptions } from '../engine/types.js';
import { charsetOf } from '../fetch/policy.js';
import {
  createFileCache,
  type FileCache,
  type FileCacheDeps,
  type FileCacheOptions,
  type FileCacheStats,
} from './file-cache.js';
import type { WellKnownFile } from './origin-state.js';
import { robotsChangedEvent } from './robots-change.js';
import { STORE_KEY_PREFIX } from './stored-record.js';
import type { RobotsEntry } from './types.js';
import type { UnreachablePolicy } from './unreachable-timeline.js';

export interface RobotsCacheOptions extends FileCacheOptions {
  readonly onUnauthorized: 'allow' | 'disallow';
  /** 'rfc': RFC 9309 2.3.1.4; 'google': Google's timeline (unreachable-timeline.ts). */
  readonly unreachablePolicy: UnreachablePolicy;
  readonly parse: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>;
  /** A refresh that changes the rules for this product token emits `robots-changed`. */
  readonly productToken: string;
}

export type RobotsCacheDeps = FileCacheDeps<RobotsEntry>;
export type RobotsCacheStats = FileCacheStats;
export type RobotsCache = FileCache<RobotsEntry>;

export function createRobotsCache(options: RobotsCacheOptions, deps: RobotsCacheDeps): RobotsCache {
  return createFileCache(robotsFile(options), options, options, deps);
}

/** robots.txt, RFC 9309: read by the engine, cut at `robots.maxBytes` (2.5). */
function robotsFile(options: RobotsCacheOptions): WellKnownFile<RobotsTxt, RobotsEntry> {
  return {
    path: '/robots.txt',
    storePrefix: STORE_KEY_PREFIX,
    lockName: (origin) => origin,
    parseKey: parseKeyOf(options.parse),
    read(result) {
      const charset = charsetOf(result.contentType);
      return parseRobotsTxt(result.body ?? new Uint8Array(), {
        ...options.parse,
        maxBytes: options.robotsMaxBytes,
        ...(charset ? { charset } : {}),
      });
    },
    toJSON: (robots) => robots.toJSON(),
    fromJSON: (json) => RobotsTxt.fromJSON(json as ReturnType<RobotsTxt['toJSON']>),
    estimateBytes: (robots) => robots.estimateBytes(),
    entry: ({ url, source, rules, ...rest }) => ({
      ...rest,
      robotsUrl: url,
      source: source === 'ok' ? 'robots.txt' : source,
      ...(rules ? { robots: rules } : {}),
    }),
    fetched: (report) => ({ type: 'robots-fetch', ...report }),
    changed: (previous, next) => robotsChangedEvent(previous, next, options.productToken),
  };
}

/** Records the parse options in the stored value, so processes configured differently never share rules. */
export function parseKeyOf(
  options: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>,
): string {
  return `${options.precedence ?? 'longest'}/${options.wildcards ?? true}/${options.agentMatching ?? 'exact'}/${options.percentEncoding ?? 'rfc'}`;
}
