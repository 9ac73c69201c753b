/**
 * Requests in flight per host across the fleet: each request holds a lease in a sorted set on Redis
 * (member: the lease id, score: when it expires on the server clock). A process that dies holding
 * leases stops refreshing them, and they expire `leaseTtlMs` later; a live one refreshes its leases
 * every third of that, however long the request takes. The in-process count (in-flight.ts) is taken
 * first, so this process never holds more than the limit whatever Redis says, and it carries on alone
 * while Redis is away (the scheduler's fallback: one warning per outage).
 */
import { randomUUID } from 'node:crypto';
import { WaitTooLongError } from '../kernel/errors.js';
import {
  checkLimit,
  createLocalInFlight,
  type InFlightLease,
  type InFlightLimiter,
  type InFlightOptions,
  NO_LEASE,
} from './in-flight.js';
import type { RedisLink } from './redis-client.js';
import { LEASE_ACQUIRE_SCRIPT, LEASE_HOLD_SCRIPT, LEASE_RELEASE_SCRIPT } from './redis-script.js';

export interface RedisInFlightDeps
  extends Pick<RedisLink, 'clock' | 'keyOf' | 'callRedis' | 'ask' | 'tell' | 'onRedis'> {
  readonly leaseTtlMs: number;
  /** Longest pause between two attempts of a caller waiting for a place held elsewhere in the fleet. */
  readonly pollMs: number;
}

export interface RedisInFlight extends InFlightLimiter {
  /**
   * Writes the leases taken in-process during an outage to Redis (whatever the limit: those requests
   * are in flight), so the fleet counts them once Redis is back. False when Redis failed again.
   */
  handOver(): Promise<boolean>;
  /**
   * Stops the refresh timers and releases every lease still held on Redis (the call's close() waits
   * for the releases): nothing will be sent through this scheduler any more, and a lease a request
   * gives back a tick after its last response (got's hop ends after the response) could no longer be
   * released once the client is closed, and would hold the fleet back until it expired. A release
   * after this one is local only.
   */
  close(): void;
}

interface HeldLease {
  readonly host: string;
  readonly id: string;
  /** Whether Redis knows of this lease (false: taken during an outage, not handed over yet). */
  onRedis: boolean;
  timer: ReturnType<typeof setInterval> | undefined;
}

