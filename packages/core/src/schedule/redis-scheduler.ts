/**
 * Fleet-wide pacing: every process reserves a host's next start through one atomic script on a shared
 * Redis (see redis-script.ts), so the spacing holds across machines. When Redis goes away the crawl
 * keeps going on in-process pacing (one warning event), and Redis is probed until it is back.
 */
import { raceAbort } from '../abort.js';
import { WaitTooLongError } from '../errors.js';
import type { PolitelyEvent } from '../types.js';
import { checkDuration, checkHost, checkReserveOptions } from './arguments.js';
import { createMemoryScheduler } from './memory-scheduler.js';
import { type RedisSchedulerOptions, validateRedisSchedulerOptions } from './redis-scheduler-options.js';
import {
  CONFIRM_SCRIPT,
  type LuaScript,
  PEEK_SCRIPT,
  PENALIZE_SCRIPT,
  PROBE_SCRIPT,
  RESERVE_SCRIPT,
  runScript,
  STARTED_LATE_SCRIPT,
} from './redis-script.js';
import type { Reservation, ReserveOptions, Scheduler, TryReservation } from './types.js';

export type { RedisSchedulerOptions } from './redis-scheduler-options.js';
export { DEFAULT_REDIS_PREFIX } from './redis-scheduler-options.js';

export interface RedisScheduler extends Scheduler {
  readonly kind: 'redis' | 'memory-fallback';
  peek(host: string): Promise<number>;
}

/** Keys outlive the stored next start by this much, then Redis drops them. */
const KEY_TTL_SLACK_MS = 1000;

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

interface ReserveReply {
  readonly reserved: boolean;
  readonly waitMs: number;
}

