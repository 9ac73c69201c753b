/**
 * The robots.txt cache: in-process LRU of compiled rules, bounded by bytes (memory-tier.ts) -> the
 * user's Keyv-shaped store, if any (record-store.ts) -> fetch (refresh.ts), single-flight per origin
 * (single-flight.ts) across the store lookup and the fetch. Freshness lives inside the stored value;
 * the store's own TTL is the longer stale-if-error horizon (RFC 9309 2.4 and 2.3.1.4).
 */

import type { ParseOptions } from '../engine/types.js';
import { originOf } from '../fetch/robots-url.js';
import type { FetchLike } from '../fetch/types.js';
import { raceAbort } from '../kernel/abort.js';
import type { Clock } from '../kernel/clock.js';
import { isWaitTooLongError } from '../kernel/errors.js';
import type { PolitelyEvent } from '../kernel/events.js';
import type { FleetLock } from './fleet-lock.js';
import { createMemoryTier } from './memory-tier.js';
import { type OriginState, parseKeyOf, type StateRules } from './origin-state.js';
import { createRecordStore, type RecordStore } from './record-store.js';
import { type RefreshConfig, refresh, unexpectedFailure } from './refresh.js';
import { robotsChangedEvent } from './robots-change.js';
import { createSafeStore, type SafeStore } from './safe-store.js';
import { createSingleFlight } from './single-flight.js';
import type { KeyvLike, RobotsEntry } from './types.js';
import { LAST_GOOD_COPY_UNTIL_MS, phaseChange, type UnreachablePolicy } from './unreachable-timeline.js';

/**
 * The options the cache reads, under their PolitenessOptions names and resolved (every default filled
 * in): the facade hands its ResolvedOptions over as they are, so an option is defined once, in the
 * facade's schema (options.ts), and the cache only uses it.
 */
export interface RobotsCacheOptions {
  /** Sent as the User-Agent header of robots.txt requests. */
  readonly userAgent: string;
  /** The route of the request being checked, when the fetch goes its way (`robots.route`). */
  readonly robotsRoute: (() => string | undefined) | undefined;
  /** The user's store; undefined: a bounded in-memory store. */
  readonly store: KeyvLike | undefined;
  /** Whole-fetch timeout, in ms. */
  readonly robotsTimeoutMs: number;
  /** Bytes read at most (RFC 9309 2.5). */
  readonly robotsMaxBytes: number;
  /** Redirect hops followed (RFC 9309 2.3.1.2). */
  readonly robotsMaxRedirects: number;
  /** Longest freshness (RFC 9309 2.4). */
  readonly cacheTtlMs: number;
  /** Shortest freshness whatever the server says, in ms (clamped to cacheTtlMs). */
  readonly minTtlMs: number;
  /** How long a good copy stands in while robots.txt is unreachable. */
  readonly staleTtlMs: number;
  /** First retry delay after a failure; doubles per consecutive failure up to 1 h. */
  readonly unreachableRetryMs: number;
  readonly onUnauthorized: 'allow' | 'disallow';
  /** 'rfc': RFC 9309 2.3.1.4; 'google': Google's timeline (unreachable-timeline.ts). */
  readonly unreachablePolicy: UnreachablePolicy;
  /** Origins kept compiled in process memory at most; undefined: no count, the byte budget alone. */
  readonly memoryCacheSize: number | undefined;
  /**
   * Bytes the robots.txt rules kept in process memory may hold, estimated from the structures built
   * (RobotsTxt#estimateBytes). Without a user store, process memory is the only tier, so all of it.
   */
  readonly memoryBudgetBytes: number;
  readonly parse: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>;
  /** A refresh that changes the rules for this product token emits `robots-changed`. */
  readonly productToken: string;
}

