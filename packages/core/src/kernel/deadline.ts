/**
 * The timeout of one exchange with a peer (a site, Redis), counting only time in which our process
 * could act. A timer that comes due while the process is not running (a loaded machine, a long GC
 * pause, a suspended VM) fires before the I/O that completed meanwhile, because the event loop runs due
 * timers before it polls: cut off there, a robots.txt request that had not yet left never reached the
 * site (judged unreachable unasked), and a Redis reply already waiting in the socket counted as an
 * outage. So the timeout is measured in slices: a slice that took far longer than asked was a stall of
 * ours, and only its asked length counts against the peer.
 */

/** Slices per timeout: a stall longer than a slice is not counted against the peer. */
const SLICES = 8;

/**
 * Calls `expire` once `ms` of time in which the process ran have passed; returns a cancel function.
 * A slice counts at least what its timer was asked for: a timer that fired is trusted to have waited,
 * so under timers a test replaced (one that runs every callback at once, or on a fake clock without a
 * fake `performance`) the deadline ends after its slices, as the client's own timeouts do, instead of
 * re-arming without end and starving the event loop.
 */
export function startDeadline(ms: number, expire: () => void): () => void {
  const sliceMs = Math.max(1, Math.ceil(ms / SLICES));
  let counted = 0;
  let last = performance.now();
  let asked = Math.min(sliceMs, ms);
  const tick = () => {
    const at = performance.now();
    counted += Math.min(Math.max(at - last, asked), sliceMs);
    last = at;
    if (counted >= ms) expire();
    else {
      asked = Math.max(1, Math.min(sliceMs, Math.ceil(ms - counted)));
      timer = setTimeout(tick, asked);
    }
  };
  let timer = setTimeout(tick, asked);
  return () => clearTimeout(timer);
}

/**
 * `work`, or the error `timedOut()` makes once `ms` of time in which the process ran have passed. A
 * reply that arrived during the last slice still wins (setImmediate lets the event loop read it
 * first), so a stall of ours is never taken for the peer's. `work` settling later is ignored.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const cancel = startDeadline(ms, () => setImmediate(() => reject(timedOut())));
    work.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (error: unknown) => {
        cancel();
        reject(error);
      },
    );
  });
}
