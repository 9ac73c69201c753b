/**
 * The per-origin well-known file cache, one implementation for every file (robots.txt, tdmrep.json):
 * in-process LRU of compiled rules, bounded by bytes (memory-tier.ts, one tier and one budget shared by
 * every file) -> the user's Keyv-shaped store, if any (record-store.ts, a key prefix per file) -> fetch
 * (refresh.ts), single-flight per origin (single-flight.ts) across the store lookup and the fetch, and
 * across a fleet through the fleet lock. Freshness lives inside the stored value; the store's own TTL
 * is the longer stale-if-error horizon (RFC 9309 2.4 and 2.3.1.4). What one file does differently is
 * its `WellKnownFile` (origin-state.ts).
 */

import { originOf } from '../fetch/robots-url.js';
import type { FetchLike } from '../fetch/types.js';
import { raceAbort } from '../kernel/abort.js';
import type { Clock } from '../kernel/clock.js';
import { isWaitTooLongError } from '../kernel/errors.js';
import type { PolitelyEvent } from '../kernel/events.js';
import type { FleetLock } from './fleet-lock.js';
import { createMemoryTier, type MemoryTier, stateBytes } from './memory-tier.js';
import type { FileEntry, OriginState, StateRules, WellKnownFile } from './origin-state.js';
import { createRecordStore, type RecordStore } from './record-store.js';
import { type RefreshConfig, refresh, unexpectedFailure } from './refresh.js';
import { createSafeStore, type SafeStore } from './safe-store.js';
import { createSingleFlight } from './single-flight.js';
import type { KeyvLike } from './types.js';
import { LAST_GOOD_COPY_UNTIL_MS, phaseChange } from './unreachable-timeline.js';

/**
 * The options the cache reads, under their flat names in the facade's ResolvedOptions (options.ts
 * defines and documents each; the facade hands its object over as it is). `store` undefined: process
 * memory is the only tier. `memoryBudgetBytes` bounds every file's rules together (memory-tier.ts);
 * `memoryCacheSize`, when set, counts files.
 */
export interface FileCacheOptions {
  readonly userAgent: string;
  readonly store: KeyvLike | undefined;
  readonly robotsTimeoutMs: number;
  readonly robotsMaxBytes: number;
  readonly robotsMaxRedirects: number;
  readonly cacheTtlMs: number;
  readonly minTtlMs: number;
  readonly staleTtlMs: number;
  readonly unreachableRetryMs: number;
  readonly memoryCacheSize: number | undefined;
  readonly memoryBudgetBytes: number;
  /** The route of the request being checked, when the fetch goes its way (`robots.route`). */
  readonly robotsRoute?: (() => string | undefined) | undefined;
}

/** What the cache is wired to, and tuning no user sets. */
export interface FileCacheDeps<E = FileEntry> {
  readonly clock: Pick<Clock, 'now'>;
  readonly emit: (event: PolitelyEvent) => void;
  /** Default: Node's fetch. */
  readonly fetch?: FetchLike;
  /**
   * Fleet-wide single flight (a Redis-backed store): one process of the fleet fetches an origin's
   * file, the others read its result from the store.
   */
  readonly fleetLock?: FleetLock;
  /**
   * Waits for the host's slot before the file is fetched, outside the fetch's own timeout: the
   * file's request is paced like any other request to the host.
   */
  readonly takeSlot?: (url: string) => Promise<void>;
  /**
   * Once the file is read: the host's next start is pushed to the delay it asks (robots.txt's
   * Crawl-delay; robots-fetch-pacing.ts). Never rejects.
   */
  readonly spaceAfter?: (url: string, entry: E) => Promise<void>;
  /** The process memory tier, shared with the other files' caches; default: one of this cache's own. */
  readonly memory?: MemoryTier;
  /** Store calls slower than this count as failures, in ms. Default 2000. */
  readonly storeTimeoutMs?: number;
  /** How long a failed store is skipped, in ms. Default 10000. */
  readonly storeBreakMs?: number;
}

