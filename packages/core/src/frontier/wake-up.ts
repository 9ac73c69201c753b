/**
 * A crawler's pool asks whether work is ready, and if not, asks again only at its next tick or when a
 * task ends. A parked host that comes due between two ticks would wait for the next one. Instead,
 * when nothing is ready but a parked host comes due soon, the caller naps until that moment (or until
 * something changes: an item added, sent, finished, or its robots.txt decided) and asks then, so a due
 * host is handed out when it is due.
 */
/** The longest delay setTimeout keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WakeUp {
  private waiters: Array<() => void> = [];

  /**
   * Resolves at `until` (epoch ms, never later than `maxMs` from now) or at the next `wake()`; with
   * both infinite, only at the next `wake()`.
   */
  nap(until: number, now: number, maxMs: number): Promise<void> {
    const ms = Math.min(Math.max(0, until - now), maxMs);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      // No timer for an endless nap (only `wake()` ends it); a longer one than a timer can hold
      // (about 24.8 days) ends early, and the caller asks again.
      const timer = Number.isFinite(ms)
        ? setTimeout(
            () => {
              this.waiters = this.waiters.filter((waiter) => waiter !== done);
              resolve();
            },
            Math.min(ms, MAX_TIMER_MS),
          )
        : undefined;
      this.waiters.push(done);
    });
  }

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}
