/**
 * The real clock: Date.now and an abortable sleep. Pacing compares sleep targets with Date.now(), and
 * Node timers may fire up to ~1 ms before Date.now() reaches the target, so a sleep re-arms for the
 * remainder instead of ever waking early. The cache, the schedulers and the facade all take a Clock.
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

function sleepUntil(target: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const check = () => {
      const remaining = target - Date.now();
      if (remaining <= 0) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      timer = setTimeout(check, Math.min(remaining, MAX_TIMER_MS));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
