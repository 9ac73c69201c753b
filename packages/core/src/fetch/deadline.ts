/**
 * The timeout of one exchange with a site, counting only time in which our process could act. A timer
 * that comes due while the process is not running (a loaded machine, a long GC pause, a suspended VM)
 * fires before the I/O that completed meanwhile, because the event loop runs due timers before it
 * polls: cut off there, a request that had not yet left (its connection just accepted, or the HTTP
 * parser still compiling on the first request of the process) never reached the site, and the site was
 * judged unreachable without having been asked. So the timeout is measured in slices: a slice that
 * took far longer than asked was a stall of ours, and only its asked length counts against the site.
 */

/** Slices per timeout: a stall longer than a slice is not counted against the site. */
const SLICES = 8;

/** Calls `expire` once `ms` of time in which the process ran have passed; returns a cancel function. */
export function startDeadline(ms: number, expire: () => void): () => void {
  const sliceMs = Math.max(1, Math.ceil(ms / SLICES));
  let counted = 0;
  let last = performance.now();
  const tick = () => {
    const at = performance.now();
    counted += Math.min(at - last, sliceMs);
    last = at;
    if (counted >= ms) expire();
    else timer = setTimeout(tick, Math.max(1, Math.min(sliceMs, Math.ceil(ms - counted))));
  };
  let timer = setTimeout(tick, Math.min(sliceMs, ms));
  return () => clearTimeout(timer);
}
