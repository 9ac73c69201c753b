/**
 * What a fleet shares through Redis besides the schedule: the lock that lets one process fetch an
 * unknown origin's robots.txt for all, and the hosts' latency and error signals. Found from the
 * options (the store's or the scheduler's Redis client); without Redis, both stay in this process.
 */
import { createFleetLock, type FleetLock } from './cache/fleet-lock.js';
import type { ResolvedOptions } from './options.js';
import { isRedisClient, redisClientOfStore, toScriptClient } from './schedule/redis-client.js';
import type { Scheduler } from './schedule/types.js';
import { createMemorySignalStore, createRedisSignalStore, type SignalStore } from './signals/signal-store.js';

/**
 * With a Redis-backed store the robots.txt cache is shared by the fleet, so one process fetches an
 * unknown origin and the others read its result (a short Redis lock; see cache/fleet-lock.ts). When
 * the Redis scheduler runs on the same connection (`scheduler: 'auto'`), the lock shares its outage
 * state: while the scheduler paces in memory, new origins are fetched here at once.
 */
export function fleetLockFor(options: ResolvedOptions, scheduler: Scheduler): { fleetLock?: FleetLock } {
  const found = options.store === undefined ? undefined : redisClientOfStore(options.store);
  const redis = found && toScriptClient(found.client);
  if (!found || !redis) return {};
  const sameRedis = options.scheduler === 'auto' || options.scheduler === found.client;
  return {
    fleetLock: createFleetLock({
      redis,
      connect: found.connect,
      ...(sameRedis ? { redisAway: () => scheduler.kind === 'memory-fallback' } : {}),
      // A holder that takes longer than its fetch may (plus its slot) is taken over; Google's timeline
      // may add a home page check to the fetch.
      ttlMs: options.robotsTimeoutMs * (options.unreachablePolicy === 'google' ? 2 : 1) + 5000,
    }),
  };
}

/**
 * With a Redis scheduler (a fleet), hosts' latency and error signals are shared through the same
 * Redis; elsewhere they stay in this process. While the scheduler has fallen back to memory (Redis
 * away), signals do too.
 */
export function signalStoreFor(options: ResolvedOptions, scheduler: Scheduler): SignalStore {
  const option = options.scheduler;
  const found =
    option === 'auto'
      ? options.store === undefined
        ? undefined
        : redisClientOfStore(options.store)
      : isRedisClient(option)
        ? { client: option }
        : undefined;
  const redis = found && toScriptClient(found.client);
  if (!found || !redis || (scheduler.kind !== 'redis' && scheduler.kind !== 'memory-fallback'))
    return createMemorySignalStore();
  return createRedisSignalStore({
    redis,
    connect: 'connect' in found ? found.connect : undefined,
    redisUsable: () => scheduler.kind === 'redis',
  });
}
