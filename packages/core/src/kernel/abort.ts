/**
 * Abort helpers. A fetch implementation or a stream may ignore its signal; racing every await
 * against the signal keeps our own time limits true whatever the I/O underneath does.
 */
import type { Clock } from './clock.js';

/** Settles like `promise`, or rejects with `signal.reason` as soon as the signal aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * `work` on a signal that aborts with the caller's reason, or with `expired()` once `ms` have passed
 * on `clock` (fake clocks included). Once `work` settles, the timer stops and the caller's signal is
 * let go of.
 */
export async function withinDeadline<T>(
  clock: Clock,
  outer: AbortSignal | undefined,
  ms: number,
  expired: () => Error,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const stopTimer = new AbortController();
  const onOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  clock.sleep(ms, stopTimer.signal).then(
    () => controller.abort(expired()),
    () => {},
  );
  try {
    return await work(controller.signal);
  } finally {
    stopTimer.abort();
    outer?.removeEventListener('abort', onOuter);
  }
}
