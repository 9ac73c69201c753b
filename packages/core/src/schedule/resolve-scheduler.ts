/**
 * Turns the `scheduler` option into a Scheduler. With 'auto' (the default) a Keyv store on
 * @keyv/redis or @keyv/valkey makes pacing fleet-wide on the same connection, so one `store` option
 * shares both the robots.txt cache and the per-host schedule across processes.
 */
import type { KeyvLike, RedisClientLike } from '../kernel/clients.js';
import type { PolitelyEvent } from '../kernel/events.js';
import { shown } from '../kernel/shown.js';
import { createMemoryScheduler } from './memory-scheduler.js';
import { isRedisClient, redisClientOfStore } from './redis-client.js';
import { createRedisScheduler } from './redis-scheduler.js';
import type { Clock, Scheduler } from './types.js';

/**
 * The options the scheduler is built from, under their PolitenessOptions names and resolved: the
 * facade hands its ResolvedOptions over as they are (options are defined once, in options.ts).
 */
export interface SchedulerOptions {
  readonly scheduler: 'auto' | 'memory' | Scheduler | RedisClientLike;
  readonly store: KeyvLike | undefined;
}

export interface SchedulerDeps {
  readonly clock: Clock;
  readonly emit: (event: PolitelyEvent) => void;
}

export function isScheduler(value: unknown): value is Scheduler {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof Scheduler, unknown>>;
  return (
    typeof candidate.reserve === 'function' &&
    typeof candidate.tryReserve === 'function' &&
    typeof candidate.penalize === 'function'
  );
}

export function resolveScheduler(options: SchedulerOptions, deps: SchedulerDeps): Scheduler {
  const { clock, emit } = deps;
  const { scheduler: option, store } = options;
  if (option === 'memory') return createMemoryScheduler({ clock });
  if (isScheduler(option)) return option;
  const redis =
    option !== 'auto' ? isRedisClient(option) && { client: option } : store && redisClientOfStore(store);
  if (redis) return createRedisScheduler({ ...redis, clock, emit });
  if (option === 'auto') return createMemoryScheduler({ clock });
  const hint =
    typeof option === 'object' && option !== null && redisClientOfStore(option) !== undefined
      ? ' (this looks like a Keyv store: pass it as `store` and leave `scheduler` at "auto")'
      : '';
  throw new TypeError(
    `Expected \`scheduler\` to be "auto", "memory", a Scheduler (reserve/tryReserve/penalize) or a node-redis/ioredis client, got ${shown(option)}${hint}`,
  );
}
