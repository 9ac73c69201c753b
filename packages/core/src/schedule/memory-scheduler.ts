/**
 * In-process pacing: one next-start time per host, start-to-start spacing, hosts independent of each
 * other. Also the fallback the Redis scheduler uses while Redis is away.
 */
import { WaitTooLongError } from '../errors.js';
import { checkDuration, checkHost, checkReserveOptions, describeValue } from './arguments.js';
import { systemClock } from './clock.js';
import type { Clock, Reservation, ReserveOptions, Scheduler, TryReservation } from './types.js';

export interface MemorySchedulerOptions {
  /** Injected clock (tests). Default: the system clock. */
  readonly clock?: Clock;
}

export interface MemoryScheduler extends Scheduler {
  readonly kind: 'memory';
  peek(host: string): Promise<number>;
  /** Hosts currently tracked (those with a start in the future, plus any not yet swept). */
  readonly size: number;
  /** Hosts whose next start is still ahead of `now`, with that time (epoch ms). */
  upcomingStarts(): Array<{ readonly host: string; readonly notBefore: number }>;
}

interface HostSlot {
  /** The next start handed out for this host. */
  next: number;
  /** When the last reservation actually started, and the gap it asked for after itself. */
  lastStart: number;
  lastDelay: number;
  /** A backoff (penalize) that also holds callers already waiting. */
  holdUntil: number;
  /** Callers sleeping on this slot; a slot with sleepers is never swept, however late they wake. */
  sleepers: number;
}

/** Below this many hosts the map is never swept; above it, a sweep runs each time the size doubles. */
const MIN_SWEEP_SIZE = 1024;

export function createMemoryScheduler(options: MemorySchedulerOptions = {}): MemoryScheduler {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected memory scheduler options to be an object, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (key !== 'clock') throw new TypeError(`Unknown memory scheduler option \`${key}\``);
  }
  const clock = options.clock ?? systemClock;
  const slots = new Map<string, HostSlot>();
  let sweepAt = MIN_SWEEP_SIZE;

  // A slot is needed only while something about it is still in the future.
  const notBefore = (slot: HostSlot) => Math.max(slot.next, slot.lastStart + slot.lastDelay, slot.holdUntil);
  // What a caller who already holds a slot must still respect when it wakes.
  const freeAt = (slot: HostSlot) => Math.max(slot.lastStart + slot.lastDelay, slot.holdUntil);

  const slotFor = (host: string, now: number): HostSlot => {
    let slot = slots.get(host);
    if (slot === undefined) {
      if (slots.size >= sweepAt) {
        for (const [key, candidate] of slots) {
          if (candidate.sleepers === 0 && notBefore(candidate) <= now) slots.delete(key);
        }
        sweepAt = Math.max(MIN_SWEEP_SIZE, slots.size * 2);
      }
      slot = { next: now, lastStart: Number.NEGATIVE_INFINITY, lastDelay: 0, holdUntil: now, sleepers: 0 };
      slots.set(host, slot);
    }
    return slot;
  };

  const markStarted = (slot: HostSlot, now: number, delayMs: number) => {
    slot.lastStart = now;
    slot.lastDelay = delayMs;
  };

  return {
    kind: 'memory',
    get size() {
      return slots.size;
    },

    async reserve(host: string, delayMs: number, reserveOptions?: ReserveOptions): Promise<Reservation> {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      checkReserveOptions(reserveOptions);
      const signal = reserveOptions?.signal;
      signal?.throwIfAborted();
      const calledAt = clock.now();
      const slot = slotFor(host, calledAt);
      const start = Math.max(calledAt, notBefore(slot));
      const waitMs = start - calledAt;
      const maxWaitMs = reserveOptions?.maxWaitMs;
      if (maxWaitMs !== undefined && waitMs > maxWaitMs) throw new WaitTooLongError(host, waitMs, maxWaitMs);
      slot.next = start + delayMs;
      slot.sleepers++;
      let now: number;
      try {
        if (waitMs > 0) await clock.sleep(waitMs, signal);
        // A busy event loop can wake the previous caller late, and a backoff may have come in while
        // waiting: spacing is kept from when the previous caller really started.
        now = clock.now();
        while (now < freeAt(slot)) {
          await clock.sleep(freeAt(slot) - now, signal);
          now = clock.now();
        }
      } finally {
        slot.sleepers--;
      }
      markStarted(slot, now, delayMs);
      return { startAt: now, waitMs: now - calledAt };
    },

    async tryReserve(host: string, delayMs: number): Promise<TryReservation> {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      const now = clock.now();
      const slot = slotFor(host, now);
      const due = notBefore(slot);
      if (due > now) return { ok: false, notBefore: due, waitMs: due - now };
      slot.next = now + delayMs;
      markStarted(slot, now, delayMs);
      return { ok: true, startAt: now };
    },

    async penalize(host: string, ms: number): Promise<void> {
      checkHost(host);
      checkDuration('ms', ms);
      const now = clock.now();
      const slot = slotFor(host, now);
      slot.next = Math.max(slot.next, now + ms);
      slot.holdUntil = Math.max(slot.holdUntil, now + ms);
    },

    async peek(host: string): Promise<number> {
      checkHost(host);
      const slot = slots.get(host);
      // Read only: an unknown host is not added, so peeking never grows the map.
      return slot === undefined ? clock.now() : notBefore(slot);
    },

    upcomingStarts() {
      const now = clock.now();
      const upcoming: Array<{ host: string; notBefore: number }> = [];
      for (const [host, slot] of slots) {
        const due = notBefore(slot);
        if (due > now) upcoming.push({ host, notBefore: due });
      }
      return upcoming;
    },

    async close(): Promise<void> {
      slots.clear();
    },
  };
}
