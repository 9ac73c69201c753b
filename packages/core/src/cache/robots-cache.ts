/**
 * The robots.txt cache: in-process LRU of compiled rules (memory-tier.ts) -> Keyv-shaped store
 * (record-store.ts) -> fetch (refresh.ts), single-flight per origin (single-flight.ts) across the store
 * lookup and the fetch. Freshness lives inside the stored value; the store's own TTL is the longer
 * stale-if-error horizon (RFC 9309 2.4 and 2.3.1.4).
 */
import { raceAbort } from '../abort.js';
import type { ParseOptions } from '../engine/types.js';
import { originOf } from '../fetch/robots-url.js';
import type { FetchLike } from '../fetch/types.js';
import type { Clock } from '../schedule/types.js';
import type { PolitelyEvent } from '../types.js';
import type { FleetLock } from './fleet-lock.js';
import { createMemoryStore } from './memory-store.js';
import { createMemoryTier } from './memory-tier.js';
import { type OriginState, parseKeyOf, type StateRules } from './origin-state.js';
import { createRecordStore } from './record-store.js';
import { type RefreshConfig, refresh, unexpectedFailure } from './refresh.js';
import { createSafeStore, type SafeStore } from './safe-store.js';
import { createSingleFlight } from './single-flight.js';
import type { KeyvLike, RobotsEntry } from './types.js';
import { LAST_GOOD_COPY_UNTIL_MS, phaseChange, type UnreachablePolicy } from './unreachable-timeline.js';

export interface RobotsCacheConfig {
  /** Sent as the User-Agent header of robots.txt requests. */
  readonly userAgent: string;
  /** Default: Node's fetch. */
  readonly fetch?: FetchLike;
  /** Default: a bounded in-memory store. */
  readonly store?: KeyvLike;
  readonly clock: Pick<Clock, 'now'>;
  /** Whole-fetch timeout, in ms. Default 10000. */
  readonly timeoutMs?: number;
  /** Default 512000 (RFC 9309 2.5). */
  readonly maxBytes?: number;
  /** Default 5 (RFC 9309 2.3.1.2). */
  readonly maxRedirects?: number;
  /** Default 24 h (RFC 9309 2.4). */
  readonly cacheTtlMs?: number;
  /** Shortest freshness whatever the server says, in ms. Default 60000 (clamped to cacheTtlMs). */
  readonly minTtlMs?: number;
  /** How long a good copy stands in while robots.txt is unreachable. Default 30 days. */
  readonly staleTtlMs?: number;
  /** Default 60000; doubles per consecutive failure up to 1 h. */
  readonly unreachableRetryMs?: number;
  /** Default 'allow'. */
  readonly onUnauthorized?: 'allow' | 'disallow';
  /** 'rfc' (default): RFC 9309 2.3.1.4; 'google': Google's timeline (unreachable-timeline.ts). */
  readonly unreachablePolicy?: UnreachablePolicy;
  /** Origins kept compiled in process memory. Default 10000. */
  readonly memoryCacheSize?: number;
  /**
   * Bytes the robots.txt rules kept in process memory may hold, compiled and stored, estimated from the
   * structures built (RobotsTxt#estimateBytes). Default 256 MiB. Without a user store, a quarter of it
   * bounds the built-in store's records and the rest the compiled rules.
   */
  readonly memoryBudgetBytes?: number;
  readonly parse?: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>;
  /** Store calls slower than this count as failures, in ms. Default 2000. */
  readonly storeTimeoutMs?: number;
  /** How long a failed store is skipped, in ms. Default 10000. */
  readonly storeBreakMs?: number;
  readonly emit: (event: PolitelyEvent) => void;
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
}

