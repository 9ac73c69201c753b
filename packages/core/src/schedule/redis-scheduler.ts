/**
 * Fleet-wide pacing: every process reserves a host's next start through one atomic script on a shared
 * Redis (see redis-script.ts), so the spacing holds across machines. When Redis goes away the crawl
 * keeps going on in-process pacing (one warning event), and Redis is probed until it is back.
 */
import { raceAbort } from '../kernel/abort.js';
import { WaitTooLongError } from '../kernel/errors.js';
import type { PolitelyEvent } from '../kernel/events.js';
import { checkDuration, checkHost, checkReserveOptions } from './arguments.js';
import { createLocalPace } from './memory-scheduler.js';
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
/** The recovery probe's write expires on its own. */
const PROBE_KEY_TTL_MS = 10_000;

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

interface ReserveReply {
  readonly reserved: boolean;
  readonly waitMs: number;
}

export function createRedisScheduler(options: RedisSchedulerOptions): RedisScheduler {
  const settings = validateRedisSchedulerOptions(options);
  const { redis, prefix, clock, emit, fallbackRetryMs, commandTimeoutMs, safetyMarginMs, connect } = settings;
  // One pace per host in this process, whatever Redis does: every Redis reservation is noted here and
  // every start passes its gate, so when Redis goes away (or comes back) the in-process pacing carries
  // on from the last slot this process knows of instead of starting a second, independent schedule.
  const local = createLocalPace({ clock });
  let mode: 'redis' | 'memory-fallback' = 'redis';
  let probeTimer: ReturnType<typeof setTimeout> | undefined;
  let connecting: Promise<unknown> | undefined;
  let closed = false;

  // The `{host}` hash tag keeps every key of one host in one Redis Cluster slot.
  const keyOf = (host: string) => `${prefix}{${host}}`;
  // Outside the hosts' namespace (every host key has a `{` right after the prefix).
  const probeKey = `${prefix}probe`;
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
   * The server records a start when its script runs; the caller starts when the reply is read (and
   * this process's own gate lets it). When that took longer than the margin covers (a busy CPU, a
   * slow network), the start is recorded again from the server's later clock so the next caller, in
   * any process, keeps the gap.
   */
  const reportIfLate = (host: string, delayMs: number, lateByMs: number) => {
    if (delayMs === 0 || lateByMs <= lateReplyMs || mode !== 'redis') return;
    void callRedis(
      STARTED_LATE_SCRIPT,
      [keyOf(host)],
      [String(spacingOf(delayMs)), String(KEY_TTL_SLACK_MS)],
    ).then((outcome) => {
      if (!outcome.ok) fallBack(outcome.error);
    });
  };

  /**
   * After waiting for its slot, a caller confirms its start with the server, and waits more if the
   * previous caller (in any process) started late or a later real send moved the slot (markSent).
   * Returns the local time the server confirmed, or undefined when Redis failed (or is already known
   * to be away): the caller then goes by this process's own pace, never "as if started".
   */
  const confirmOnRedis = async (
    host: string,
    delayMs: number,
    signal: AbortSignal | undefined,
    deadline: number,
    maxWaitMs: number,
  ): Promise<{ sentAt: number } | undefined> => {
    for (;;) {
      if (mode !== 'redis') return undefined;
      const sentAt = clock.now();
      const outcome = await raceAbort(
        callRedis(CONFIRM_SCRIPT, [keyOf(host)], [String(spacingOf(delayMs)), String(KEY_TTL_SLACK_MS)]),
        signal,
      );
      if (!outcome.ok) {
        fallBack(outcome.error);
        return undefined;
      }
      const moreMs = Number(outcome.value);
      if (!Number.isFinite(moreMs) || moreMs <= 0) return { sentAt };
      const now = clock.now();
      if (now + moreMs > deadline) throw new WaitTooLongError(host, moreMs, maxWaitMs);
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

  /**
   * Redis is back only when it takes a write (a server out of memory still answers reads and
   * scripts that write nothing), and only once this process's in-process starts are handed over.
   */
  const probe = async () => {
    probeTimer = undefined;
    if (closed || mode === 'redis') return;
    const written = await callRedis(PROBE_SCRIPT, [probeKey], [String(PROBE_KEY_TTL_MS)]);
    if (!written.ok || !(await handOverAndRecover())) {
      scheduleProbe();
      return;
    }
    emitSafely({ type: 'scheduler-recovered' });
  };

  /**
   * Starts handed out in-process during the outage become penalties on Redis, for the whole fleet.
   * Repeated until a pass finds nothing new, and Redis mode resumes in that same synchronous step, so
   * no in-process slot is handed out after the hand-over and before Redis takes over.
   */
  const handOverAndRecover = async () => {
    const handed = new Map<string, number>();
    for (let round = 0; round < 5; round++) {
      if (closed) return false;
      const pending = local
        .upcomingStarts()
        .filter(({ host, notBefore }) => notBefore > (handed.get(host) ?? Number.NEGATIVE_INFINITY));
      if (pending.length === 0) {
        mode = 'redis';
        return true;
      }
      for (const { host, notBefore } of pending) {
        const ms = Math.ceil(notBefore - clock.now()) + safetyMarginMs;
        if (ms > 0) {
          const outcome = await callRedis(
            PENALIZE_SCRIPT,
            [keyOf(host)],
            [String(ms), String(KEY_TTL_SLACK_MS)],
          );
          if (!outcome.ok) return false;
        }
        handed.set(host, notBefore);
      }
    }
    return false;
  };

  /** In-process pacing while Redis is away; maxWaitMs counts from when the caller asked. */
  const reserveLocally = async (
    host: string,
    delayMs: number,
    signal: AbortSignal | undefined,
    calledAt: number,
    maxWaitMs: number,
  ): Promise<Reservation> => {
    const left = Math.max(0, maxWaitMs - (clock.now() - calledAt));
    const { startAt } = await local.reserve(host, delayMs, {
      ...(signal ? { signal } : {}),
      ...(left !== Number.POSITIVE_INFINITY ? { maxWaitMs: left } : {}),
    });
    return { startAt, waitMs: startAt - calledAt };
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
      const calledAt = clock.now();
      const maxWaitMs = reserveOptions?.maxWaitMs;
      const limit = maxWaitMs ?? Number.POSITIVE_INFINITY;
      if (mode !== 'redis') return reserveLocally(host, delayMs, signal, calledAt, limit);
      const outcome = await raceAbort(reserveOnRedis(host, delayMs, maxWaitMs), signal);
      if (!outcome.ok) {
        fallBack(outcome.error);
        return reserveLocally(host, delayMs, signal, calledAt, limit);
      }
      const { reserved, waitMs } = outcome.value;
      if (!reserved) throw new WaitTooLongError(host, waitMs, limit);
      // The clock read the late-reply check measures from, so the two never disagree.
      const grantedAt = clock.now();
      const slotAt = grantedAt + waitMs;
      // Slots this process hands out itself (should Redis go away now) come after this one.
      local.grant(host, slotAt + delayMs);
      let confirmedAt: number | undefined = calledAt;
      if (waitMs > 0) {
        await clock.sleep(slotAt - clock.now(), signal);
        confirmedAt = (await confirmOnRedis(host, delayMs, signal, calledAt + limit, limit))?.sentAt;
      }
      // Whatever Redis said, this process's own pace has the last word (a start it made in-process
      // during an outage, a backoff, a later real send), and the start is recorded there.
      const startAt = await local.startWhenFree(host, delayMs, {
        signal,
        deadline: calledAt + limit,
        maxWaitMs: limit,
      });
      if (confirmedAt !== undefined) reportIfLate(host, delayMs, startAt - confirmedAt);
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
      // Redis may not know everything this process does (a start made during an outage).
      const free = local.freeAt(host);
      if (free > now) return { ok: false, notBefore: free, waitMs: free - now };
      const startAt = await local.startWhenFree(host, delayMs, { deadline: now, maxWaitMs: 0 });
      reportIfLate(host, delayMs, startAt - calledAt);
      return { ok: true, startAt };
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
      const now = clock.now();
      return Math.max(now + waitMs, local.freeAt(host));
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
      // The fallback's idle-sweep timer.
      await local.close();
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
