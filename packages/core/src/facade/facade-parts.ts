/**
 * The parts the facade delegates to, built once from the resolved options: the scheduler (memory or
 * Redis), host keys, each host's pace from its responses and what feeds it, the in-flight limit and
 * the robots.txt cache, whose fetches are paced like any request to the host; and how they end.
 */

import { createMemoryTier } from '../cache/memory-tier.js';
import { RESTART_MARGIN_MS, withPersistedPace } from '../cache/persisted-pace.js';
import { createRobotsCache, type RobotsCache } from '../cache/robots-cache.js';
import { closableStore, createSafeStore, DEFAULT_STORE_TIMEOUT_MS } from '../cache/safe-store.js';
import { createTdmRepCache, type TdmRepCache } from '../cache/tdmrep-cache.js';
import type { Clock } from '../kernel/clock.js';
import type { EventSink } from '../kernel/events.js';
import { withSafetyMargin } from '../kernel/safety-margin.js';
import { isTdmPurpose } from '../kernel/tdm-reservation.js';
import { createLocalInFlight, type InFlightLimiter } from '../schedule/in-flight.js';
import type { MemoryScheduler } from '../schedule/memory-scheduler.js';
import { resolveScheduler } from '../schedule/resolve-scheduler.js';
import type { Scheduler } from '../schedule/types.js';
import { createHostPace, type HostPace } from '../signals/host-pace.js';
import { delayAsked } from './decision-policy.js';
import { fleetSharing } from './fleet-sharing.js';
import { createHostFeedback, type HostFeedback } from './host-feedback.js';
import { createHostKeys, type HostKeys } from './host-key.js';
import type { ResolvedOptions } from './options.js';
import { createRobotsFetchPacing } from './robots-fetch-pacing.js';

export interface FacadeParts {
  readonly scheduler: Scheduler;
  /**
   * The scheduler's slot for a host due and free now, started at once, else undefined (then
   * `scheduler.reserve`); undefined when the scheduler grants none that way.
   */
  readonly reserveNow: MemoryScheduler['reserveNow'] | undefined;
  readonly hostKeys: HostKeys;
  readonly pace: HostPace;
  /** Feeds responses and real sends back into the pace and the schedule. */
  readonly feedback: HostFeedback;
  /** Caps requests in flight per host: the scheduler's own (fleet-wide with Redis), else in-process. */
  readonly inFlight: InFlightLimiter;
  readonly cache: RobotsCache;
  /** Each origin's /.well-known/tdmrep.json: only when the `purpose` is text and data mining. */
  readonly tdmrep: TdmRepCache | undefined;
  /**
   * Closes the scheduler, then waits for what is still owed to Redis (give-backs, releases, a
   * robots.txt lock's release) and to the store (pace records, cache writes), each bounded by its
   * timeout; nothing is sent after it.
   */
  close(): Promise<void>;
}

