/**
 * A place in flight lent by a request that has stalled, so a request that depends on it is not
 * deadlocked. got lets a request's completion hang on another request to the same host through the
 * same client: a download piped into an upload (`got.stream(a).pipe(got.stream.put(b))`: whichever
 * holds the host's only place waits for the other to move data), a server handler or a hook that
 * calls the same host while the request that reached it is open. With `maxConcurrentPerHost` places
 * and the wait for one unbounded (it is a queue: a burst of a thousand calls to one host must not
 * fail), both would wait forever.
 *
 * No client tells a dependent request from an independent one, so this goes by what a deadlock looks
 * like from outside: a request that has waited `STALL_MS` for a place may share the place of a
 * request of this process to the same host that has made no progress (taken its place, answered) for
 * `STALL_MS` either. Each stalled request lends its place to one waiter at a time. What this costs an
 * independent request: a host that takes longer than `STALL_MS` to answer may see one more request
 * in flight per stalled one, still at the host's pace (the sharer takes its own pacing slot), and it
 * is reported (`in-flight-shared`, a warning once per host). Bounding the wait by `maxWaitMs` instead
 * would fail the dependent request (and every long queue) rather than let it go.
 */
import type { Clock } from '../kernel/clock.js';

/** How long a holder without progress, and a waiter, wait before the place is shared (ms). */
export const STALL_MS = 5000;

/** A place held by a pass of this process: progress moves its stall clock; release ends it. */
export interface PlaceHolder {
  progress(): void;
  release(): void;
}

/** What a shared place says about the request that lent it. */
export interface SharedPlace {
  /** How long the lender had made no progress (ms). */
  readonly stalledMs: number;
  /** Gives the lent place back to its lender (idempotent). */
  release(): void;
}

export interface StalledPlaces {
  hold(host: string): PlaceHolder;
  /**
   * Resolves once a place of `host` can be shared: after `STALL_MS`, the first holder stalled that
   * long and not lending already. Rejects with the signal's reason when it aborts.
   */
  join(host: string, signal: AbortSignal): Promise<SharedPlace>;
}

interface Holder {
  since: number;
  lent: boolean;
}

export function createStalledPlaces(clock: Pick<Clock, 'now' | 'sleep'>): StalledPlaces {
  const hosts = new Map<string, Set<Holder>>();
  return {
    hold(host) {
      const holder: Holder = { since: clock.now(), lent: false };
      let held = hosts.get(host);
      if (!held) {
        held = new Set();
        hosts.set(host, held);
      }
      held.add(holder);
      return {
        progress: () => {
          holder.since = clock.now();
        },
        release: () => {
          const set = hosts.get(host);
          set?.delete(holder);
          if (set?.size === 0) hosts.delete(host);
        },
      };
    },
    async join(host, signal) {
      let waitMs = STALL_MS;
      for (;;) {
        await clock.sleep(waitMs, signal);
        signal.throwIfAborted();
        const now = clock.now();
        waitMs = STALL_MS;
        for (const holder of hosts.get(host) ?? []) {
          if (holder.lent) continue;
          const stalledMs = now - holder.since;
          if (stalledMs >= STALL_MS) {
            holder.lent = true;
            return {
              stalledMs,
              release: () => {
                holder.lent = false;
              },
            };
          }
          waitMs = Math.min(waitMs, STALL_MS - stalledMs);
        }
      }
    },
  };
}
