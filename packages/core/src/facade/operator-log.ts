/**
 * What a crawler operator must see in the logs, read off the event stream: store trouble (once per
 * instance, it can repeat on every lookup), the Redis scheduler leaving and coming back, a shared
 * store that is not Redis (what it shares and what not), and a User-Agent that does not identify the
 * crawler. Everything else is for listeners, not for logs.
 */
import type { PolitelyEvent } from '../kernel/events.js';
import type { Logger } from './types.js';

/** A function to hand every event to; it logs the few an operator must see. */
export function operatorLog(logger: Logger | false): (event: PolitelyEvent) => void {
  if (!logger) return () => {};
  const warned = new Set<string>();
  return (event) => {
    if (event.type === 'store-error' && !warned.has('store')) {
      warned.add('store');
      logger.warn('robots.txt store failed; falling back to fetching (reported once)', {
        operation: event.operation,
        error: String(event.error),
      });
    } else if (event.type === 'scheduler-fallback') {
      logger.warn('Redis scheduler unavailable; pacing falls back to this process until it is back', {
        error: String(event.error),
      });
    } else if (event.type === 'store-sharing') {
      logger.warn(event.message, { shared: event.shared, perProcess: event.perProcess });
    } else if (event.type === 'identification-warning') {
      logger.warn(event.message, { problem: event.problem });
    } else if (event.type === 'scheduler-recovered') {
      logger.info?.('Redis scheduler is back; pacing is fleet-wide again');
    }
  };
}
