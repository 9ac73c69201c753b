/**
 * What a crawler operator must see in the logs, read off the event stream: store trouble (once per
 * kind of record, it can repeat on every lookup, naming what failed and what follows), a store slower
 * than the pace's write-ahead allows, the Redis scheduler leaving and coming back, a shared store that
 * is not Redis (what it shares and what not), a User-Agent that does not identify the crawler, and,
 * once per host, a stored pace ahead of what this crawler could have written and rate-limit headers
 * asking for more than maxRateLimitDelayMs between requests (a crawl held that long must not be
 * silent). Everything else is for listeners, not for logs.
 */
import { LRUCache } from 'lru-cache';
import { PACE_KEY_PREFIX } from '../cache/persisted-pace.js';
import { TDMREP_KEY_PREFIX } from '../cache/tdmrep-cache.js';
import type { PolitelyEvent } from '../kernel/events.js';
import type { Logger } from './types.js';

/** What a store key holds, and what its store's failure means. */
function recordsOf(key: string): { readonly what: string; readonly meaning: string } {
  if (key.startsWith(PACE_KEY_PREFIX))
    return { what: 'pace records', meaning: "each host's pace is kept in process memory only" };
  if (key.startsWith(TDMREP_KEY_PREFIX))
    return { what: 'tdmrep.json records', meaning: 'tdmrep.json is fetched instead' };
  return { what: 'robots.txt records', meaning: 'robots.txt is fetched instead' };
}
const VERBS = { get: 'reading', set: 'writing', delete: 'deleting' } as const;

/** A function to hand every event to; it logs the few an operator must see. */
export function operatorLog(logger: Logger | false): (event: PolitelyEvent) => void {
  if (!logger) return () => {};
  const warned = new Set<string>();
  // Hosts already warned about (a rate limit, a pace record); bounded, so a crawl of millions of hosts cannot grow it.
  const hostsWarned = new LRUCache<string, true>({ max: 10_000 });
  const firstTime = (key: string) => {
    if (hostsWarned.has(key)) return false;
    hostsWarned.set(key, true);
    return true;
  };
  return (event) => {
    if (event.type === 'store-error') {
      const { what, meaning } = recordsOf(event.key);
      if (warned.has(what)) return;
      warned.add(what);
      logger.warn(`store failed ${VERBS[event.operation]} ${what}; ${meaning} (reported once)`, {
        key: event.key,
        error: String(event.error),
      });
    } else if (event.type === 'store-slow' && !warned.has('slow')) {
      warned.add('slow');
      logger.warn(
        `store took ${Math.round(event.latencyMs)} ms to write pace records, more than the ${event.marginMs} ms margin (pacing.persistPace): a request due at once waits that long for its record (reported once)`,
      );
    } else if (event.type === 'pace-record-ahead' && firstTime(`pace ${event.host}`)) {
      logger.warn(
        `${event.host}: its stored pace record holds it ${Math.round(event.aheadMs)} ms from now, further than this crawler's options allow; trusted for ${event.trustedMs} ms (a clock that jumped, or a record not written by this crawler; reported once per host)`,
      );
    } else if (event.type === 'scheduler-fallback') {
      const kept = {
        all: 'this process paces every host',
        owned: "this process paces the hosts it owns; the others' requests wait",
        none: 'requests wait',
      }[event.share ?? 'all'];
      logger.warn(`Redis scheduler unavailable; until it is back ${kept}`, {
        error: String(event.error),
        ...(event.members !== undefined ? { members: event.members } : {}),
      });
    } else if (event.type === 'tdmrep-malformed') {
      logger.warn(
        `${event.url} is malformed (${event.error}); TDMRep reservations of ${event.origin} are unset until it is fetched again`,
        {
          origin: event.origin,
        },
      );
    } else if (event.type === 'tdmrep-truncated') {
      logger.warn(
        `${event.url} holds ${event.rules} rules, more than its share of memory.budgetBytes: the first ${event.kept} are used`,
        { origin: event.origin },
      );
    } else if (event.type === 'store-sharing') {
      logger.warn(event.message, { shared: event.shared, perProcess: event.perProcess });
    } else if (event.type === 'identification-warning') {
      logger.warn(event.message, { problem: event.problem });
    } else if (event.type === 'rate-limit-above-max' && firstTime(`rate ${event.host}`)) {
      const what = {
        wait: 'its requests wait as asked',
        skip: 'its requests are skipped',
        fail: 'its requests fail (WaitTooLongError)',
      }[event.action];
      logger.warn(
        `${event.host}: rate-limit headers ask for ${event.spacingMs} ms between requests, above maxRateLimitDelayMs (${event.maxRateLimitDelayMs} ms); until ${new Date(event.untilMs).toISOString()} ${what} (rateLimitAboveMax: '${event.action}'; reported once per host)`,
        {
          host: event.host,
          spacingMs: event.spacingMs,
          untilMs: event.untilMs,
          action: event.action,
          ...(event.rateLimit ? { rateLimit: event.rateLimit } : {}),
        },
      );
    } else if (event.type === 'in-flight-shared' && firstTime(`shared ${event.host}`)) {
      logger.warn(
        `${event.host}: a request waited for a place in flight and shares the place of one that made no progress for ${Math.round(event.stalledMs)} ms (a request that depends on another to the same host, or a host slower than that); maxConcurrentPerHost is exceeded by one per stalled request (reported once per host)`,
        { host: event.host, url: event.url },
      );
    } else if (event.type === 'scheduler-recovered') {
      logger.info?.('Redis scheduler is back; pacing is fleet-wide again');
    }
  };
}
