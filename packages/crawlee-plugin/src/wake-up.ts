/**
 * Crawlee's pool asks `isEmpty()` whether work is ready, and if not, asks again only at its next tick
 * (`maybeRunIntervalSecs`) or when a task ends. A parked host that comes due between two ticks would
 * wait for the next one. Instead, when nothing is ready but a parked host comes due soon, `isEmpty()`
 * naps until that moment (or until something changes: a request added, finished, or its robots.txt
 * decided) and answers then, so a due host is handed out when it is due. The pool runs one readiness
 * check at a time and holds no concurrency slot meanwhile.
 */
export class WakeUp {
  private waiters: Array<() => void> = [];

  /** Resolves at `until` (epoch ms, never later than `maxMs` from now) or at the next `wake()`. */
  nap(until: number, now: number, maxMs: number): Promise<void> {
    const ms = Math.min(Math.max(0, until - now), maxMs);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        resolve();
      }, ms);
      this.waiters.push(done);
    });
  }

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}
