/**
 * What a fleet shares through Redis besides the schedule: the lock that lets one process fetch an
 * unknown origin's robots.txt for all, and the hosts' latency and error signals. Found from the
 * options (the store's or the scheduler's Redis client); without Redis, both stay in this process,
 * which a store shared some other way is told about once (storeSharing).
 */
import { createFleetLock } from '../cache/fleet-lock.js';
import type { Clock } from '../kernel/clock.js';
import type { PolitelyEvent } from '../kernel/events.js';
import { redisClientOfStore, storeLevels, toScriptClient } from '../schedule/redis-client.js';
import { DEFAULT_REDIS_PREFIX, FLEET_REDIS, type FleetRedis } from '../schedule/redis-scheduler.js';
import type { Scheduler } from '../schedule/types.js';
import {
  createMemorySignalStore,
  createRedisSignalStore,
  SIGNAL_PREFIX,
  type SignalStore,
} from '../signals/signal-store.js';
import type { ResolvedOptions } from './options.js';

/** The options fleet sharing reads: where the store lives, which scheduler, how long a fetch may take. */
type FleetOptions = Pick<ResolvedOptions, 'store' | 'scheduler' | 'robotsTimeoutMs' | 'unreachablePolicy'>;

/**
 * The store's Redis is looked for once, and each part shared through it found from that. With a
 * Redis-backed store the robots.txt cache is shared by the fleet, so one process fetches an unknown
 * origin and the others read its result (a short Redis lock; see cache/fleet-lock.ts). When the Redis
 * scheduler runs on the same connection (`scheduler: 'auto'`), the lock shares its outage state:
 * while the scheduler paces in memory, new origins are fetched here at once.
 */
export function fleetSharing(options: FleetOptions, scheduler: Scheduler, clock: Clock) {
  const { store } = options;
  const found = store === undefined ? undefined : redisClientOfStore(store);
  const redis = found && toScriptClient(found.client);
  const sameRedis = options.scheduler === 'auto' || options.scheduler === found?.client;
  const fleetLock =
    redis &&
    createFleetLock({
      redis,
      connect: found.connect,
      ...(sameRedis ? { redisAway: () => scheduler.kind === 'memory-fallback' } : {}),
      // A holder that takes longer than its fetch may (plus its slot) is taken over; Google's timeline
      // may add a home page check to the fetch.
      ttlMs: options.robotsTimeoutMs * (options.unreachablePolicy === 'google' ? 2 : 1) + 5000,
    });
  return {
    /** The caches' deps: the robots.txt fetch lock, with a Redis-backed store. */
    lock: fleetLock ? { fleetLock } : {},
    signals: signalStoreFor(scheduler, clock),
    /** The `store-sharing` notice, for a store shared some other way than Redis. */
    notice: store === undefined || found ? undefined : storeSharing(store, scheduler),
  };
}

/**
 * With a Redis scheduler (a fleet), hosts' latency, error and rate-limit signals are shared through
 * the same Redis, on the scheduler's own calls (closed with it); elsewhere they stay in this process.
 * While the scheduler has fallen back to memory (Redis away), signals do too. The signal keys follow
 * the scheduler's prefix, so two fleets with different prefixes on one Redis keep their signals
 * apart, and one fleet shares them.
 */
function signalStoreFor(scheduler: Scheduler, clock: Clock): SignalStore {
  const fleet = (scheduler as { [FLEET_REDIS]?: FleetRedis })[FLEET_REDIS];
  // A scheduler of an older copy of the package carries no `call`: its signals stay in this process.
  if (
    typeof fleet?.call !== 'function' ||
    (scheduler.kind !== 'redis' && scheduler.kind !== 'memory-fallback')
  )
    return createMemorySignalStore(clock);
  return createRedisSignalStore({
    call: fleet.call,
    redisUsable: () => scheduler.kind === 'redis',
    prefix: signalPrefixOf(fleet.prefix),
    clock,
  });
}

/**
 * The default scheduler prefix keeps the signal keys they always had (`politely:signal:v1:{host}`);
 * another prefix puts them under it (`<prefix>signal:v1:{host}`), beside its pace keys
 * (`<prefix>{host}`) and never among them: a pace key has a `{` right after the prefix.
 */
function signalPrefixOf(schedulerPrefix: string): string {
  return schedulerPrefix === DEFAULT_REDIS_PREFIX ? SIGNAL_PREFIX : `${schedulerPrefix}signal:v1:`;
}

type StoreSharing = Extract<PolitelyEvent, { type: 'store-sharing' }>;

/**
 * A Keyv whose adapter is neither Redis nor an in-process Map (@keyv/postgres, @keyv/sqlite, ...) is
 * there to be shared, but only the robots.txt cache goes through it: the fetch lock and the pacing
 * are Lua scripts on Redis, so without Redis each process fetches an origin's robots.txt it has not
 * cached yet and paces every host on its own. Said once, at creation, so nobody takes it for fleet
 * mode. A store without an adapter (a plain { get, set, delete }, politely's memory store) says
 * nothing about where it lives, and gets no notice.
 */
function storeSharing(store: object, scheduler: Scheduler): StoreSharing | undefined {
  if (!hasOutOfProcessAdapter(store)) return undefined;
  const pacingShared = scheduler.kind === 'redis' || scheduler.kind === 'memory-fallback';
  const pacingLocal = scheduler.kind === 'memory';
  const shared: StoreSharing['shared'] = pacingShared ? ['robots-cache', 'pacing'] : ['robots-cache'];
  const perProcess: StoreSharing['perProcess'] = pacingLocal
    ? ['robots-fetch-lock', 'pacing']
    : ['robots-fetch-lock'];
  const pacing = pacingShared
    ? 'the pacing is shared through the Redis scheduler'
    : pacingLocal
      ? 'each process paces every host on its own'
      : 'the pacing is what your scheduler shares';
  return {
    type: 'store-sharing',
    shared,
    perProcess,
    message: `store is not Redis: processes sharing it share the robots.txt cache, but each fetches a robots.txt it has not cached yet itself (the fetch lock needs Redis) and ${pacing}. For fleet mode use a Keyv on @keyv/redis${pacingShared ? '' : ', or pass a Redis client as `scheduler` to share the pacing'} (reported once)`,
  };
}

/** Keyv keeps its adapter at `store` (Keyv 6's bridge one level further down); a Map is this process's. */
function hasOutOfProcessAdapter(store: object): boolean {
  const adapters = storeLevels(store, 5).slice(1);
  return adapters.length > 0 && !adapters.some((adapter) => adapter instanceof Map);
}