export interface RobotsCacheStats {
  readonly memoryHits: number;
  readonly storeHits: number;
  /** Lookups that had to fetch robots.txt. */
  readonly misses: number;
  readonly storeErrors: number;
  /** Stored records not trusted (tampered, foreign, from the future, ...): each was a miss and refetched. */
  readonly storeRejects: number;
  readonly fetches: { readonly ok: number; readonly unavailable: number; readonly unreachable: number };
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

export const ROBOTS_CACHE_DEFAULTS = {
  timeoutMs: 10_000,
  maxBytes: 512_000,
  maxRedirects: 5,
  cacheTtlMs: 86_400_000,
  staleTtlMs: 30 * 86_400_000,
  unreachableRetryMs: 60_000,
  memoryCacheSize: 10_000,
  memoryBudgetBytes: 256 * 1024 * 1024,
  onUnauthorized: 'allow',
  unreachablePolicy: 'rfc',
} as const satisfies Partial<RobotsCacheConfig>;

/** The options ROBOTS_CACHE_DEFAULTS covers, each filled in. */
type CacheSettings = {
  readonly [K in keyof typeof ROBOTS_CACHE_DEFAULTS]-?: NonNullable<RobotsCacheConfig[K]>;
};

export function createRobotsCache(config: RobotsCacheConfig): RobotsCache {
  const settings: CacheSettings = { ...ROBOTS_CACHE_DEFAULTS, ...definedOnly(config) };
  const now = () => config.clock.now();
  const counters = { memoryHits: 0, storeHits: 0, misses: 0, storeErrors: 0, storeRejects: 0 };
  const fetches = { ok: 0, unavailable: 0, unreachable: 0 };
  const emit = (event: PolitelyEvent) => {
    try {
      config.emit(event);
    } catch {
      // A listener's bug must not break a robots lookup.
    }
  };
  const rules = stateRulesOf(config, settings);

  const budget = settings.memoryBudgetBytes;
  const storeBudget = config.store ? 0 : Math.max(1, Math.floor(budget / 4));
  const memory = createMemoryTier(settings.memoryCacheSize, budget - storeBudget);
  const records = createRecordStore({
    store: guardedStore(config, settings, storeBudget, now, (event) => {
      counters.storeErrors++;
      emit(event);
    }),
    rules,
    now,
    // Google's timeline needs the outage's start for 30 days and more, whatever staleTtlMs says.
    ttlMs:
      settings.unreachablePolicy === 'google'
        ? Math.max(settings.staleTtlMs, 2 * LAST_GOOD_COPY_UNTIL_MS)
        : settings.staleTtlMs,
    onReject: (origin, reason) => {
      counters.storeRejects++;
      emit({ type: 'store-record-rejected', origin, reason });
    },
  });
  const flights = createSingleFlight<RobotsEntry>();
  const refreshing: RefreshConfig = {
    userAgent: config.userAgent,
    fetch: config.fetch,
    timeoutMs: settings.timeoutMs,
    maxBytes: settings.maxBytes,
    maxRedirects: settings.maxRedirects,
    rules,
    now,
    emit,
    takeSlot: config.takeSlot,
  };

  function freshInMemory(origin: string): RobotsEntry | undefined {
    const known = memory.get(origin);
    if (known && now() < known.entry.freshUntil) {
      counters.memoryHits++;
      return known.entry;
    }
    return undefined;
  }

  /** The stored state, and its entry when fresh (then also kept in memory and counted as a hit). */
  async function readStored(origin: string, generation: number) {
    const stored = await records.read(origin);
    if (stored && now() < stored.entry.freshUntil) {
      counters.storeHits++;
      if (flights.isCurrent(origin, generation)) memory.set(origin, stored); // not if forgotten meanwhile
      return { stored, fresh: stored.entry };
    }
    return { stored, fresh: undefined };
  }

  /** Read-through: the store, then (in one process of the fleet) a fetch. */
  async function load(origin: string, robotsUrl: string, generation: number): Promise<RobotsEntry> {
    const { stored, fresh } = await readStored(origin, generation);
    if (fresh) return fresh;
    const lock = config.fleetLock;
    if (!lock) return refetch(origin, robotsUrl, stored, generation);
    return lock.run(
      origin,
      async () => (await readStored(origin, generation)).fresh,
      () => refetch(origin, robotsUrl, stored, generation),
    );
  }

  async function refetch(
    origin: string,
    robotsUrl: string,
    stored: OriginState | undefined,
    generation: number,
  ): Promise<RobotsEntry> {
    const previous = newerOf(memory.get(origin), stored);
    counters.misses++;
    const next = await refresh(origin, robotsUrl, previous, refreshing);
    fetches[next.outcome]++;
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
      const robotsUrl = `${origin}/robots.txt`;
      const flight = flights.run(origin, (generation) =>
        load(origin, robotsUrl, generation).catch((error: unknown) => {
          const failed = unexpectedFailure(origin, robotsUrl, error, refreshing);
          memory.set(origin, failed);
          return failed.entry;
        }),
      );
      return raceAbort(flight, signal);
    },
    peek(url) {
      return freshInMemory(originOf(url));
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

/** The user's store (or a bounded in-memory one), behind the time limit and breaker of safe-store.ts. */
function guardedStore(
  config: RobotsCacheConfig,
  settings: CacheSettings,
  storeBudget: number,
  now: () => number,
  onError: (event: Extract<PolitelyEvent, { type: 'store-error' }>) => void,
): SafeStore {
  const store =
    config.store ?? createMemoryStore({ maxEntries: settings.memoryCacheSize, maxBytes: storeBudget, now });
  return createSafeStore(store, {
    now,
    ...(config.storeTimeoutMs !== undefined ? { timeoutMs: config.storeTimeoutMs } : {}),
    ...(config.storeBreakMs !== undefined ? { breakMs: config.storeBreakMs } : {}),
    emit: onError,
  });
}

function stateRulesOf(config: RobotsCacheConfig, settings: CacheSettings): StateRules {
  return {
    limits: {
      cacheTtlMs: settings.cacheTtlMs,
      unreachableRetryMs: settings.unreachableRetryMs,
      ...(config.minTtlMs !== undefined ? { minTtlMs: config.minTtlMs } : {}),
    },
    staleTtlMs: settings.staleTtlMs,
    maxBytes: settings.maxBytes,
    onUnauthorized: settings.onUnauthorized,
    parseOptions: config.parse ?? {},
    parseKey: parseKeyOf(config.parse ?? {}),
    unreachablePolicy: settings.unreachablePolicy,
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

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
