/**
 * In-process pacing: one next-start time per host, start-to-start spacing, hosts independent of each
 * other. Also the fallback the Redis scheduler uses while Redis is away.
 */

import { systemClock } from '../kernel/clock.js';
import { WaitTooLongError } from '../kernel/errors.js';
import { checkOptions, clockOption, numberOption, type OptionTable } from '../kernel/option-table.js';
import { createClosing } from './closing.js';
import { createHostSlots, followClock, freeAt, giveBack, type HostSlot, notBefore } from './host-slots.js';
import { createLocalInFlight, type InFlightLease, type InFlightLimiter } from './in-flight.js';
import type { Clock, Reservation, ReserveOptions, Scheduler, TryReservation } from './types.js';
import { checkDuration, checkHost, checkReserve, checkWaitOptions } from './types.js';

export interface MemorySchedulerOptions {
  /** Injected clock (tests). Default: the system clock. */
  readonly clock?: Clock;
  /**
   * How often hosts that have gone idle (nothing about them in the future, nobody waiting) are
   * released, in ms; the timer never keeps the process alive. Default 30000: a host is forgotten within
   * a minute of going idle, whatever the traffic (1,000,000 hosts touched once: 200 MB otherwise).
   */
  readonly sweepEveryMs?: number;
}

export interface MemoryScheduler extends Scheduler {
  readonly kind: 'memory';
  acquireInFlight: InFlightLimiter['acquire'];
  /**
   * A place in flight taken in this synchronous step when `host` has one free, else undefined and
   * nothing taken (then `acquireInFlight` waits for one). Undefined once closed.
   */
  tryAcquireInFlight(host: string, limit: number): InFlightLease | undefined;
  /**
   * The slot for `host` started in this synchronous step when the host is due and free now (as
   * `reserve` would grant it without a wait), else undefined and nothing reserved (then `reserve`
   * waits for it). Undefined once closed.
   */
  reserveNow(host: string, delayMs: number): Reservation | undefined;
  peek(host: string): Promise<number>;
  /** Hosts currently tracked (those with a start in the future, plus any not yet swept). */
  readonly size: number;
  /** Hosts whose next start is still ahead of `now`, with that time (epoch ms). */
  upcomingStarts(): Array<{ readonly host: string; readonly notBefore: number }>;
  /** Releases idle hosts now (the timer does it every sweepEveryMs); returns how many were released. */
  sweep(): number;
}

/**
 * What the Redis scheduler needs of its in-process mirror, so that one pace per host holds in this
 * process whatever Redis does: every Redis reservation is noted here, and every start, whichever
 * backend granted it, passes the same gate (the last real start plus its delay, and any backoff).
 */
export interface LocalPace extends MemoryScheduler {
  /**
   * A slot was handed out elsewhere (by Redis) up to `nextAt`: slots handed out here come after it.
   * Returns what the note added, [the host's next start before it, after it), for `giveBack`.
   */
  grant(host: string, nextAt: number): { readonly start: number; readonly stop: number };
  /** The note [start, stop) `grant` returned was given up before its slot started (see giveBack). */
  giveBack(host: string, start: number, stop: number): void;
  /** The earliest moment this process may start on `host` by what really happened (no slot reserved). */
  freeAt(host: string): number;
  /**
   * Waits until this process may start on `host` (its last start plus that start's delay, and any
   * backoff), then records the start and returns its time. WaitTooLongError when that is later than
   * `deadline`; the signal's reason when aborted.
   */
  startWhenFree(
    host: string,
    delayMs: number,
    options: {
      readonly signal?: AbortSignal | undefined;
      readonly deadline: number;
      readonly maxWaitMs: number;
    },
  ): Promise<number>;
}

export const DEFAULT_SWEEP_EVERY_MS = 30_000;

export function createMemoryScheduler(options: MemorySchedulerOptions = {}): MemoryScheduler {
  return createLocalPace(options);
}

const OPTIONS = {
  clock: clockOption({ default: systemClock }),
  sweepEveryMs: numberOption({ min: 1, default: DEFAULT_SWEEP_EVERY_MS }),
} as const satisfies OptionTable<MemorySchedulerOptions>;