export interface FileCacheStats {
  readonly memoryHits: number;
  readonly storeHits: number;
  /** Lookups that had to fetch the file. */
  readonly misses: number;
  readonly storeErrors: number;
  /** Stored records not trusted (tampered, foreign, from the future, ...): each was a miss and refetched. */
  readonly storeRejects: number;
  /** Refreshes by their outcome; `notModified`: a 304 renewed the copy in force (no body sent). */
  readonly fetches: {
    readonly ok: number;
    readonly unavailable: number;
    readonly unreachable: number;
    readonly notModified: number;
  };
}

export interface FileCache<E> {
  /**
   * The origin's entry, fetching the file once when nothing fresh is known (single-flight). Never
   * rejects for HTTP or store trouble; TypeError for a non-http(s) URL; the signal's reason when
   * aborted (the shared fetch goes on for other callers).
   */
  get(url: URL | string, signal?: AbortSignal): Promise<E>;
  /** The fresh entry from process memory, without I/O; undefined when it would need a lookup. */
  peek(url: URL | string): E | undefined;
  /** The entry in process memory, fresh or not, without I/O and not counted as a hit (pacing reads it). */
  known(url: URL | string): E | undefined;
  /**
   * Drops the origin's entry from process memory and the store; a lookup under way is not kept, so
   * the next `get` fetches the file again. Never rejects for store trouble.
   */
  forget(url: URL | string): Promise<void>;
  stats(): FileCacheStats;
}

/** How a file's states move: the policy options that are not the file's own. */
export type FileRules = Pick<StateRules<unknown, FileEntry>, 'onUnauthorized' | 'unreachablePolicy'>;

