/**
 * What the Redis scheduler does when Redis goes away: it says so once (`scheduler-fallback`), paces
 * in-process, probes Redis every `fallbackRetryMs` with a write, and before it goes back hands over
 * what it did meanwhile (starts as penalties, in-flight leases as leases), then says so once
 * (`scheduler-recovered`).
 *
 * Its in-process starts are fenced against its own stalls. The other processes keep off the hosts
 * this one owned for a grace after they are back (redis-share.ts graceMs), counting on its probe to
 * find Redis back within a `fallbackRetryMs` and its hand-over to land in the grace; a process starved
 * of CPU as Redis comes back would wake to its slot timers before its probe. Redis cannot be back
 * before a probe (or the call that failed) was sent, so no other process starts an owned host earlier
 * than that send plus the grace: an in-process start is made only within that window (on the
 * monotonic clock: a stall moves it on, a wall clock that jumps does not). Past it, the process proves
 * it again first: a probe at once, and if Redis answers, the hand-over, and the caller asks Redis. In
 * a running outage the window never lapses, so only a stall costs the extra probe.
 */
import type { PolitelyEvent } from '../kernel/events.js';
import type { LocalPace } from './memory-scheduler.js';
import type { RedisLink } from './redis-client.js';
import { PENALIZE_SCRIPT, PROBE_SCRIPT } from './redis-script.js';
import type { FallbackShare } from './redis-share.js';

/** The recovery probe's write expires on its own. */
const PROBE_KEY_TTL_MS = 10_000;

export interface RedisOutage {
  /** 'redis' while Redis answers; 'memory-fallback' from a failure until the hand-over is done. */
  readonly mode: 'redis' | 'memory-fallback';
  /** A Redis call failed: falls back (once per outage) and starts probing. */
  fallBack(error: unknown): void;
  /** Settles when Redis mode resumes (at once when on Redis). */
  back(): Promise<void>;
  /**
   * Whether this process may start a host in-process now: true while Redis is proven away within
   * the window, else after a probe that finds it still away; false once on Redis (the hand-over done).
   */
  stillAway(): Promise<boolean>;
  close(): void;
}

export interface RedisOutageDeps
  extends Pick<
    RedisLink,
    'callRedis' | 'keyOf' | 'clock' | 'commandTimeoutMs' | 'safetyMarginMs' | 'keySlackMs'
  > {
  readonly probeKey: string;
  readonly local: LocalPace;
  readonly emit: (event: PolitelyEvent) => void;
  readonly fallbackRetryMs: number;
  /** Time that only moves forward (the clock's `monotonic`). */
  readonly monotonic: () => number;
  /** Hands the leases taken in-process over to Redis; false when Redis failed again. */
  readonly handOverLeases: () => Promise<boolean>;
  /** Redis just went away: what the `scheduler-fallback` event says of the share kept (redis-share.ts). */
  readonly onFallBack: () => { readonly share: FallbackShare; readonly members: number };
  /** Redis mode resumed, in the same synchronous step. */
  readonly onRecovered: () => void;
}

export function createRedisOutage(deps: RedisOutageDeps): RedisOutage {
  const { callRedis, keyOf, probeKey, clock, local, emit, fallbackRetryMs, safetyMarginMs, keySlackMs } =
    deps;
  let mode: 'redis' | 'memory-fallback' = 'redis';
  let probeTimer: ReturnType<typeof setTimeout> | undefined;
  let probing: Promise<void> | undefined;
  let closed = false;
  let whenBack: { promise: Promise<void>; resolve: () => void } | undefined;
  /** Monotonic time until which Redis is proven away: no other process starts an owned host before. */
  let provenUntil = Number.NEGATIVE_INFINITY;
  const window = deps.fallbackRetryMs + 2 * deps.commandTimeoutMs;

  const fallBack = (error: unknown) => {
    if (mode !== 'redis' || closed) return;
    mode = 'memory-fallback';
    // The call that failed was sent at most a command timeout ago.
    provenUntil = deps.monotonic() - deps.commandTimeoutMs + window;
    let resolve = () => {};
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    whenBack = { promise, resolve };
    emit({ type: 'scheduler-fallback', error, ...deps.onFallBack() });
    scheduleProbe();
  };
  const resume = () => {
    mode = 'redis';
    deps.onRecovered();
    whenBack?.resolve();
    whenBack = undefined;
  };

  const runProbe = () => {
    clearTimeout(probeTimer);
    probing ??= probe().finally(() => {
      probing = undefined;
    });
    return probing;
  };

  const scheduleProbe = () => {
    if (closed) return;
    probeTimer = setTimeout(() => void runProbe(), fallbackRetryMs);
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
    const sentAt = deps.monotonic();
    const written = await callRedis(PROBE_SCRIPT, [probeKey], [String(PROBE_KEY_TTL_MS)]);
    // Unanswered: Redis cannot be back before this was sent.
    if (!written.ok) provenUntil = Math.max(provenUntil, sentAt + window);
    if (!written.ok || !(await deps.handOverLeases()) || !(await handOverAndRecover())) {
      scheduleProbe();
      return;
    }
    emit({ type: 'scheduler-recovered' });
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
        resume();
        return true;
      }
      for (const { host, notBefore } of pending) {
        const ms = Math.ceil(notBefore - clock.now()) + safetyMarginMs;
        if (ms > 0) {
          const outcome = await callRedis(PENALIZE_SCRIPT, [keyOf(host)], [String(ms), String(keySlackMs)]);
          if (!outcome.ok) return false;
        }
        handed.set(host, notBefore);
      }
    }
    return false;
  };

  return {
    get mode() {
      return mode;
    },
    fallBack,
    back() {
      return whenBack?.promise ?? Promise.resolve();
    },
    async stillAway() {
      const proven = () => mode !== 'redis' && !closed && deps.monotonic() < provenUntil;
      // A probe already under way may have left before the stall and prove nothing: then a fresh one.
      for (let tries = 0; tries < 2 && !proven() && mode !== 'redis' && !closed; tries++) await runProbe();
      return proven();
    },
    close() {
      closed = true;
      clearTimeout(probeTimer);
      probeTimer = undefined;
    },
  };
}
