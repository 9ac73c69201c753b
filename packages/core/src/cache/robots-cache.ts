/**
 * The robots.txt cache: in-process LRU of compiled rules -> Keyv-shaped store -> fetch, single-flight
 * per origin across the store lookup and the fetch. Freshness lives inside the stored value; the
 * store's own TTL is the longer stale-if-error horizon (RFC 9309 2.4 and 2.3.1.4).
 */
import { LRUCache } from 'lru-cache';
import type { ParseOptions } from '../engine/types.js';
import { fetchRobotsTxt } from '../fetch/fetcher.js';
import { maxLifetimeMs } from '../fetch/freshness.js';
import { originOf } from '../fetch/robots-url.js';
import type { FetchLike } from '../fetch/types.js';
import { raceAbort } from '../kernel/abort.js';
import type { Clock } from '../kernel/clock.js';
import type { PolitelyEvent } from '../kernel/events.js';
import type { FleetLock } from './fleet-lock.js';
import { createMemoryStore } from './memory-store.js';
import {
  type OriginState,
  parseKeyOf,
  type StateRules,
  stateAfterFetch,
  stateFromStored,
  storedFromState,
} from './origin-state.js';
import { robotsChangedEvent } from './robots-change.js';
import { createSafeStore } from './safe-store.js';
import { decodeStored, type StoreRecordRejection, storeKey } from './stored-record.js';
import type { KeyvLike, RobotsEntry } from './types.js';

/**
 * The options the cache reads, under their PolitenessOptions names and resolved (every default filled
 * in): the facade hands its ResolvedOptions over as they are, so an option is defined once, in the
 * facade's schema (options.ts), and the cache only uses it.
 */