/** The memory scheduler with the hooks the Redis scheduler mirrors into (see LocalPace). */
export function createLocalPace(options: MemorySchedulerOptions = {}): LocalPace {
  const { clock, sweepEveryMs } = checkOptions('memory scheduler', OPTIONS, options);
  const slots = createHostSlots(clock, sweepEveryMs);
  const slotFor = (host: string, now: number) => slots.slotFor(host, now);
  const inFlight = createLocalInFlight(clock);
  const closing = createClosing('scheduler');

  const markStarted = (slot: HostSlot, now: number, delayMs: number) => {
    slot.lastStart = now;
    slot.lastDelay = delayMs;
  };

  /** Starts `slot` at `now` and returns now when nothing holds it; else its due time, nothing taken. */
  const startIfDue = (slot: HostSlot, now: number, delayMs: number): number => {
    const due = notBefore(slot);
    if (due > now) return due;
    slot.next = now + delayMs;
    markStarted(slot, now, delayMs);
    return now;
  };

  /**
   * Sleeps `sleepMs` (a slot's wait), then until the host is free by what really happened: a busy
   * event loop can wake the previous caller late, and a backoff or a later real send (markSent) may
   * have come in meanwhile. Never later than `deadline`. The start is recorded in the same
   * synchronous step as the check that found the host free: callers resumed by one event (a dropped
   * Redis connection rejects every pending command in one callback) run their checks in one
   * microtask batch, and a start recorded an `await` later would let each of them go together.
   */
  const startWhenFreeOn = async (
    host: string,
    slot: HostSlot,
    delayMs: number,
    outer: AbortSignal | undefined,
    deadline: number,
    maxWaitMs: number,
    sleepMs = 0,
  ): Promise<number> => {
    slot.sleepers++;
    const { signal, dispose } = closing.link(outer);
    try {
      if (sleepMs > 0) await clock.sleep(sleepMs, signal);
      let now = clock.now();
      followClock(slot, now);
      while (now < freeAt(slot)) {
        const free = freeAt(slot);
        if (free > deadline) throw new WaitTooLongError(host, free - now, maxWaitMs);
        await clock.sleep(free - now, signal);
        now = clock.now();
        followClock(slot, now);
      }
      markStarted(slot, now, delayMs);
      return now;
    } finally {
      slot.sleepers--;
      dispose();
    }
  };

  return {
    kind: 'memory',
    get size() {
      return slots.size;
    },

    async reserve(host: string, delayMs: number, reserveOptions?: ReserveOptions): Promise<Reservation> {
      checkReserve(host, delayMs, reserveOptions);
      closing.check();
      const calledAt = clock.now();
      const slot = slotFor(host, calledAt);
      const start = startIfDue(slot, calledAt, delayMs);
      if (start === calledAt) return { startAt: calledAt, waitMs: 0 };
      const waitMs = start - calledAt;
      const limit = reserveOptions?.maxWaitMs ?? Number.POSITIVE_INFINITY;
      if (waitMs > limit) throw new WaitTooLongError(host, waitMs, limit);
      const stop = start + delayMs;
      slot.next = stop;
      try {
        const { signal } = reserveOptions ?? {};
        const now = await startWhenFreeOn(host, slot, delayMs, signal, calledAt + limit, limit, waitMs);
        return { startAt: now, waitMs: now - calledAt };
      } catch (error) {
        // Aborted, timed out or closed before it started: the slot goes back (host-slots.ts giveBack).
        giveBack(slot, start, stop, clock.now());
        throw error;
      }
    },

    async tryReserve(host: string, delayMs: number): Promise<TryReservation> {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      closing.check();
      const now = clock.now();
      const due = startIfDue(slotFor(host, now), now, delayMs);
      return due > now ? { ok: false, notBefore: due, waitMs: due - now } : { ok: true, startAt: now };
    },

    async penalize(host: string, ms: number): Promise<void> {
      checkHost(host);
      checkDuration('ms', ms);
      // A response that arrives after close moves nothing: nothing will be sent to the host.
      if (closing.closed) return;
      const now = clock.now();
      const slot = slotFor(host, now);
      slot.next = Math.max(slot.next, now + ms);
      slot.holdUntil = Math.max(slot.holdUntil, now + ms);
    },

    reserveNow(host, delayMs) {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      if (closing.closed) return undefined;
      const now = clock.now();
      return startIfDue(slotFor(host, now), now, delayMs) > now ? undefined : { startAt: now, waitMs: 0 };
    },

    tryAcquireInFlight(host, limit) {
      return closing.closed ? undefined : inFlight.tryAcquire(host, limit);
    },

    async acquireInFlight(host, limit, inFlightOptions) {
      checkWaitOptions(inFlightOptions);
      // A host with a place free has nobody queued (a place goes straight to the next in line): it is
      // granted in this step, with no wait to link to close.
      if (!closing.closed && inFlight.held(host) < limit)
        return inFlight.acquire(host, limit, inFlightOptions);
      return closing.run(inFlightOptions?.signal, (signal) =>
        inFlight.acquire(host, limit, { ...inFlightOptions, signal }),
      );
    },

    async peek(host: string): Promise<number> {
      checkHost(host);
      const slot = slots.get(host);
      // Read only: an unknown host is not added, so peeking never grows the map.
      return slot === undefined ? clock.now() : notBefore(slot);
    },

    /*
     * The note runs from the host's next start as it was, not from the slot's own start on the local
     * clock: the server's slots follow each other exactly, but their local times carry each reply's
     * jitter, and a chain of notes with gaps could never unwind (host-slots.ts giveBack). 9 waiters of
     * 10 giving up while Redis went away left this process's next start 9 slots on, in memory.
     */
    grant(host: string, nextAt: number) {
      const slot = slotFor(host, clock.now());
      const start = slot.next;
      slot.next = Math.max(start, nextAt);
      return { start, stop: slot.next };
    },

    giveBack(host: string, start: number, stop: number): void {
      const slot = slots.get(host);
      if (slot !== undefined) giveBack(slot, start, stop, clock.now());
    },

    freeAt(host: string): number {
      const slot = slots.get(host);
      return slot === undefined ? Number.NEGATIVE_INFINITY : freeAt(slot);
    },

    async startWhenFree(host, delayMs, { signal, deadline, maxWaitMs }): Promise<number> {
      closing.check();
      const slot = slotFor(host, clock.now());
      const now = await startWhenFreeOn(host, slot, delayMs, signal, deadline, maxWaitMs);
      // A start later than the slots handed out so far pushes them: the next slot is spaced from it.
      slot.next = Math.max(slot.next, now + delayMs);
      return now;
    },

    upcomingStarts() {
      const now = clock.now();
      const upcoming: Array<{ host: string; notBefore: number }> = [];
      for (const [host, slot] of slots.entries()) {
        const due = notBefore(slot);
        if (due > now) upcoming.push({ host, notBefore: due });
      }
      return upcoming;
    },

    sweep() {
      return slots.sweep(clock.now());
    },

    /** Every caller still waiting (a slot, a place in flight) rejects with ClosedError, and so does any later one. */
    async close(): Promise<void> {
      closing.close();
      slots.clear();
    },
  };
}
