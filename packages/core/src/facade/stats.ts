/**
 * The facade's counters: decisions by reason, pacing reservations by outcome, backoffs, skips by stage. `stats()`
 * joins them with the robots.txt cache's own counters into one snapshot.
 */
import type { RobotsCacheStats } from '../cache/robots-cache.js';
import type { TdmRepCacheStats } from '../cache/tdmrep-cache.js';
import type { Decision } from '../kernel/decision.js';
import type { SkipStage } from '../kernel/events.js';
import type { PolitenessStats } from './types.js';

export interface FacadeCounters {
  /** Counts a decision by its reason. */
  decision(decision: Decision): void;
  /** Counts a reservation: granted at once, after a wait, deferred (tryReserve), or refused as too long. */
  reservation(outcome: keyof PolitenessStats['reservations']): void;
  backoff(): void;
  /** Counts a request an adapter kept from being sent, by the stage that refused it. */
  skip(stage: SkipStage): void;
  /** Counts a response whose TDMRep header or meta tag reserved TDM rights (its content withheld). */
  tdmAfterResponse(): void;
  /** A copy of every counter, with the caches'. */
  snapshot(cache: RobotsCacheStats, tdmrep?: TdmRepCacheStats): PolitenessStats;
}

export function createFacadeCounters(): FacadeCounters {
  const decisions = {
    allowed: 0,
    disallowed: 0,
    unreachable: 0,
    crawlDelayTooLong: 0,
    rateLimited: 0,
    usageRefused: 0,
    tdmReserved: 0,
  };
  let tdmResponses = 0;
  const reservations = { immediate: 0, waited: 0, deferred: 0, tooLong: 0 };
  let backoffs = 0;
  const skipped = {
    enqueue: 0,
    dequeue: 0,
    send: 0,
    redirect: 0,
    navigation: 0,
    subresource: 0,
    response: 0,
  } satisfies Record<SkipStage, number>;
  const decisionKey = {
    allowed: 'allowed',
    disallowed: 'disallowed',
    unreachable: 'unreachable',
    'crawl-delay-too-long': 'crawlDelayTooLong',
    'rate-limited': 'rateLimited',
    'usage-refused': 'usageRefused',
    'tdm-reserved': 'tdmReserved',
  } as const satisfies Record<Decision['reason'], keyof typeof decisions>;
  return {
    decision(decision) {
      decisions[decisionKey[decision.reason]]++;
    },
    reservation(outcome) {
      reservations[outcome]++;
    },
    backoff() {
      backoffs++;
    },
    skip(stage) {
      skipped[stage]++;
    },
    tdmAfterResponse() {
      tdmResponses++;
    },
    snapshot(cache, tdmrep) {
      return {
        decisions: { ...decisions },
        reservations: { ...reservations },
        backoffs,
        skipped: { ...skipped },
        robotsFetches: { ...cache.fetches },
        cache: {
          memoryHits: cache.memoryHits,
          storeHits: cache.storeHits,
          misses: cache.misses,
          storeErrors: cache.storeErrors,
          storeRejects: cache.storeRejects,
        },
        tdmrep: {
          fetches: { ok: 0, absent: 0, malformed: 0, unreachable: 0, ...tdmrep?.fetches },
          reservedAfterResponse: tdmResponses,
        },
      };
    },
  };
}

/** A robots.txt cache that has done nothing yet. */
const NO_CACHE_ACTIVITY: RobotsCacheStats = {
  memoryHits: 0,
  storeHits: 0,
  misses: 0,
  storeErrors: 0,
  storeRejects: 0,
  fetches: { ok: 0, unavailable: 0, unreachable: 0, notModified: 0 },
};

/**
 * Every counter at 0, as a Politeness that has done nothing reports them: for a stand-in Politeness
 * (an adapter's test double) that must answer `stats()`. Made by the facade's own counters, so a
 * counter added there is in it too.
 */
export function emptyStats(): PolitenessStats {
  return createFacadeCounters().snapshot(NO_CACHE_ACTIVITY);
}
