/**
 * The scheduler contract: per-host start-to-start spacing. Times are epoch milliseconds on the local
 * clock (a Redis backend converts from the server clock so processes never disagree about spacing).
 * And the argument checks every backend shares, so a bad host or delay fails the same way (a
 * TypeError naming the argument and echoing its value) whichever backend answers.
 */
import { shown } from '../kernel/shown.js';

/** Held while a request is in flight; `release` is idempotent and never throws. */
export interface InFlightLease {
  release(): void;
}

export interface InFlightOptions {
  readonly signal?: AbortSignal | undefined;
  /**
   * Reject with WaitTooLongError once this many ms have passed without a free place (0: only if one
   * is free now). Nothing is held after a rejection.
   */
  readonly maxWaitMs?: number | undefined;
}

export interface ReserveOptions {
  readonly signal?: AbortSignal;
  /** Reject with WaitTooLongError (nothing reserved) when the slot is further away than this. */
  readonly maxWaitMs?: number;
}

export interface Reservation {
  /** When the caller may start (epoch ms). */
  readonly startAt: number;
  /** How long the caller waited (blocking) or must wait (non-blocking), in ms. */
  readonly waitMs: number;
}

export type TryReservation =
  | { readonly ok: true; readonly startAt: number }
  | { readonly ok: false; readonly notBefore: number; readonly waitMs: number };

export interface Scheduler {
  /** Which backend answers: 'memory', 'redis', or 'memory-fallback' while Redis is away. */
  readonly kind: string;
  /**
   * Blocking: reserves the next slot for `host` and resolves when it starts. Rejects with the
   * signal's reason when aborted, or with WaitTooLongError when the slot is more than `maxWaitMs` away
   * (nothing reserved) or the wait outgrows it, or with ClosedError when closed; a slot given up before
   * it started goes back (the host's next start is where the requests that went put it, see
   * host-slots.ts giveBack).
   */
  reserve(host: string, delayMs: number, options?: ReserveOptions): Promise<Reservation>;
  /** Non-blocking: reserves a slot only if it can start now; otherwise says when to come back. */
  tryReserve(host: string, delayMs: number): Promise<TryReservation>;
  /** Pushes the host's next start to at least now + ms (429/503 Retry-After), for every caller. */
  penalize(host: string, ms: number): Promise<void>;
  /**
   * Reserves nothing: the earliest start (epoch ms, local clock) a reservation for `host` could get
   * if asked now; at or before now means due. A hint for deciding what to hand out, not a promise:
   * another caller (in this process or, with Redis, the fleet) may reserve that slot first. Optional
   * so schedulers written against the first contract still fit; both built-in backends have it.
   */
  peek?(host: string): Promise<number>;
  /**
   * Waits until fewer than `limit` requests to `host` are in flight (in this process and, with Redis,
   * the fleet), and holds a place until the lease is released. Rejects with the signal's reason or
   * with WaitTooLongError (nothing held either way). Optional: a scheduler without it is capped
   * in-process by the facade.
   */
  acquireInFlight?(host: string, limit: number, options?: InFlightOptions): Promise<InFlightLease>;
  /**
   * Rejects every caller still waiting (a slot, a place in flight) with ClosedError at once, and every
   * later reserve, tryReserve and acquireInFlight; releases timers and connections the scheduler
   * opened itself (never the user's client).
   */
  close(): Promise<void>;
}

export type { Clock } from '../kernel/clock.js';

export function checkHost(host: unknown): asserts host is string {
  if (typeof host !== 'string' || host.length === 0) {
    throw new TypeError(`Expected \`host\` to be a non-empty string, got ${shown(host)}`);
  }
}

/** A duration in ms: finite and >= 0. */
export function checkDuration(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`Expected \`${name}\` to be a finite number >= 0 (ms), got ${shown(value)}`);
  }
}

/** `reserve`'s arguments, checked alike by every backend; a signal already aborted rejects at once. */
export function checkReserve(host: string, delayMs: number, options: ReserveOptions | undefined): void {
  checkHost(host);
  checkDuration('delayMs', delayMs);
  checkWaitOptions(options);
  options?.signal?.throwIfAborted();
}

/** The options of a wait (a slot: ReserveOptions; a place in flight: InFlightOptions), checked alike. */
export function checkWaitOptions(options: ReserveOptions | InFlightOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected wait \`options\` to be an object, got ${shown(options)}`);
  }
  const { maxWaitMs, signal } = options;
  if (
    maxWaitMs !== undefined &&
    (typeof maxWaitMs !== 'number' || Number.isNaN(maxWaitMs) || maxWaitMs < 0)
  ) {
    throw new TypeError(`Expected \`maxWaitMs\` to be a number >= 0 (ms), got ${shown(maxWaitMs)}`);
  }
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new TypeError(`Expected \`signal\` to be an AbortSignal, got ${shown(signal)}`);
  }
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function'
  );
}