export function createFileCache<R, E extends FileEntry>(
  file: WellKnownFile<R, E>,
  policy: FileRules,
  options: FileCacheOptions,
  deps: FileCacheDeps<E>,
): FileCache<E> {
  const now = () => deps.clock.now();
  const counters = { memoryHits: 0, storeHits: 0, misses: 0, storeErrors: 0, storeRejects: 0 };
  const fetches = { ok: 0, unavailable: 0, unreachable: 0, notModified: 0 };
  const emit = (event: PolitelyEvent) => {
    try {
      deps.emit(event);
    } catch {
      // A listener's bug must not break a lookup.
    }
  };
  const rules: StateRules<R, E> = {
    file,
    limits: {
      cacheTtlMs: options.cacheTtlMs,
      unreachableRetryMs: options.unreachableRetryMs,
      minTtlMs: options.minTtlMs,
    },
    staleTtlMs: options.staleTtlMs,
    ...policy,
  };

  const tier = deps.memory ?? createMemoryTier(options.memoryBudgetBytes, options.memoryCacheSize);
  // One tier for every file: each cache keeps its states under its file's URL.
  const keyOf = (origin: string) => `${origin}${file.path}`;
  const memory = {
    get: (origin: string) => tier.get(keyOf(origin)) as OriginState<R, E> | undefined,
    set: (origin: string, state: OriginState<R, E>) =>
      tier.set(keyOf(origin), state, { size: stateBytes(state, file) }),
    delete: (origin: string) => tier.delete(keyOf(origin)),
  };
  // Without a user store the memory tier is the one copy: a second in-process store would hold every
  // origin twice (compiled and as JSON) under a second bound, and evict on its own schedule.
  const store = options.store;
  const records: RecordStore<R, E> =
    store === undefined
      ? NO_RECORDS
      : createRecordStore({
          store: guardedStore(store, deps, now, (event) => {
            counters.storeErrors++;
            emit(event);
          }),
          rules,
          now,
          // Google's timeline needs the outage's start for 30 days and more, whatever staleTtlMs says.
          ttlMs:
            policy.unreachablePolicy === 'google'
              ? Math.max(options.staleTtlMs, 2 * LAST_GOOD_COPY_UNTIL_MS)
              : options.staleTtlMs,
          onReject: (origin, reason) => {
            counters.storeRejects++;
            emit({ type: 'store-record-rejected', origin, reason });
          },
        });
  const flights = createSingleFlight<E>();
  const refreshing: RefreshConfig<R, E> = {
    userAgent: options.userAgent,
    fetch: deps.fetch,
    timeoutMs: options.robotsTimeoutMs,
    maxBytes: options.robotsMaxBytes,
    maxRedirects: options.robotsMaxRedirects,
    rules,
    now,
    emit,
    takeSlot: deps.takeSlot,
    spaceAfter: deps.spaceAfter,
  };

  const routeOf = options.robotsRoute;

  function freshInMemory(origin: string): E | undefined {
    const known = memory.get(origin);
    // The caller's route is asked only of an entry kept for one (a failure): most are not, and the
    // adapter builds the route's key from the request's options on every ask.
    if (
      known &&
      now() < known.entry.freshUntil &&
      (known.entry.route === undefined || holds(known.entry, routeOf?.()))
    ) {
      counters.memoryHits++;
      return known.entry;
    }
    return undefined;
  }

  /** The stored state, and its entry when fresh (then also kept in memory and counted as a hit). */
  async function readStored(origin: string, generation: number, route: string | undefined) {
    const stored = await records.read(origin);
    if (stored && now() < stored.entry.freshUntil && holds(stored.entry, route)) {
      counters.storeHits++;
      announceChange(memory.get(origin), stored); // another process refreshed it
      if (flights.isCurrent(origin, generation)) memory.set(origin, stored); // not if forgotten meanwhile
      return { stored, fresh: stored.entry };
    }
    return { stored, fresh: undefined };
  }

  /** Read-through: the store, then (in one process of the fleet) a fetch. */
  async function load(origin: string, url: string, generation: number): Promise<E> {
    // The route of the caller that started this flight: its fetch goes that way.
    const route = routeOf?.();
    const { stored, fresh } = await readStored(origin, generation, route);
    if (fresh) return fresh;
    const lock = deps.fleetLock;
    if (!lock) return refetch(origin, url, stored, generation, route);
    return lock.run(
      file.lockName(origin),
      async () => (await readStored(origin, generation, route)).fresh,
      () => refetch(origin, url, stored, generation, route),
    );
  }

  async function refetch(
    origin: string,
    url: string,
    stored: OriginState<R, E> | undefined,
    generation: number,
    route: string | undefined,
  ): Promise<E> {
    const previous = newerOf(memory.get(origin), stored);
    counters.misses++;
    const refreshed = await refresh(origin, url, previous, refreshing);
    const { outcome } = refreshed;
    const next = routed(refreshed.state, route, routeOf);
    fetches[outcome === 'not-modified' ? 'notModified' : outcome]++;
    if (!flights.isCurrent(origin, generation)) return next.entry; // forgotten meanwhile: answer, keep nothing
    // The one place a refreshed state replaces the previous one, in process memory and in the store;
    // what changed between the two is announced here.
    memory.set(origin, next);
    await records.write(next);
    const phase = phaseChange(origin, previous?.entry.outage, next.entry.outage);
    if (phase) emit(phase);
    announceChange(previous, next);
    return next.entry;
  }

  /** What the file announces when `next`, newer than `previous`, replaces it (robots.txt: `robots-changed`). */
  function announceChange(previous: OriginState<R, E> | undefined, next: OriginState<R, E>): void {
    if (!previous || previous.entry.fetchedAt >= next.entry.fetchedAt) return;
    const event = file.changed?.(previous, next);
    if (event) emit(event);
  }

  return {
    get(url, signal) {
      let origin: string;
      try {
        origin = originOf(url);
        signal?.throwIfAborted();
      } catch (error) {
        return Promise.reject(error);
      }
      const hit = freshInMemory(origin);
      if (hit) return Promise.resolve(hit);
      const route = routeOf?.();
      const fileUrl = keyOf(origin);
      const lookup = () =>
        flights.run(origin, (generation) =>
          load(origin, fileUrl, generation).catch((error: unknown) => {
            // The host's slot is further than maxWaitMs (robots-fetch-pacing.ts): nothing was fetched, nothing kept.
            if (isWaitTooLongError(error)) throw error;
            const failed = routed(unexpectedFailure(origin, fileUrl, error, refreshing), route, routeOf);
            memory.set(origin, failed);
            return failed.entry;
          }),
        );
      // A flight another route's caller started got no answer that way: this caller asks its own way.
      // Asking again may join the flight of yet another route's caller (several ways failing at once),
      // so it asks until a flight answers for its route: each ends, and one with none under way is its own.
      const ask = (left: number): Promise<E> =>
        lookup().then((entry) => (holds(entry, route) || left === 0 ? entry : ask(left - 1)));
      const flight = ask(MAX_ROUTE_ASKS);
      return raceAbort(flight, signal);
    },
    peek(url) {
      return freshInMemory(originOf(url));
    },
    known(url) {
      return (tier.peek(keyOf(originOf(url))) as OriginState<R, E> | undefined)?.entry;
    },
    async forget(url) {
      const origin = originOf(url);
      flights.forget(origin);
      memory.delete(origin);
      await records.delete(origin);
    },
    stats() {
      return { ...counters, fetches: { ...fetches } };
    },
  };
}

