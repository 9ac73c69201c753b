/**
 * Requests in flight per host: at most `limit` of them between the moment a caller takes a lease
 * (before its pacing slot) and the end of its response body, or its failure. The cap Scrapy
 * (`CONCURRENT_REQUESTS_PER_DOMAIN`) and Nutch (`fetcher.threads.per.queue`) put on a host, on top of
 * start spacing, never instead of it. This file is the in-process part: a counter and a queue per
 * host. The Redis scheduler adds a fleet-wide lease on top of it (redis-in-flight.ts).
 */
import { WaitTooLongError } from '../kernel/errors.js';
import { shown } from '../kernel/shown.js';
import {
  type Clock,
  checkHost,
  checkWaitOptions,
  type InFlightLease,
  type InFlightOptions,
} from './types.js';

// The lease contract is the scheduler's (types.ts); re-exported for the files that build on this one.
export type { InFlightLease, InFlightOptions };

export interface InFlightLimiter {
  /** Resolves with a lease once fewer than `limit` requests to `host` are in flight. */
  acquire(host: string, limit: number, options?: InFlightOptions): Promise<InFlightLease>;
  /**
   * A lease taken in this synchronous step when a place is free (nobody queued), else undefined and
   * nothing taken, so a request to a host with room pays no promise, signal or timer for its place.
   * Optional: a limiter that must ask elsewhere (Redis) has none.
   */
  tryAcquire?(host: string, limit: number): InFlightLease | undefined;
}

export interface LocalInFlight extends InFlightLimiter {
  tryAcquire(host: string, limit: number): InFlightLease | undefined;
  /** Leases held in this process for `host` (0 for an unknown host). */
  held(host: string): number;
}

interface Waiter {
  readonly grant: () => void;
}

interface HostCount {
  held: number;
  readonly queue: Waiter[];
}

/** A lease that needs nothing released (no limit). */
export const NO_LEASE: InFlightLease = Object.freeze({ release() {} });

export function checkLimit(limit: unknown): number {
  if (
    limit === Number.POSITIVE_INFINITY ||
    (typeof limit === 'number' && Number.isInteger(limit) && limit >= 1)
  )
    return limit;
  throw new TypeError(`Expected \`maxConcurrentPerHost\` to be an integer >= 1, got ${shown(limit)}`);
}

/**
 * Counts leases per host in this process. Waiters are served first come, first served; a host with
 * nothing held and nobody waiting is forgotten at once, so the map only holds busy hosts.
 */
export function createLocalInFlight(clock: Clock): LocalInFlight {
  const hosts = new Map<string, HostCount>();

  const leaseFor = (host: string, count: HostCount): InFlightLease => {
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        // The place goes straight to the next waiter (never back to the pool first), so a caller
        // arriving now cannot take it ahead of one that has waited.
        const next = count.queue.shift();
        if (next) next.grant();
        else if (--count.held === 0) hosts.delete(host);
      },
    };
  };

  /** A free place taken now, or undefined (the host's count is made only when a place is taken). */
  const takeFree = (host: string, limit: number): InFlightLease | undefined => {
    if (limit === Number.POSITIVE_INFINITY) return NO_LEASE;
    const count = hosts.get(host);
    if (count === undefined) {
      const fresh: HostCount = { held: 1, queue: [] };
      hosts.set(host, fresh);
      return leaseFor(host, fresh);
    }
    if (count.held < limit && count.queue.length === 0) {
      count.held++;
      return leaseFor(host, count);
    }
    return undefined;
  };

  return {
    held: (host) => hosts.get(host)?.held ?? 0,

    tryAcquire(host, limit) {
      checkHost(host);
      checkLimit(limit);
      return takeFree(host, limit);
    },

    async acquire(host, limit, options = {}) {
      checkHost(host);
      checkLimit(limit);
      checkWaitOptions(options);
      const { signal, maxWaitMs } = options;
      signal?.throwIfAborted();
      const free = takeFree(host, limit);
      if (free) return free;
      // No place free: the host is counted (takeFree made its count if it had none).
      const count = hosts.get(host) as HostCount;
      if (maxWaitMs === 0) {
        if (count.held === 0 && count.queue.length === 0) hosts.delete(host);
        throw new WaitTooLongError(host, 0, 0);
      }
      return new Promise<InFlightLease>((resolve, reject) => {
        const stopTimer = new AbortController();
        const waiter: Waiter = {
          grant: () => {
            settle();
            resolve(leaseFor(host, count));
          },
        };
        const giveUp = (error: unknown) => {
          const index = count.queue.indexOf(waiter);
          if (index < 0) return; // granted meanwhile: the lease is already on its way
          count.queue.splice(index, 1);
          settle();
          reject(error);
        };
        const onAbort = () => giveUp(signal?.reason);
        const settle = () => {
          stopTimer.abort();
          signal?.removeEventListener('abort', onAbort);
        };
        count.queue.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (maxWaitMs !== undefined && maxWaitMs !== Number.POSITIVE_INFINITY) {
          clock.sleep(maxWaitMs, stopTimer.signal).then(
            () => giveUp(new WaitTooLongError(host, maxWaitMs, maxWaitMs)),
            () => {},
          );
        }
      });
    },
  };
}
