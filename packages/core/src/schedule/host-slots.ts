/**
 * The memory scheduler's table of hosts: one slot per host with the times that decide its next
 * start, kept only while something about it is still in the future. Idle hosts are released by a
 * sweep, on a timer that never keeps the process alive and whenever the table doubles, so a broad
 * crawl (a million hosts touched once) does not keep its memory.
 */
import type { Clock } from './types.js';

export interface HostSlot {
  /** The next start handed out for this host. */
  next: number;
  /** When the last reservation actually started, and the gap it asked for after itself. */
  lastStart: number;
  lastDelay: number;
  /** A backoff (penalize) that also holds callers already waiting. */
  holdUntil: number;
  /** Callers sleeping on this slot; a slot with sleepers is never swept, however late they wake. */
  sleepers: number;
  /** Slots given back while later ones were still held: where each ended -> where it began. */
  givenBack: Map<number, number> | undefined;
  /** The latest clock reading this slot was read or changed at (followClock). */
  seen: number;
}

/**
 * The slot's times are wall-clock times. When the clock is set back (an NTP step, a test installing a
 * fake clock that starts at 0), they move back with it, so a caller waits what was left to wait when
 * the slot was last seen, not that plus the step: a slot reserved a moment before a one-hour step would
 * otherwise hold the host for an hour (or fail every request with ERR_WAIT_TOO_LONG). A clock that
 * moves forward needs nothing: the times are simply reached sooner.
 */
export function followClock(slot: HostSlot, now: number): void {
  if (now >= slot.seen) {
    slot.seen = now;
    return;
  }
  const shift = now - slot.seen;
  slot.next += shift;
  slot.lastStart += shift;
  slot.holdUntil += shift;
  if (slot.givenBack) {
    const moved = new Map<number, number>();
    for (const [end, start] of slot.givenBack) moved.set(end + shift, start + shift);
    slot.givenBack = moved;
  }
  slot.seen = now;
}

/** The earliest start a new reservation could get: a slot is needed only while this is ahead. */
export const notBefore = (slot: HostSlot) =>
  Math.max(slot.next, slot.lastStart + slot.lastDelay, slot.holdUntil);

/** What a caller who already holds a slot must still respect when it wakes. */
export const freeAt = (slot: HostSlot) => Math.max(slot.lastStart + slot.lastDelay, slot.holdUntil);

/**
 * A caller gave up the slot [start, stop) it had been handed (aborted, timed out, closed) before it
 * started. Slots form a chain, each starting no sooner than the one before it plus that one's delay.
 * Only the last slot handed out moves the host's next start back (to where that slot began, which is
 * still at least a delay after the slot before it): a slot in the middle cannot, because callers after
 * it are already asleep until their own starts, and pulling the next start back under them would let
 * a new caller land closer than a delay to one of them. Re-packing those sleepers earlier instead
 * would mean waking and re-timing callers in other processes (with Redis), for slots that most often
 * go together anyway (a batch timing out at once gives its slots back last to first or any order).
 * So a slot given back in the middle is remembered, and when every slot after it has been given back
 * too, the chain unwinds past it: 28 of 30 waiters giving up leave the next start where the two that
 * went put it. Redis runs the same rule in CANCEL_SCRIPT (redis-script.ts).
 */
export function giveBack(slot: HostSlot, start: number, stop: number, now: number): void {
  if (stop <= start) return;
  if (slot.givenBack) {
    // A slot that has ended by now moves nothing back (the next start cannot be before now anyway).
    for (const end of slot.givenBack.keys()) if (end <= now) slot.givenBack.delete(end);
  }
  if (slot.next !== stop) {
    if (stop > now) {
      slot.givenBack ??= new Map();
      slot.givenBack.set(stop, start);
    }
    return;
  }
  let next = start;
  for (let before = slot.givenBack?.get(next); before !== undefined; before = slot.givenBack?.get(next)) {
    slot.givenBack?.delete(next);
    next = before;
  }
  if (slot.givenBack?.size === 0) slot.givenBack = undefined;
  slot.next = next;
}

/** A slot nobody waits on and with nothing in the future says nothing a new slot would not. */
const idle = (slot: HostSlot, now: number) => slot.sleepers === 0 && notBefore(slot) <= now;

/** Below this many hosts the map is never swept on insert; above it, a sweep runs each time the size doubles. */
const MIN_SWEEP_SIZE = 1024;

export interface HostSlots {
  readonly size: number;
  /** The host's slot, made (free now) when the host is not tracked. */
  slotFor(host: string, now: number): HostSlot;
  /** The host's slot if tracked; never adds one (peeking must not grow the table). */
  get(host: string): HostSlot | undefined;
  entries(): IterableIterator<[string, HostSlot]>;
  /** Releases idle hosts; returns how many. */
  sweep(now: number): number;
  clear(): void;
}

export function createHostSlots(clock: Clock, sweepEveryMs: number): HostSlots {
  let slots = new Map<string, HostSlot>();
  let sweepAt = MIN_SWEEP_SIZE;
  let timer: ReturnType<typeof setInterval> | undefined;

  /**
   * Keeps the slots still in use in a new map: a Map emptied by deletes keeps its grown table, so
   * after a million hosts the memory comes back only with a new one.
   */
  const sweep = (now: number): number => {
    const before = slots.size;
    const kept = new Map<string, HostSlot>();
    for (const [key, slot] of slots) if (!idle(slot, now)) kept.set(key, slot);
    slots = kept;
    sweepAt = Math.max(MIN_SWEEP_SIZE, slots.size * 2);
    if (slots.size === 0) stopTimer();
    return before - slots.size;
  };

  const startTimer = () => {
    if (timer !== undefined) return;
    timer = setInterval(() => sweep(clock.now()), sweepEveryMs);
    // Releasing memory is no reason to keep a finished crawler's process alive.
    timer.unref?.();
  };
  function stopTimer(): void {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  }

  return {
    get size() {
      return slots.size;
    },
    slotFor(host, now) {
      let slot = slots.get(host);
      if (slot === undefined) {
        if (slots.size >= sweepAt) sweep(now);
        slot = {
          next: now,
          lastStart: Number.NEGATIVE_INFINITY,
          lastDelay: 0,
          holdUntil: now,
          sleepers: 0,
          givenBack: undefined,
          seen: now,
        };
        slots.set(host, slot);
        startTimer();
      }
      followClock(slot, now);
      return slot;
    },
    get(host) {
      const slot = slots.get(host);
      if (slot !== undefined) followClock(slot, clock.now());
      return slot;
    },
    entries: () => slots.entries(),
    sweep,
    clear() {
      stopTimer();
      slots.clear();
    },
  };
}
