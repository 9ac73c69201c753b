/**
 * A manual clock for pacing tests: time moves only when the test advances it, and sleepers wake in
 * order of their deadlines, each after the microtasks queued before it have run.
 */
import type { Clock } from '../../src/schedule/types.js';

interface Sleeper {
  readonly at: number;
  readonly resolve: () => void;
}

export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, waking every sleeper due on the way, in order. */
  advance(ms: number): Promise<void>;
  /** Number of sleeps not yet woken or aborted. */
  readonly pendingSleeps: number;
}

const flushMicrotasks = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

export function createFakeClock(start = 1_000_000): FakeClock {
  let now = start;
  const sleepers = new Set<Sleeper>();
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const sleeper: Sleeper = {
          at: now + Math.max(0, ms),
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          sleepers.delete(sleeper);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.add(sleeper);
      });
    },
    async advance(ms) {
      const target = now + ms;
      await flushMicrotasks();
      for (;;) {
        let next: Sleeper | undefined;
        for (const sleeper of sleepers)
          if (sleeper.at <= target && (!next || sleeper.at < next.at)) next = sleeper;
        if (!next) break;
        sleepers.delete(next);
        now = Math.max(now, next.at);
        next.resolve();
        await flushMicrotasks();
      }
      now = target;
      await flushMicrotasks();
    },
    get pendingSleeps() {
      return sleepers.size;
    },
  };
}
