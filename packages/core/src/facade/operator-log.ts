/**
 * What a crawler operator must see in the logs, read off the event stream: store trouble (once per
 * instance, it can repeat on every lookup), the Redis scheduler leaving and coming back, a shared
 * store that is not Redis (what it shares and what not), a User-Agent that does not identify the
 * crawler, and a host whose rate-limit headers ask for more than maxRateLimitDelayMs between requests
 * (once per host: a limit that held a crawl 10 minutes per page used to say nothing at all). Everything
 * else is for listeners, not for logs.
 */
import { LRUCache } from 'lru-cache';
import type { PolitelyEvent } from '../kernel/events.js';
import type { Logger } from './types.js';

/** A function to hand every event to; it logs the few an operator must see. */
export function operatorLog(logger: Logger | false): (event: PolitelyEvent) => void {
  if (!logger) return () => {};
  const warned = new Set<string>();
  // Hosts already warned about their rate limit; bounded, so a crawl of millions of hosts cannot grow it.
  const limitedHosts = new LRUCache<string, true>({ max: 10_000 });
  return (event) => {
    if (event.type === 'store-error' && !warned.has('store')) {
      warned.add('store');
      logger.warn('robots.txt store failed; falling back to fetching (reported once)', {
        operation: event.operation,
        error: String(event.error),
      });
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
    } else if (event.type === 'store-sharing') {
      logger.warn(event.message, { shared: event.shared, perProcess: event.perProcess });
    } else if (event.type === 'identification-warning') {
      logger.warn(event.message, { problem: event.problem });
    } else if (event.type === 'rate-limit-above-max' && !limitedHosts.has(event.host)) {
      limitedHosts.set(event.host, true);
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
    } else if (event.type === 'scheduler-recovered') {
      logger.info?.('Redis scheduler is back; pacing is fleet-wide again');
    }
  };
}