export function createRedisScheduler(options: RedisSchedulerOptions): RedisScheduler {
  const settings = validateRedisSchedulerOptions(options);
  const { redis, prefix, clock, emit, fallbackRetryMs, commandTimeoutMs, safetyMarginMs, connect } = settings;
  // Pacing while Redis is away; it also mirrors this process's Redis reservations, so the first
  // fallback starts never crowd a slot this process already took.
  const local = createMemoryScheduler({ clock });
  let mode: 'redis' | 'memory-fallback' = 'redis';
  let probeTimer: ReturnType<typeof setTimeout> | undefined;
  let connecting: Promise<unknown> | undefined;
  let closed = false;

  const keyOf = (host: string) => `${prefix}${host}`;
  // Whole-ms reads of the server clock, and of the local clock at both ends of a round trip, can hide
  // up to 3 ms; a reply quicker than what is left of the margin cannot make a start late enough to matter.
  const lateReplyMs = Math.max(0, safetyMarginMs - 3);
  const spacingOf = (delayMs: number) => (delayMs > 0 ? Math.ceil(delayMs) + safetyMarginMs : 0);

  const emitSafely = (event: PolitelyEvent) => {
    try {
      emit?.(event);
    } catch {
      // A throwing listener must not stop the crawl.
    }
  };

  const ensureConnected = async () => {
    if (connect === undefined || redis.isOpen()) return;
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    await connecting;
  };

  /** Runs a script with a deadline; never rejects. */
  const callRedis = async (script: LuaScript, keys: string[], args: string[]): Promise<Outcome<unknown>> => {
    const attempt = (async () => {
      await ensureConnected();
      return runScript(redis, script, keys, args);
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      // After an event-loop stall (a big synchronous import, a GC pause) timers run before pending
      // socket reads; setImmediate lets a reply that already arrived win, so a stall is not an outage.
      timer = setTimeout(
        () => setImmediate(() => reject(new Error(`Redis did not answer within ${commandTimeoutMs} ms`))),
        commandTimeoutMs,
      );
    });
    try {
      return { ok: true, value: await Promise.race([attempt, deadline]) };
    } catch (error) {
      attempt.catch(() => {}); // it may still settle after the deadline
      return { ok: false, error };
    } finally {
      clearTimeout(timer);
    }
  };

  const reserveOnRedis = async (host: string, delayMs: number, maxWaitMs: number | undefined) => {
    const maxWait =
      maxWaitMs === undefined || maxWaitMs === Number.POSITIVE_INFINITY ? '-1' : String(maxWaitMs);
    const outcome = await callRedis(
      RESERVE_SCRIPT,
      [keyOf(host)],
      [String(spacingOf(delayMs)), maxWait, String(KEY_TTL_SLACK_MS)],
    );
    if (!outcome.ok) return outcome;
    const reply = parseReserveReply(outcome.value);
    return reply
      ? ({ ok: true, value: reply } as const)
      : ({ ok: false, error: malformed(outcome.value) } as const);
  };

  /**
   * The server records a start when its script runs; the caller starts when the reply is read. When
   * that round trip took longer than the margin covers (a busy CPU, a slow network), the start is
   * recorded again from the server's later clock so the next caller, in any process, keeps the gap.
   */
  const reportIfLate = (host: string, delayMs: number, roundTripMs: number) => {
    if (delayMs === 0 || roundTripMs <= lateReplyMs) return;
    void callRedis(
      STARTED_LATE_SCRIPT,
      [keyOf(host)],
      [String(spacingOf(delayMs)), String(KEY_TTL_SLACK_MS)],
    );
  };

  /**
   * After waiting for its slot, a caller confirms its real start with the server, and waits more if
   * the previous caller (in any process) started late. Redis trouble here counts as started: the
   * slot was reserved and waited for, and the in-process mirror already holds it.
   */
  const confirmStart = async (host: string, delayMs: number, signal: AbortSignal | undefined) => {
    for (;;) {
      const sentAt = clock.now();
      const outcome = await raceAbort(
        callRedis(CONFIRM_SCRIPT, [keyOf(host)], [String(spacingOf(delayMs)), String(KEY_TTL_SLACK_MS)]),
        signal,
      );
      const startAt = clock.now();
      if (!outcome.ok) {
        fallBack(outcome.error);
        return startAt;
      }
      const moreMs = Number(outcome.value);
      if (!Number.isFinite(moreMs) || moreMs <= 0) {
        reportIfLate(host, delayMs, startAt - sentAt);
        return startAt;
      }
      await clock.sleep(moreMs, signal);
    }
  };

  const fallBack = (error: unknown) => {
    if (mode !== 'redis' || closed) return;
    mode = 'memory-fallback';
    emitSafely({ type: 'scheduler-fallback', error });
    scheduleProbe();
  };

  const scheduleProbe = () => {
    if (closed) return;
    probeTimer = setTimeout(() => void probe(), fallbackRetryMs);
    // The probe alone must not keep a finished crawl's process alive.
    (probeTimer as { unref?: () => void }).unref?.();
  };

  const probe = async () => {
    probeTimer = undefined;
    if (closed || mode === 'redis') return;
    if (!(await callRedis(PROBE_SCRIPT, [], [])).ok || !(await handOverLocalStarts())) {
      scheduleProbe();
      return;
    }
    if (closed) return;
    mode = 'redis';
    emitSafely({ type: 'scheduler-recovered' });
  };

  /** Starts handed out in-process during the outage become penalties on Redis, for the whole fleet. */
  const handOverLocalStarts = async () => {
    const now = clock.now();
    for (const { host, notBefore } of local.upcomingStarts()) {
      const ms = Math.ceil(notBefore - now);
      if (ms <= 0) continue;
      const outcome = await callRedis(PENALIZE_SCRIPT, [keyOf(host)], [String(ms), String(KEY_TTL_SLACK_MS)]);
      if (!outcome.ok) return false;
    }
    return true;
  };

  // Kept twice per reservation: when the slot is granted (a fallback while this caller still waits
  // must not hand its slot out again) and when it starts (the start may be later than granted).
  const mirror = (host: string, msUntilNext: number) => {
    void local.penalize(host, msUntilNext);
  };

  return {
    get kind() {
      return mode;
    },

    async reserve(host: string, delayMs: number, reserveOptions?: ReserveOptions): Promise<Reservation> {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      checkReserveOptions(reserveOptions);
      const signal = reserveOptions?.signal;
      signal?.throwIfAborted();
      if (mode !== 'redis') return local.reserve(host, delayMs, reserveOptions);
      const calledAt = clock.now();
      const maxWaitMs = reserveOptions?.maxWaitMs;
      const outcome = await raceAbort(reserveOnRedis(host, delayMs, maxWaitMs), signal);
      if (!outcome.ok) {
        fallBack(outcome.error);
        return local.reserve(host, delayMs, reserveOptions);
      }
      const { reserved, waitMs } = outcome.value;
      if (!reserved) throw new WaitTooLongError(host, waitMs, maxWaitMs ?? Number.POSITIVE_INFINITY);
      // The start is the clock read that the late-reply check measured, so the two never disagree.
      let startAt = clock.now();
      mirror(host, waitMs + delayMs);
      if (waitMs > 0) {
        await clock.sleep(startAt + waitMs - clock.now(), signal);
        startAt = await confirmStart(host, delayMs, signal);
      } else {
        reportIfLate(host, delayMs, startAt - calledAt);
      }
      mirror(host, delayMs);
      return { startAt, waitMs: startAt - calledAt };
    },

    async tryReserve(host: string, delayMs: number): Promise<TryReservation> {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      if (mode !== 'redis') return local.tryReserve(host, delayMs);
      const calledAt = clock.now();
      const outcome = await reserveOnRedis(host, delayMs, 0);
      if (!outcome.ok) {
        fallBack(outcome.error);
        return local.tryReserve(host, delayMs);
      }
      const now = clock.now();
      const { reserved, waitMs } = outcome.value;
      if (!reserved) return { ok: false, notBefore: now + waitMs, waitMs };
      mirror(host, delayMs);
      reportIfLate(host, delayMs, now - calledAt);
      return { ok: true, startAt: now };
    },

    async peek(host: string): Promise<number> {
      checkHost(host);
      if (mode !== 'redis') return local.peek(host);
      const outcome = await callRedis(PEEK_SCRIPT, [keyOf(host)], []);
      const waitMs = outcome.ok ? Number(outcome.value) : Number.NaN;
      if (!Number.isFinite(waitMs) || waitMs < 0) {
        fallBack(outcome.ok ? malformed(outcome.value) : outcome.error);
        return local.peek(host);
      }
      // The server's wait, counted from the local clock read after the reply, as tryReserve does.
      return clock.now() + waitMs;
    },

    async penalize(host: string, ms: number): Promise<void> {
      checkHost(host);
      checkDuration('ms', ms);
      await local.penalize(host, ms);
      if (mode !== 'redis' || ms === 0) return;
      const outcome = await callRedis(
        PENALIZE_SCRIPT,
        [keyOf(host)],
        [String(Math.ceil(ms)), String(KEY_TTL_SLACK_MS)],
      );
      if (!outcome.ok) fallBack(outcome.error);
    },

    async close(): Promise<void> {
      closed = true;
      clearTimeout(probeTimer);
      probeTimer = undefined;
    },
  };
}

function parseReserveReply(value: unknown): ReserveReply | undefined {
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [flag, wait] = value.map(Number);
  if ((flag !== 0 && flag !== 1) || wait === undefined || !Number.isFinite(wait) || wait < 0)
    return undefined;
  return { reserved: flag === 1, waitMs: wait };
}

function malformed(value: unknown): Error {
  return new Error(`Unexpected reply from the Redis reservation script: ${JSON.stringify(value)}`);
}