/** What the cache is wired to, and tuning no user sets. */
export interface RobotsCacheDeps {
  readonly clock: Pick<Clock, 'now'>;
  readonly emit: (event: PolitelyEvent) => void;
  /** Default: Node's fetch. */
  readonly fetch?: FetchLike;
  /**
   * Fleet-wide single flight (a Redis-backed store): one process of the fleet fetches an origin's
   * robots.txt, the others read its result from the store.
   */
  readonly fleetLock?: FleetLock;
  /**
   * Waits for the host's slot before robots.txt is fetched, outside the fetch's own timeout: the
   * robots.txt request is paced like any other request to the host.
   */
  readonly takeSlot?: (robotsUrl: string) => Promise<void>;
  /** Store calls slower than this count as failures, in ms. Default 2000. */
  readonly storeTimeoutMs?: number;
  /** How long a failed store is skipped, in ms. Default 10000. */
  readonly storeBreakMs?: number;
}

export interface RobotsCacheStats {
  readonly memoryHits: number;
  readonly storeHits: number;
  /** Lookups that had to fetch robots.txt. */
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

export interface RobotsCache {
  /**
   * The origin's entry, fetching robots.txt once when nothing fresh is known (single-flight). Never
   * rejects for HTTP or store trouble; TypeError for a non-http(s) URL; the signal's reason when
   * aborted (the shared fetch goes on for other callers).
   */
  get(url: URL | string, signal?: AbortSignal): Promise<RobotsEntry>;
  /** The fresh entry from process memory, without I/O; undefined when it would need a lookup. */
  peek(url: URL | string): RobotsEntry | undefined;
  /**
   * Drops the origin's entry from process memory and the store; a lookup under way is not kept, so
   * the next `get` fetches robots.txt again. Never rejects for store trouble.
   */
  forget(url: URL | string): Promise<void>;
  stats(): RobotsCacheStats;
}

export function createRobotsCache(options: RobotsCacheOptions, deps: RobotsCacheDeps): RobotsCache {
  const now = () => deps.clock.now();
  const counters = { memoryHits: 0, storeHits: 0, misses: 0, storeErrors: 0, storeRejects: 0 };
  const fetches = { ok: 0, unavailable: 0, unreachable: 0, notModified: 0 };
  const emit = (event: PolitelyEvent) => {
    try {
      deps.emit(event);
    } catch {
      // A listener's bug must not break a robots lookup.
    }
  };
  const rules = stateRulesOf(options);

  const memory = createMemoryTier(options.memoryBudgetBytes, options.memoryCacheSize);
  // Without a user store the memory tier is the one copy: a second in-process store would hold every
  // origin twice (compiled and as JSON) under a second bound, and evict on its own schedule.
  const store = options.store;
  const records =
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
            options.unreachablePolicy === 'google'
              ? Math.max(options.staleTtlMs, 2 * LAST_GOOD_COPY_UNTIL_MS)
              : options.staleTtlMs,
          onReject: (origin, reason) => {
            counters.storeRejects++;
            emit({ type: 'store-record-rejected', origin, reason });
          },
        });
  const flights = createSingleFlight<RobotsEntry>();
  const refreshing: RefreshConfig = {
    userAgent: options.userAgent,
    fetch: deps.fetch,
    timeoutMs: options.robotsTimeoutMs,
    maxBytes: options.robotsMaxBytes,
    maxRedirects: options.robotsMaxRedirects,
    rules,
    now,
    emit,
    takeSlot: deps.takeSlot,
  };

  const routeOf = options.robotsRoute;

  function freshInMemory(origin: string, route: string | undefined): RobotsEntry | undefined {
    const known = memory.get(origin);
    if (known && now() < known.entry.freshUntil && holds(known.entry, route)) {
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
  async function load(origin: string, robotsUrl: string, generation: number): Promise<RobotsEntry> {
    // The route of the caller that started this flight: its fetch goes that way.
    const route = routeOf?.();
    const { stored, fresh } = await readStored(origin, generation, route);
    if (fresh) return fresh;
    const lock = deps.fleetLock;
    if (!lock) return refetch(origin, robotsUrl, stored, generation, route);
    return lock.run(
      origin,
      async () => (await readStored(origin, generation, route)).fresh,
      () => refetch(origin, robotsUrl, stored, generation, route),
    );
  }

  async function refetch(
    origin: string,
    robotsUrl: string,
    stored: OriginState | undefined,
    generation: number,
    route: string | undefined,
  ): Promise<RobotsEntry> {
    const previous = newerOf(memory.get(origin), stored);
    counters.misses++;
    const refreshed = await refresh(origin, robotsUrl, previous, refreshing);
    const { outcome } = refreshed;
    const next = routed(refreshed.state, route);
    fetches[outcome === 'not-modified' ? 'notModified' : outcome]++;
    if (!flights.isCurrent(origin, generation)) return next.entry; // forgotten meanwhile: answer, keep nothing
    await replace(origin, previous, next);
    return next.entry;
  }

  /**
   * The one place a refreshed state replaces the previous one, in process memory and in the store;
   * what changed between the two is announced here.
   */
  async function replace(
    origin: string,
    previous: OriginState | undefined,
    next: OriginState,
  ): Promise<void> {
    memory.set(origin, next);
    await records.write(next);
    const phase = phaseChange(origin, previous?.entry.outage, next.entry.outage);
    if (phase) emit(phase);
    announceChange(previous, next);
  }

  /** `robots-changed` when `next`, newer than `previous`, changes the rules for our product token. */
  function announceChange(previous: OriginState | undefined, next: OriginState): void {
    if (!previous || previous.entry.fetchedAt >= next.entry.fetchedAt) return;
    const event = robotsChangedEvent(previous, next, options.productToken);
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
      const route = routeOf?.();
      const hit = freshInMemory(origin, route);
      if (hit) return Promise.resolve(hit);
      const robotsUrl = `${origin}/robots.txt`;
      const lookup = () =>
        flights.run(origin, (generation) =>
          load(origin, robotsUrl, generation).catch((error: unknown) => {
            // The host's slot is further than maxWaitMs (robots-fetch-pacing.ts): nothing was fetched, nothing kept.
            if (isWaitTooLongError(error)) throw error;
            const failed = unexpectedFailure(origin, robotsUrl, error, refreshing);
            memory.set(origin, failed);
            return failed.entry;
          }),
        );
      // A flight another route's caller started got no answer that way: this caller asks its own way.
      const flight = lookup().then((entry) => (holds(entry, route) ? entry : lookup()));
      return raceAbort(flight, signal);
    },
    peek(url) {
      return freshInMemory(originOf(url), routeOf?.());
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
 * Whether an entry stands for a caller going `route`. A robots.txt that got no answer at all says
 * nothing about the site, only about the way it was asked (a dead proxy): that failure is held only
 * for callers of the same route, or of none (a queue's look before the request has a route); a
 * request going another way asks again, through its own, as it would send its page (issue 40.7).
 */
function holds(entry: RobotsEntry, route: string | undefined): boolean {
  return route === undefined || entry.status !== 0 || entry.source !== 'unreachable' || entry.route === route;
}

/** The state after a fetch that went out by `route`: a failure without an answer keeps which way. */
function routed(state: OriginState, route: string | undefined): OriginState {
  if (route === undefined || state.entry.status !== 0 || state.entry.source !== 'unreachable') return state;
  return { ...state, entry: { ...state.entry, route } };
}

/** No store: nothing is read or written beyond process memory. */
const NO_RECORDS: RecordStore = {
  read: async () => undefined,
  write: async () => {},
  delete: async () => {},
};

/** The user's store, behind the time limit and breaker of safe-store.ts. */
function guardedStore(
  store: KeyvLike,
  deps: RobotsCacheDeps,
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

function stateRulesOf(options: RobotsCacheOptions): StateRules {
  return {
    limits: {
      cacheTtlMs: options.cacheTtlMs,
      unreachableRetryMs: options.unreachableRetryMs,
      minTtlMs: options.minTtlMs,
    },
    staleTtlMs: options.staleTtlMs,
    maxBytes: options.robotsMaxBytes,
    onUnauthorized: options.onUnauthorized,
    parseOptions: options.parse,
    parseKey: parseKeyOf(options.parse),
    unreachablePolicy: options.unreachablePolicy,
  };
}

/** What the next fetch builds on: the more recent of what memory and the store know. */
function newerOf(
  inMemory: OriginState | undefined,
  stored: OriginState | undefined,
): OriginState | undefined {
  if (stored && (!inMemory || stored.entry.fetchedAt > inMemory.entry.fetchedAt)) return stored;
  return inMemory;
}
