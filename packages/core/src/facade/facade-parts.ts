/**
 * The parts the facade delegates to, built once from the resolved options: the scheduler (memory or
 * Redis), host keys, each host's pace from its responses and what feeds it, the in-flight limit and
 * the robots.txt cache, whose fetches are paced like any request to the host.
 */
import { withPersistedPace } from '../cache/persisted-pace.js';
import { createRobotsCache, type RobotsCache } from '../cache/robots-cache.js';
import { createSafeStore } from '../cache/safe-store.js';
import { createTdmRepCache, type TdmRepCache } from '../cache/tdmrep-cache.js';
import type { Clock } from '../kernel/clock.js';
import type { EventSink } from '../kernel/events.js';
import { withSafetyMargin } from '../kernel/safety-margin.js';
import { isTdmPurpose } from '../kernel/tdm-reservation.js';
import { createLocalInFlight, type InFlightLimiter } from '../schedule/in-flight.js';
import { resolveScheduler } from '../schedule/resolve-scheduler.js';
import type { Scheduler } from '../schedule/types.js';
import { createHostPace, type HostPace } from '../signals/host-pace.js';
import { fleetLockFor, signalStoreFor, storeSharing } from './fleet-sharing.js';
import { createHostFeedback, type HostFeedback } from './host-feedback.js';
import { createHostKeys, type HostKeys } from './host-key.js';
import type { ResolvedOptions } from './options.js';
import { createRobotsFetchPacing } from './robots-fetch-pacing.js';

export interface FacadeParts {
  readonly scheduler: Scheduler;
  readonly hostKeys: HostKeys;
  readonly pace: HostPace;
  /** Feeds responses and real sends back into the pace and the schedule. */
  readonly feedback: HostFeedback;
  /** Caps requests in flight per host: the scheduler's own (fleet-wide with Redis), else in-process. */
  readonly inFlight: InFlightLimiter;
  readonly cache: RobotsCache;
  /** Each origin's /.well-known/tdmrep.json: only when the `purpose` is text and data mining. */
  readonly tdmrep: TdmRepCache | undefined;
}

export function createFacadeParts(options: ResolvedOptions, clock: Clock, emit: EventSink): FacadeParts {
  const scheduler = persistedPace(resolveScheduler(options, { clock, emit }), options, clock, emit);
  const sharing = storeSharing(options, scheduler);
  if (sharing) emit(sharing);
  const hostKeys = createHostKeys({
    option: options.hostKey,
    lookup: options.lookup,
    clock,
    onLookupFailed: (hostname, error) => emit({ type: 'host-lookup-failed', hostname, error }),
  });
  const pace = createHostPace({
    store: signalStoreFor(options, scheduler, clock),
    emit,
    latencyFactor: options.latencyFactor,
    maxDelayMs: options.maxDelayMs,
    defaultFloorMs: withSafetyMargin(options.minDelayMs),
    clock,
    maxRateLimitDelayMs: options.maxRateLimitDelayMs,
    rateLimitAboveMax: options.rateLimitAboveMax,
  });
  const acquire = scheduler.acquireInFlight?.bind(scheduler);
  const inFlight = acquire ? { acquire } : createLocalInFlight(clock);
  const robotsPacing = createRobotsFetchPacing({
    scheduler,
    hostKeys,
    spacingMs: withSafetyMargin(options.minDelayMs),
    fetch: options.fetch,
  });
  const fleet = fleetLockFor(options, scheduler);
  const cache = createRobotsCache(options, {
    fetch: robotsPacing.fetch,
    clock,
    emit,
    takeSlot: robotsPacing.takeSlot,
    ...fleet,
  });
  // Fetched, stored and paced as robots.txt is, through the same fetch, slot and fleet lock.
  const tdmrep = isTdmPurpose(options.purpose)
    ? createTdmRepCache(options, {
        fetch: robotsPacing.fetch,
        clock,
        emit,
        takeSlot: robotsPacing.takeSlot,
        ...fleet,
      })
    : undefined;
  const feedback = createHostFeedback({
    scheduler,
    pace,
    clock,
    maxBackoffMs: options.maxBackoffMs,
    rateLimitHeaders: options.rateLimitHeaders,
  });
  return { scheduler, hostKeys, pace, feedback, inFlight, cache, tdmrep };
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
  const now = () => clock.now();
  return withPersistedPace(scheduler, {
    store: createSafeStore(options.store, { now, emit }),
    now,
    // A stored time further ahead than any delay or backoff this crawler could have asked is not ours.
    maxAheadMs:
      Math.max(options.maxCrawlDelayMs, options.maxBackoffMs, options.maxDelayMs, options.minDelayMs) +
      60_000,
  });
}
