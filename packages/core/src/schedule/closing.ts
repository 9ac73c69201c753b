/**
 * What `close()` does to callers still waiting: each wait runs on a signal of its own that aborts with
 * the caller's reason or, at close, with ClosedError, so every sleeper (a slot, a place in flight, a
 * Redis round trip) is woken at once and rejects typed instead of being granted later for a request
 * that must no longer go out. After close, a new wait is refused at once.
 */
import { setMaxListeners } from 'node:events';
import { ClosedError } from '../kernel/errors.js';

export interface Closing {
  readonly closed: boolean;
  /** The shared close signal: aborts with ClosedError at close (a wait without a caller's signal runs on it). */
  readonly signal: AbortSignal;
  /** Throws ClosedError once closed. */
  check(): void;
  /**
   * A signal for one wait: aborts with `outer`'s reason, or with ClosedError at close. `dispose` when
   * the wait is over, so a long crawl keeps no listener per finished wait. Without `outer`, the
   * shared close signal itself (nothing made, nothing to dispose).
   */
  link(outer: AbortSignal | undefined): { readonly signal: AbortSignal; dispose(): void };
  /**
   * One wait, start to end: refused at once when closed, else `work` runs on a linked signal
   * (`link`) that is disposed however it ends. The wiring every waiting method shares. Without
   * `outer`, `work` gets the shared close signal and nothing is wrapped: a caller that gave no signal
   * pays no controller, listener or promise for it.
   */
  run<T>(outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Aborts every linked wait with ClosedError; idempotent. */
  close(): void;
}

/**
 * The waits linked to each Closing's shared signal, by that signal: linking to it (one Closing's
 * signal handed to another's wait, the facade's to the scheduler's) is a Set entry, not a listener,
 * so many waiters on one shared signal cost O(1) each to add and remove (an AbortSignal's listeners
 * are a list scanned on every add and remove).
 */
const linkedTo = new WeakMap<AbortSignal, Set<AbortController>>();

const NOTHING_TO_DISPOSE = () => {};

export function createClosing(what: string): Closing {
  let closed = false;
  // One controller per wait in progress (not listeners on one shared signal): disposing is O(1).
  const waits = new Set<AbortController>();
  // The signal of every wait without a caller's signal, aborted at close. Listeners on it come only
  // from code outside this file (a custom scheduler, a sleep); that many of them is no leak.
  const shared = new AbortController();
  setMaxListeners(0, shared.signal);
  linkedTo.set(shared.signal, waits);
  const sharedWait = { signal: shared.signal, dispose: NOTHING_TO_DISPOSE };

  const closing: Closing = {
    get closed() {
      return closed;
    },
    signal: shared.signal,
    check() {
      if (closed) throw new ClosedError(what);
    },
    link(outer) {
      if (outer === undefined) return sharedWait;
      const controller = new AbortController();
      if (closed) controller.abort(new ClosedError(what));
      waits.add(controller);
      // Linked to another Closing's shared signal: a Set entry there, not a listener.
      const fanOut = linkedTo.get(outer);
      const onOuter = () => controller.abort(outer.reason);
      if (outer.aborted) onOuter();
      else if (fanOut !== undefined) fanOut.add(controller);
      else outer.addEventListener('abort', onOuter, { once: true });
      return {
        signal: controller.signal,
        dispose() {
          waits.delete(controller);
          if (fanOut !== undefined) fanOut.delete(controller);
          else outer.removeEventListener('abort', onOuter);
        },
      };
    },
    run<T>(outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new ClosedError(what));
      if (outer === undefined) return work(shared.signal);
      const wait = closing.link(outer);
      let working: Promise<T>;
      try {
        working = work(wait.signal);
      } catch (error) {
        wait.dispose();
        return Promise.reject(error);
      }
      return working.finally(wait.dispose);
    },
    close() {
      if (closed) return;
      closed = true;
      const error = new ClosedError(what);
      // Waits linked here from another Closing abort with this one's error, as its listener would have.
      for (const controller of waits) controller.abort(error);
      waits.clear();
      shared.abort(error);
    },
  };
  return closing;
}