/**
 * Whether an entry stands for a caller going `route`. A file that got no answer at all says nothing
 * about the site, only about the way it was asked (a dead proxy): that failure is held only for
 * callers of the same route, or of none (a queue's look before the request has a route); a request
 * going another way asks again, through its own, as it would send its page.
 */
/** Flights of other routes a caller waits out before taking what the last one gave (a bound, never reached in practice). */
const MAX_ROUTE_ASKS = 16;

function holds(entry: FileEntry, route: string | undefined): boolean {
  return route === undefined || entry.route === undefined || entry.route === route;
}

/**
 * The state after a fetch that went out by `route`: a failure without an answer, and no good copy
 * standing in, keeps which way it went when routes are told (`''`: no route, a queue's look), so it
 * holds only for callers going that way.
 */
function routed<R, E extends FileEntry>(
  state: OriginState<R, E>,
  route: string | undefined,
  routes: (() => string | undefined) | undefined,
): OriginState<R, E> {
  if (!routes || state.outcome !== 'unreachable' || state.entry.status !== 0 || state.good) return state;
  return { ...state, entry: { ...state.entry, route: route ?? '' } };
}

/** No store: nothing is read or written beyond process memory. */
const NO_RECORDS: RecordStore<never, never> = {
  read: async () => undefined,
  write: async () => {},
  delete: async () => {},
};

/** The user's store, behind the time limit and breaker of safe-store.ts. */
function guardedStore(
  store: KeyvLike,
  deps: Pick<FileCacheDeps, 'storeTimeoutMs' | 'storeBreakMs'>,
  now: () => number,
  onError: (event: Extract<PolitelyEvent, { type: 'store-error' }>) => void,
): SafeStore {
  return createSafeStore(store, {
    now,
    ...(deps.storeTimeoutMs !== undefined ? { timeoutMs: deps.storeTimeoutMs } : {}),
    ...(deps.storeBreakMs !== undefined ? { breakMs: deps.storeBreakMs } : {}),
    emit: onError,
  });
}

/** What the next fetch builds on: the more recent of what memory and the store know. */
function newerOf<R, E extends FileEntry>(
  inMemory: OriginState<R, E> | undefined,
  stored: OriginState<R, E> | undefined,
): OriginState<R, E> | undefined {
  if (stored && (!inMemory || stored.entry.fetchedAt > inMemory.entry.fetchedAt)) return stored;
  return inMemory;
}
