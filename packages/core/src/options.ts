/**
 * The one options object that createPoliteness, politeGot and withPoliteness all accept.
 * Validated once by `resolveOptions`; everything downstream sees the resolved, readonly form.
 */
import type { KeyvLike } from './cache/types.js';
import type { ParseOptions } from './engine/types.js';
import type { FetchLike } from './fetch/types.js';
import type { Clock, Scheduler } from './schedule/types.js';
import type { Logger, PolitelyEvent } from './types.js';

/** A node-redis (v4+) or ioredis client; recognised by shape, never imported. */
export type RedisClientLike = object;

export interface PolitenessOptions {
  /** Required. The User-Agent header sent for robots.txt, e.g. `MyBot/1.0 (+https://example.com/bot)`. */
  userAgent: string;
  /** The token matched against robots.txt groups. Default: the product token of `userAgent` (`MyBot`). */
  productToken?: string;
  /** Robots.txt cache store: a Keyv 5/6 instance or Keyv-shaped object. Default: in-memory LRU. */
  store?: KeyvLike;
  /**
   * Per-host pacing backend. `'auto'` (default): Redis when `store` is a Keyv on @keyv/redis, else memory.
   * `'memory'`, a node-redis/ioredis client (fleet-wide), or a custom Scheduler.
   */
  scheduler?: 'auto' | 'memory' | Scheduler | RedisClientLike;
  /** Smallest start-to-start gap per host, in ms. Default 1000. */
  minDelayMs?: number;
  /** Honour Crawl-delay from robots.txt. Default true. */
  respectCrawlDelay?: boolean;
  /** Largest Crawl-delay honoured, in ms. Default 30000. */
  maxCrawlDelayMs?: number;
  /** What to do when Crawl-delay is above maxCrawlDelayMs: skip the host's URLs, or cap the delay. Default 'skip'. */
  crawlDelayAboveMax?: 'skip' | 'cap';
  /** A blocking wait (got) longer than this rejects at once with WaitTooLongError. Default 60000. */
  maxWaitMs?: number;
  /** Largest Retry-After backoff honoured, in ms. Default 600000 (10 min). */
  maxBackoffMs?: number;
  /** Pacing key of a URL: its hostname (default), its origin, or your function. */
  hostKey?: 'hostname' | 'origin' | ((url: URL) => string);
  /** Fetch function for robots.txt (e.g. through a proxy). Default: Node's fetch. */
  fetch?: FetchLike;
  /** robots.txt fetch timeout, whole fetch including body, in ms. Default 10000. */
  robotsTimeoutMs?: number;
  /** robots.txt bytes read at most. Default 512000 (RFC 9309 2.5). */
  robotsMaxBytes?: number;
  /** Redirect hops followed for robots.txt. Default 5 (RFC 9309 2.3.1.2). */
  robotsMaxRedirects?: number;
  /** How long a fetched robots.txt is fresh, in ms (Cache-Control max-age may shorten it). Default 86400000 (24 h). */
  cacheTtlMs?: number;
  /** How long a good copy is kept for use while robots.txt is unreachable, in ms. Default 30 days. */
  staleTtlMs?: number;
  /** First retry delay after robots.txt was unreachable, in ms; doubles per failure up to 1 h. Default 60000. */
  unreachableRetryMs?: number;
  /** 401/403 for robots.txt: 'allow' (RFC 9309: unavailable) or 'disallow'. Default 'allow'. */
  onUnauthorized?: 'allow' | 'disallow';
  /** Unreachable robots.txt with no good copy: 'disallow' (RFC 9309) or 'allow'. Default 'disallow'. */
  onUnreachable?: 'disallow' | 'allow';
  /** Compiled rule sets kept in process memory (origins). Default 10000. */
  memoryCacheSize?: number;
  /** Seed-compatibility parse options (precedence, wildcards, agentMatching). Default: RFC 9309. */
  parse?: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching'>;
  /** Receives every event (robots fetches, decisions, backoffs, store and scheduler trouble). */
  onEvent?: (event: PolitelyEvent) => void;
  /** Where warnings go. Default: console.warn for warnings only. `false` silences. */
  logger?: Logger | false;
  /** Injected clock (tests). Default: Date.now and setTimeout. */
  clock?: Clock;
}
