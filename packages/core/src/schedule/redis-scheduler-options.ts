/**
 * The options of createRedisScheduler, checked once from one table (kernel/option-table.ts): unknown
 * keys and bad values are TypeErrors that name the option and echo the value.
 */
import type { RedisClientLike } from '../kernel/clients.js';
import { systemClock } from '../kernel/clock.js';
import type { PolitelyEvent } from '../kernel/events.js';
import {
  checkOptions,
  clockOption,
  functionOption,
  numberOption,
  type OptionTable,
  oneOf,
  option,
  type ResolvedOf,
  stringOption,
} from '../kernel/option-table.js';
import { type RedisScriptClient, toScriptClient } from './redis-client.js';
import type { Clock } from './types.js';

export interface RedisSchedulerOptions {
  /** A node-redis v4/v5 or ioredis/iovalkey client. Never closed by the scheduler. */
  readonly client: RedisClientLike;
  /** Key prefix; the host follows it as a hash tag (`<prefix>{<host>}`). Default `politely:pace:v2:`. */
  readonly prefix?: string;
  /** Local clock used to turn the server's wait into a start time. Default: the system clock. */
  readonly clock?: Clock;
  /** Receives `scheduler-fallback` and `scheduler-recovered`. */
  readonly emit?: (event: PolitelyEvent) => void;
  /** How often Redis is probed while the scheduler runs on its in-process fallback, in ms. Default 5000. */
  readonly fallbackRetryMs?: number;
  /** A Redis command not answered within this many ms counts as Redis being away. Default 1000. */
  readonly commandTimeoutMs?: number;
  /**
   * Added to every non-zero spacing, in ms, so that clock flooring and reply latency never bring one
   * process's start closer than the delay to another's (slower replies are reported to the server
   * and covered that way). Default 4.
   */
  readonly safetyMarginMs?: number;
  /** Connects a lazily connected client before its first command (set for @keyv/redis stores). */
  readonly connect?: () => Promise<unknown>;
  /**
   * How long an in-flight lease outlives its last refresh on Redis, in ms: a process that dies holding
   * one frees its place this long after. Leases are refreshed every third of it. Default 15000.
   */
  readonly leaseTtlMs?: number;
  /**
   * Longest pause, in ms, between two attempts of a caller waiting for an in-flight place held by
   * another process (one freed in this process wakes it at once). Default 50.
   */
  readonly leasePollMs?: number;
  /**
   * What each process paces while Redis is away. 'share': every scheduler on the same Redis and prefix
   * heartbeats into a member list (one call every `fallbackRetryMs`), and during an outage each host is
   * paced by one process only, its owner by rendezvous hashing over that list; the others' callers for
   * it wait until Redis is back (bounded by `maxWaitMs`), and for one `fallbackRetryMs` plus two
   * `commandTimeoutMs` after, while the owners hand their starts over. No two processes then send to
   * a host closer than its delay, outage or not. 'alone': each process paces every host by itself
   * (no waiting, but two processes may send to one host closer than its delay until Redis is back).
   * Default 'share'.
   */
  readonly fallback?: 'share' | 'alone';
}

// v2: the host is a Redis Cluster hash tag (`{host}`); v1 keys (no braces) are never read.
export const DEFAULT_REDIS_PREFIX = 'politely:pace:v2:';

const CLIENT = 'a node-redis (v4+) or ioredis client';

const OPTIONS = {
  client: option<RedisClientLike>(CLIENT, (value) => toScriptClient(value) !== undefined, { required: true }),
  prefix: stringOption({ default: DEFAULT_REDIS_PREFIX }),
  clock: clockOption({ default: systemClock }),
  emit: functionOption<(event: PolitelyEvent) => void>(),
  fallbackRetryMs: numberOption({ above: 0, default: 5000 }),
  commandTimeoutMs: numberOption({ above: 0, default: 1000 }),
  safetyMarginMs: numberOption({ default: 4 }),
  connect: functionOption<() => Promise<unknown>>(),
  leaseTtlMs: numberOption({ above: 0, default: 15_000 }),
  leasePollMs: numberOption({ above: 0, default: 50 }),
  fallback: oneOf(['share', 'alone'], { default: 'share' }),
} as const satisfies OptionTable<RedisSchedulerOptions>;

export interface RedisSchedulerSettings extends Omit<ResolvedOf<typeof OPTIONS>, 'client'> {
  readonly redis: RedisScriptClient;
}

export function validateRedisSchedulerOptions(options: RedisSchedulerOptions): RedisSchedulerSettings {
  const { client, ...valid } = checkOptions('Redis scheduler', OPTIONS, options);
  // Whole milliseconds: the scripts run on the server's millisecond clock.
  const safetyMarginMs = Math.ceil(valid.safetyMarginMs);
  return { ...valid, redis: toScriptClient(client) as RedisScriptClient, safetyMarginMs };
}