export function createFacadeParts(resolved: ResolvedOptions, clock: Clock, emit: EventSink): FacadeParts {
  // The store as every part uses it, so close() can end their use of it (safe-store.ts).
  const store = resolved.store && closableStore(resolved.store);
  const options: ResolvedOptions = store ? { ...resolved, store } : resolved;
  const resolvedScheduler = resolveScheduler(resolved, { clock, emit });
  const scheduler = persistedPace(resolvedScheduler, options, clock, emit);
  // What the memory scheduler grants in this synchronous step (a slot, a place in flight), asked of it
  // directly; Redis's must be asked for.
  const own = <K extends 'reserveNow' | 'tryAcquireInFlight'>(name: K) => {
    const method = (scheduler as Partial<MemoryScheduler>)[name];
    return typeof method === 'function' ? (method.bind(scheduler) as MemoryScheduler[K]) : undefined;
  };
  const fleet = fleetSharing(resolved, scheduler, clock);
  if (fleet.notice) emit(fleet.notice);
  const hostKeys = createHostKeys({
    option: options.hostKey,
    lookup: options.lookup,
    clock,
    onLookupFailed: (hostname, error) => emit({ type: 'host-lookup-failed', hostname, error }),
  });
  const pace = createHostPace({
    store: fleet.signals,
    emit,
    latencyFactor: options.latencyFactor,
    maxDelayMs: options.maxDelayMs,
    defaultFloorMs: withSafetyMargin(options.minDelayMs),
    clock,
    maxRateLimitDelayMs: options.maxRateLimitDelayMs,
    rateLimitAboveMax: options.rateLimitAboveMax,
  });
  const acquire = scheduler.acquireInFlight?.bind(scheduler);
  const tryAcquire = own('tryAcquireInFlight');
  const inFlight: InFlightLimiter = acquire
    ? { acquire, ...(tryAcquire ? { tryAcquire } : {}) }
    : createLocalInFlight(clock);
  // The origin's files are paced as its pages are: the delay robots.txt asks, with the margin (the
  // cache below is built after, and only read once a file is fetched). Not the latency pace, whose
  // slots for the files would hold a fast host's pages back.
  const robotsPacing = createRobotsFetchPacing({
    scheduler,
    hostKeys,
    delayOf: (entry) => withSafetyMargin(delayAsked(entry, options)),
    known: (url) => cache.known(url),
    maxWaitMs: options.maxWaitMs,
    fetch: options.fetch,
  });
  // Every well-known file is fetched, stored and paced the same way, through the same fetch, slot and
  // fleet lock, and held in one memory tier under one budget, memory.budgetBytes.
  const files = {
    fetch: robotsPacing.fetch,
    clock,
    emit,
    takeSlot: robotsPacing.takeSlot,
    memory: createMemoryTier(options.memoryBudgetBytes, options.memoryCacheSize),
    ...fleet.lock,
  };
  // robots.txt carries the delay: once read, the host's next start is pushed to it.
  const cache = createRobotsCache(options, { ...files, spaceAfter: robotsPacing.spaceAfter });
  const tdmrep = isTdmPurpose(options.purpose) ? createTdmRepCache(options, files) : undefined;
  const feedback = createHostFeedback({
    scheduler,
    pace,
    clock,
    maxBackoffMs: options.maxBackoffMs,
    rateLimitHeaders: options.rateLimitHeaders,
  });
  return {
    scheduler,
    // Never past a wrapper: persisted pace records each start.
    reserveNow: scheduler === resolvedScheduler ? own('reserveNow') : undefined,
    hostKeys,
    pace,
    feedback,
    inFlight,
    cache,
    tdmrep,
    async close() {
      try {
        await scheduler.close();
      } finally {
        await Promise.all([fleet.lock.fleetLock?.close(), store?.close()]);
      }
    },
  };
}

/**
 * The memory scheduler with its pace kept in the user's store (cache/persisted-pace.ts), when there
 * is one and persistPace is on. Only the built-in memory scheduler: with Redis the pace already lives
 * in Redis, and a custom Scheduler keeps its own state.
 */
function persistedPace(
  scheduler: Scheduler,
  options: ResolvedOptions,
  clock: Clock,
  emit: EventSink,
): Scheduler {
  const builtIn = options.scheduler === 'auto' || options.scheduler === 'memory';
  if (!options.persistPace || options.store === undefined || !builtIn || scheduler.kind !== 'memory') {
    return scheduler;
  }
  return withPersistedPace(scheduler, {
    store: createSafeStore(options.store, { now: () => clock.now(), emit }),
    clock,
    // The furthest ahead this crawler writes a host's time: its longest delay (Crawl-delay honoured,
    // the signals' pace, a backoff or a rate limit, which maxBackoffMs bounds), the margin, and the
    // lead of a record written ahead of a slow batch (two store timeouts at most).
    maxAheadMs:
      Math.max(
        options.minDelayMs,
        options.respectCrawlDelay ? options.maxCrawlDelayMs : 0,
        options.maxDelayMs,
        options.maxBackoffMs,
      ) +
      RESTART_MARGIN_MS +
      2 * DEFAULT_STORE_TIMEOUT_MS,
    emit,
  });
}