export function createRedisInFlight(deps: RedisInFlightDeps): RedisInFlight {
  const { clock, keyOf, callRedis, ask, tell, onRedis, leaseTtlMs, pollMs } = deps;
  const local = createLocalInFlight(clock);
  const held = new Set<HeldLease>();
  // Callers waiting for a place held elsewhere, woken early when this process frees one.
  const waking = new Map<string, Set<() => void>>();
  const setOf = (host: string) => `${keyOf(host)}:in-flight`;

  const wake = (host: string) => {
    const wakers = waking.get(host);
    if (!wakers) return;
    waking.delete(host);
    for (const wakeUp of wakers) wakeUp();
  };

  /** Sleeps up to `ms`, or less when this process frees a place for `host`. */
  const pause = async (host: string, ms: number, signal: AbortSignal | undefined) => {
    const early = new AbortController();
    const wakeUp = () => early.abort();
    let wakers = waking.get(host);
    if (!wakers) {
      wakers = new Set();
      waking.set(host, wakers);
    }
    wakers.add(wakeUp);
    const onAbort = () => early.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await clock.sleep(ms, early.signal).catch(() => {});
    } finally {
      signal?.removeEventListener('abort', onAbort);
      wakers.delete(wakeUp);
      if (wakers.size === 0 && waking.get(host) === wakers) waking.delete(host);
    }
    signal?.throwIfAborted();
  };

  const keepAlive = (lease: HeldLease) => {
    lease.timer = setInterval(
      () => {
        if (onRedis()) void tell(LEASE_HOLD_SCRIPT, [setOf(lease.host)], [lease.id, String(leaseTtlMs)]);
      },
      Math.max(1, Math.floor(leaseTtlMs / 3)),
    );
    // A refresh is no reason to keep a finished crawler's process alive.
    (lease.timer as { unref?: () => void }).unref?.();
  };

  const leaseOf = (lease: HeldLease, localLease: InFlightLease): InFlightLease => {
    held.add(lease);
    if (lease.onRedis) keepAlive(lease);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        held.delete(lease);
        clearInterval(lease.timer);
        localLease.release();
        if (!lease.onRedis) return;
        void tell(LEASE_RELEASE_SCRIPT, [setOf(lease.host)], [lease.id]).then(() => wake(lease.host));
      },
    };
  };

  /**
   * Tries for a place on Redis until one is free, the deadline passes or the signal aborts. Returns
   * false when Redis failed (the caller then goes by the in-process count alone).
   */
  const takeOnRedis = async (
    host: string,
    id: string,
    limit: number,
    signal: AbortSignal | undefined,
    deadline: number,
    maxWaitMs: number,
  ): Promise<boolean> => {
    for (;;) {
      if (!onRedis()) return false;
      const args = [String(limit), id, String(leaseTtlMs)];
      const reply = await ask(LEASE_ACQUIRE_SCRIPT, [setOf(host)], args, readAcquireReply, 'lease');
      if (reply === undefined) return false;
      if (signal?.aborted) {
        // The reply raced the abort: a lease taken for nobody is given back at once.
        if (reply.taken) void callRedis(LEASE_RELEASE_SCRIPT, [setOf(host)], [id]);
        signal.throwIfAborted();
      }
      if (reply.taken) return true;
      const now = clock.now();
      if (now >= deadline) throw new WaitTooLongError(host, reply.expiresInMs, maxWaitMs);
      await pause(host, Math.min(pollMs, Math.max(1, reply.expiresInMs), deadline - now), signal);
    }
  };

  return {
    async acquire(host: string, limit: number, options: InFlightOptions = {}): Promise<InFlightLease> {
      checkLimit(limit);
      if (limit === Number.POSITIVE_INFINITY) return NO_LEASE;
      const { signal } = options;
      const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
      const calledAt = clock.now();
      const localLease = await local.acquire(host, limit, options);
      const lease: HeldLease = { host, id: randomUUID(), onRedis: false, timer: undefined };
      try {
        const left = Math.max(0, maxWaitMs - (clock.now() - calledAt));
        lease.onRedis = await takeOnRedis(host, lease.id, limit, signal, clock.now() + left, maxWaitMs);
      } catch (error) {
        localLease.release();
        throw error;
      }
      return leaseOf(lease, localLease);
    },

    async handOver() {
      for (const lease of held) {
        if (lease.onRedis) continue;
        const outcome = await callRedis(
          LEASE_HOLD_SCRIPT,
          [setOf(lease.host)],
          [lease.id, String(leaseTtlMs)],
        );
        if (!outcome.ok) return false;
        // Released while the hand-over ran: take it back off Redis too.
        if (!held.has(lease)) {
          void callRedis(LEASE_RELEASE_SCRIPT, [setOf(lease.host)], [lease.id]);
          continue;
        }
        lease.onRedis = true;
        keepAlive(lease);
      }
      return true;
    },

    close() {
      for (const lease of held) {
        clearInterval(lease.timer);
        if (lease.onRedis) void callRedis(LEASE_RELEASE_SCRIPT, [setOf(lease.host)], [lease.id]);
        lease.onRedis = false;
      }
    },
  };
}

function readAcquireReply(value: unknown): { taken: boolean; expiresInMs: number } | undefined {
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [flag, wait] = value.map(Number);
  if ((flag !== 0 && flag !== 1) || wait === undefined || !Number.isFinite(wait)) return undefined;
  return { taken: flag === 1, expiresInMs: Math.max(0, wait) };
}
