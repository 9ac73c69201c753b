/**
 * The real clock: Date.now and an abortable sleep. Pacing compares sleep targets with Date.now(), and
 * Node timers may fire up to ~1 ms before Date.now() reaches the target, so a sleep re-arms for the
 * remainder instead of ever waking early (a timer that fires far earlier is a test's stand-in, which
 * the sleep follows: firedEarly). The cache, the schedulers and the facade all take a Clock.
 */

/** An injectable clock, so pacing logic is tested with fake time. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Time that only moves forward (ms, any origin), for measuring how long this process took; `now`
   * when absent (a fake clock is monotonic already).
   */
  monotonic?(): number;
}

/** setTimeout's largest delay; longer sleeps re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) => sleepUntil(Date.now() + (Number.isFinite(ms) && ms > 0 ? ms : 0), signal),
};

/** How early a real timer may fire by Date.now() (its rounding); the sleep re-arms for that much. */
const EARLY_SLACK_MS = 2;

/**
 * A timer that fired long before it was asked to, by Date.now() and by the monotonic clock alike, is
 * not a real timer: a test replaced setTimeout with one that runs its callback at once. The sleep then
 * ends, as the client's own waits do under it, instead of re-arming without end and starving the
 * event loop. (A fake clock moves Date.now() with its timers, and a wall clock set back leaves the
 * monotonic one alone: both still re-arm.)
 */
function firedEarly(armed: { at: number; monotonic: number; ms: number }): boolean {
  const floor = armed.ms - EARLY_SLACK_MS;
  return Date.now() - armed.at < floor && performance.now() - armed.monotonic < floor;
}

function sleepUntil(target: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    let armed: { at: number; monotonic: number; ms: number } | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const check = () => {
      const remaining = target - Date.now();
      if (remaining <= 0 || (armed !== undefined && firedEarly(armed))) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      const ms = Math.min(remaining, MAX_TIMER_MS);
      armed = { at: Date.now(), monotonic: performance.now(), ms };
      timer = setTimeout(check, ms);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