export interface RobotsCacheOptions {
  /** Sent as the User-Agent header of robots.txt requests. */
  readonly userAgent: string;
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
  /** How long a good copy stands in while robots.txt is unreachable. */
  readonly staleTtlMs: number;
  /** First retry delay after a failure; doubles per consecutive failure up to 1 h. */
  readonly unreachableRetryMs: number;
  readonly onUnauthorized: 'allow' | 'disallow';
  /** Origins kept compiled in process memory. */
  readonly memoryCacheSize: number;
  /**
   * Bytes the robots.txt rules kept in process memory may hold, compiled and stored, estimated from the
   * structures built (RobotsTxt#estimateBytes). Without a user store, a quarter of it bounds the
   * built-in store's records and the rest the compiled rules.
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
  /** Shortest freshness whatever the server says, in ms. Default 60000 (clamped to cacheTtlMs). */
  readonly minTtlMs?: number;
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

export function createRobotsCache(options: RobotsCacheOptions, deps: RobotsCacheDeps): RobotsCache {
  const { clock } = deps;
  const now = () => clock.now();
  const counters = { memoryHits: 0, storeHits: 0, misses: 0, storeErrors: 0, storeRejects: 0 };
  const fetches = { ok: 0, unavailable: 0, unreachable: 0 };

  const emit = (event: PolitelyEvent) => {
    try {
      deps.emit(event);
    } catch {
      // A listener's bug must not break a robots lookup.
    }
  };
  const budget = options.memoryBudgetBytes;
  const storeBudget = options.store ? 0 : Math.max(1, Math.floor(budget / 4));
  const store = createSafeStore(
    options.store ?? createMemoryStore({ maxEntries: options.memoryCacheSize, maxBytes: storeBudget, now }),
    {
      now,
      ...(deps.storeTimeoutMs !== undefined ? { timeoutMs: deps.storeTimeoutMs } : {}),
      ...(deps.storeBreakMs !== undefined ? { breakMs: deps.storeBreakMs } : {}),
      emit: (event) => {
        counters.storeErrors++;
        emit(event);
      },
    },
  );
  // Bounded by bytes as well as by count: a hostile robots.txt of 500 KB compiles to megabytes, and
  // anyone with wildcard subdomains can serve one per origin.
  const memory = new LRUCache<string, OriginState>({
    max: options.memoryCacheSize,
    maxSize: Math.max(1, budget - storeBudget),
    sizeCalculation: stateBytes,
  });
  const inFlight = new Map<string, Promise<RobotsEntry>>();
  /**
   * Bumped by `forget` while a lookup is under way: that lookup still answers its callers but writes
   * nothing to memory or the store, so the next lookup fetches again.
   */
  const generations = new Map<string, number>();
  const generationOf = (origin: string) => generations.get(origin) ?? 0;
  const rules: StateRules = {
    limits: {
      cacheTtlMs: options.cacheTtlMs,
      unreachableRetryMs: options.unreachableRetryMs,
      ...(deps.minTtlMs !== undefined ? { minTtlMs: deps.minTtlMs } : {}),
    },
    staleTtlMs: options.staleTtlMs,
    maxBytes: options.robotsMaxBytes,
    onUnauthorized: options.onUnauthorized,
    parseOptions: options.parse,
    parseKey: parseKeyOf(options.parse),
  };

  /** The stored state, and whether it is fresh (then also kept in memory and counted as a hit). */
  async function readStored(origin: string, generation: number) {
    const stored = trustedState(origin, await store.get(storeKey(origin)));
    if (stored && now() < stored.entry.freshUntil) {
      counters.storeHits++;
      noticeChange(memory.get(origin), stored);
      if (generationOf(origin) === generation) memory.set(origin, stored); // not if forgotten meanwhile
      return { stored, fresh: stored.entry };
    }
    return { stored, fresh: undefined };
  }

  async function load(origin: string, robotsUrl: string): Promise<RobotsEntry> {
    const generation = generationOf(origin);
    const { stored, fresh } = await readStored(origin, generation);
    if (fresh) return fresh;
    const lock = deps.fleetLock;
    if (!lock) return fetchAndStore(origin, robotsUrl, stored, generation);
    return lock.run(
      origin,
      async () => (await readStored(origin, generation)).fresh,
      () => fetchAndStore(origin, robotsUrl, stored, generation),
    );
  }

  async function fetchAndStore(
    origin: string,
    robotsUrl: string,
    stored: OriginState | undefined,
    generation: number,
  ): Promise<RobotsEntry> {
    const key = storeKey(origin);
    let previous = memory.get(origin);
    if (stored && (!previous || stored.entry.fetchedAt > previous.entry.fetchedAt)) previous = stored;
    counters.misses++;
    await deps.takeSlot?.(robotsUrl);
    const result = await fetchRobotsTxt(robotsUrl, {
      userAgent: options.userAgent,
      timeoutMs: options.robotsTimeoutMs,
      // One byte past the limit tells a body of exactly maxBytes from a longer one; the engine makes the cut.
      maxBytes: options.robotsMaxBytes + 1,
      maxRedirects: options.robotsMaxRedirects,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
    const received = result.body?.byteLength ?? 0;
    const known = stateAfterFetch(origin, result, previous, now(), rules);
    fetches[known.outcome]++;
    emit({
      type: 'robots-fetch',
      origin,
      robotsUrl,
      status: result.status,
      outcome: known.outcome,
      redirects: result.redirects,
      bytes: Math.min(received, options.robotsMaxBytes),
      truncated: received > options.robotsMaxBytes,
      elapsedMs: result.elapsedMs,
      ...(result.error !== undefined ? { error: result.error } : {}),
    });
    noticeChange(previous, known);
    if (generationOf(origin) !== generation) return known.entry; // forgotten meanwhile: answer, keep nothing
    memory.set(origin, known);
    await store.set(key, storedFromState(known, rules), options.staleTtlMs);
    return known.entry;
  }

  /** Emits `robots-changed` when `after`, newer than `before`, changes our product token's rules. */
  function noticeChange(before: OriginState | undefined, after: OriginState): void {
    if (!before || before.entry.fetchedAt >= after.entry.fetchedAt) return;
    const event = robotsChangedEvent(before, after, options.productToken);
    if (event) emit(event);
  }

  /** The state a stored value describes, or undefined (absent or not trusted: reported, then a miss). */
  function trustedState(origin: string, value: unknown): OriginState | undefined {
    const at = now();
    const decoded = decodeStored(value, origin, rules.parseKey, {
      now: at,
      maxLifetimeMs: (outcome) => maxLifetimeMs(outcome, rules.limits),
    });
    if (decoded === undefined) return undefined;
    const state = decoded.record ? stateFromStored(decoded.record, at, rules) : undefined;
    if (state === undefined) reject(origin, decoded.rejected ?? 'rules');
    return state;
  }

  function reject(origin: string, reason: StoreRecordRejection): void {
    counters.storeRejects++;
    emit({ type: 'store-record-rejected', origin, reason });
  }

  /**
   * A bug of ours (the engine, a serialiser) must not crash a crawl: the origin is treated as
   * unreachable until the first retry, the error reported, nothing stored.
   */
  function unexpected(origin: string, robotsUrl: string, error: unknown): RobotsEntry {
    const at = now();
    const entry: RobotsEntry = {
      origin,
      robotsUrl,
      source: 'unreachable',
      status: 0,
      fetchedAt: at,
      freshUntil: at + options.unreachableRetryMs,
    };
    memory.set(origin, { entry, outcome: 'unreachable', failures: 1 });
    emit({
      type: 'robots-fetch',
      origin,
      robotsUrl,
      status: 0,
      outcome: 'unreachable',
      redirects: 0,
      bytes: 0,
      truncated: false,
      elapsedMs: 0,
      error: `internal error: ${error instanceof Error ? error.message : String(error)}`,
    });
    return entry;
  }

  function freshInMemory(origin: string): RobotsEntry | undefined {
    const known = memory.get(origin);
    if (known && now() < known.entry.freshUntil) {
      counters.memoryHits++;
      return known.entry;
    }
    return undefined;
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
      let flight = inFlight.get(origin);
      if (!flight) {
        const started: Promise<RobotsEntry> = load(origin, robotsUrl)
          .catch((error: unknown) => unexpected(origin, robotsUrl, error))
          .finally(() => {
            // After a forget, a newer lookup may hold the seat: leave it.
            if (inFlight.get(origin) === started) inFlight.delete(origin);
          });
        flight = started;
        inFlight.set(origin, flight);
      }
      return raceAbort(flight, signal);
    },
    peek(url) {
      return freshInMemory(originOf(url));
    },
    async forget(url) {
      const origin = originOf(url);
      // Only a lookup under way needs telling apart from the next one.
      if (inFlight.delete(origin)) generations.set(origin, generationOf(origin) + 1);
      memory.delete(origin);
      await store.delete(storeKey(origin));
    },
    stats() {
      return { ...counters, fetches: { ...fetches } };
    },
  };
}

/** Bytes an origin's state holds: its rules (compiled or about to be), plus the entry itself. */
function stateBytes(state: OriginState): number {
  const robots = state.entry.robots;
  const good = state.good?.robots;
  let bytes = 600;
  if (robots) bytes += robots.estimateBytes();
  if (good && good !== robots) bytes += good.estimateBytes();
  return Math.max(1, Math.ceil(bytes));
}
