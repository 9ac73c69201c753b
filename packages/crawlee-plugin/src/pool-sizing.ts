/**
 * Crawlee's AutoscaledPool, sized for a paced HTTP crawl. The pool starts nothing beyond
 * `minConcurrency` (default 1) while it thinks the system is overloaded, which it judges by the
 * whole machine's CPU, and grows only while all its slots are busy, one step per 10 s. A paced crawl
 * rarely keeps its slots busy (a request leaves the queue only when its host is due, one per host),
 * so on a shared machine it ran one or two tasks at a time: measured on a 2-core machine at load
 * 20, 10 hosts x 20 pages at 200 ms, the pool said "overloaded" in 80-95% of its samples (the CPU
 * of other processes) and ran at most 2 tasks; hosts due together were served one after another.
 *
 * Pacing bounds the work (never more tasks than hosts due), so an HTTP crawl may run up to
 * MIN_TASKS tasks (never more than `maxConcurrency`) whatever the machine's load, unless you set
 * `minConcurrency` yourself. Browser crawlers keep Crawlee's own sizing: a page costs a browser tab,
 * and memory is what the pool protects there. The pool exists only once the crawl runs, so it is
 * sized when the first task reaches the request handler (no `page` in its context: not a browser).
 */
const MIN_TASKS = 10;

interface PoolLike {
  minConcurrency: number;
  desiredConcurrency: number;
  readonly maxConcurrency: number;
}

interface TaskContext {
  readonly page?: unknown;
  readonly crawler?: { readonly autoscaledPool?: PoolLike };
}

// biome-ignore lint/suspicious/noExplicitAny: any crawler's handler, whatever its context type
type Handler = (context: any) => unknown;

/** Wraps the request handler so that the first HTTP task sizes the pool. */
export function sizePoolOnFirstTask<H extends Handler>(handler: H): H {
  let sized = false;
  const wrapped = (context: TaskContext) => {
    if (!sized) {
      sized = true;
      const pool = context.crawler?.autoscaledPool;
      const tasks = pool ? Math.min(pool.maxConcurrency, MIN_TASKS) : 0;
      if (pool && context.page === undefined && pool.minConcurrency < tasks) {
        pool.minConcurrency = tasks;
        pool.desiredConcurrency = Math.max(pool.desiredConcurrency, tasks);
      }
    }
    return handler(context);
  };
  return wrapped as H;
}

/** True when the crawler options leave the pool's minimum to Crawlee (the plugin may then set it). */
export function minConcurrencyIsDefault(options: {
  minConcurrency?: unknown;
  autoscaledPoolOptions?: Record<string, unknown>;
}): boolean {
  return options.minConcurrency === undefined && options.autoscaledPoolOptions?.minConcurrency === undefined;
}
