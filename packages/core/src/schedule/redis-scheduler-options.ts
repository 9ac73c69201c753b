/**
 * The options of createRedisScheduler, checked once: unknown keys and bad values are TypeErrors that
 * name the option and echo the value.
 */
import type { RedisClientLike } from '../kernel/clients.js';
import { systemClock } from '../kernel/clock.js';
import type { PolitelyEvent } from '../kernel/events.js';
import { unknownOption } from '../kernel/option-table.js';
import { checkDuration, describeValue } from './arguments.js';
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
}

// v2: the host is a Redis Cluster hash tag (`{host}`); v1 keys (no braces) are never read.
export const DEFAULT_REDIS_PREFIX = 'politely:pace:v2:';
const DEFAULTS = {
  fallbackRetryMs: 5000,
  commandTimeoutMs: 1000,
  safetyMarginMs: 4,
  leaseTtlMs: 15_000,
  leasePollMs: 50,
};

const OPTION_KEYS = new Set([
  'client',
  'prefix',
  'clock',
  'emit',
  'fallbackRetryMs',
  'commandTimeoutMs',
  'safetyMarginMs',
  'connect',
  'leaseTtlMs',
  'leasePollMs',
]);

export interface RedisSchedulerSettings {
  readonly redis: RedisScriptClient;
  readonly prefix: string;
  readonly clock: Clock;
  readonly emit: ((event: PolitelyEvent) => void) | undefined;
  readonly fallbackRetryMs: number;
  readonly commandTimeoutMs: number;
  readonly safetyMarginMs: number;
  readonly connect: (() => Promise<unknown>) | undefined;
  readonly leaseTtlMs: number;
  readonly leasePollMs: number;
}

export function validateRedisSchedulerOptions(options: RedisSchedulerOptions): RedisSchedulerSettings {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected Redis scheduler options to be an object, got ${describeValue(options)}`);
  }
  for (const [key, value] of Object.entries(options)) {
    if (!OPTION_KEYS.has(key)) throw unknownOption('Redis scheduler option', key, value, [...OPTION_KEYS]);
  }
  const redis = toScriptClient(options.client);
  if (redis === undefined) {
    throw new TypeError(
      `Expected \`client\` to be a node-redis (v4+) or ioredis client, got ${describeValue(options.client)}`,
    );
  }
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  if (typeof prefix !== 'string') {
    throw new TypeError(`Expected \`prefix\` to be a string, got ${describeValue(prefix)}`);
  }
  const clock = options.clock ?? systemClock;
  if (typeof clock?.now !== 'function' || typeof clock.sleep !== 'function') {
    throw new TypeError(`Expected \`clock\` to have now() and sleep(), got ${describeValue(clock)}`);
  }
  for (const name of ['emit', 'connect'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new TypeError(`Expected \`${name}\` to be a function, got ${describeValue(options[name])}`);
    }
  }
  const positive = (name: 'fallbackRetryMs' | 'commandTimeoutMs' | 'leaseTtlMs' | 'leasePollMs') => {
    const value = options[name] ?? DEFAULTS[name];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(`Expected \`${name}\` to be a finite number > 0 (ms), got ${describeValue(value)}`);
    }
    return value;
  };
  const safetyMarginMs = options.safetyMarginMs ?? DEFAULTS.safetyMarginMs;
  checkDuration('safetyMarginMs', safetyMarginMs);
  return {
    redis,
    prefix,
    clock,
    emit: options.emit,
    fallbackRetryMs: positive('fallbackRetryMs'),
    commandTimeoutMs: positive('commandTimeoutMs'),
    safetyMarginMs: Math.ceil(safetyMarginMs),
    connect: options.connect,
    leaseTtlMs: positive('leaseTtlMs'),
    leasePollMs: positive('leasePollMs'),
  };
}
