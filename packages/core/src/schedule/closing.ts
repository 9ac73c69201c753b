/**
 * What `close()` does to callers still waiting: each wait runs on a signal of its own that aborts with
 * the caller's reason or, at close, with ClosedError, so every sleeper (a slot, a place in flight, a
 * Redis round trip) is woken at once and rejects typed instead of being granted later for a request
 * that must no longer go out. After close, a new wait is refused at once.
 */
import { ClosedError } from '../kernel/errors.js';

export interface Closing {
  readonly closed: boolean;
  /** Throws ClosedError once closed. */
  check(): void;
  /**
   * A signal for one wait: aborts with `outer`'s reason, or with ClosedError at close. `dispose` when
   * the wait is over, so a long crawl keeps no listener per finished wait.
   */
  link(outer: AbortSignal | undefined): { readonly signal: AbortSignal; dispose(): void };
  /**
   * One wait, start to end: refused at once when closed, else `work` runs on a linked signal
   * (`link`) that is disposed however it ends. The wiring every waiting method shares.
   */
  run<T>(outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Aborts every linked wait with ClosedError; idempotent. */
  close(): void;
}

export function createClosing(what: string): Closing {
  let closed = false;
  // One controller per wait in progress (not listeners on one shared signal): disposing is O(1).
  const waits = new Set<AbortController>();

  const closing: Closing = {
    get closed() {
      return closed;
    },
    check() {
      if (closed) throw new ClosedError(what);
    },
    link(outer) {
      const controller = new AbortController();
      if (closed) controller.abort(new ClosedError(what));
      const onOuter = () => controller.abort(outer?.reason);
      if (outer?.aborted) onOuter();
      else outer?.addEventListener('abort', onOuter, { once: true });
      waits.add(controller);
      return {
        signal: controller.signal,
        dispose() {
          waits.delete(controller);
          outer?.removeEventListener('abort', onOuter);
        },
      };
    },
    async run(outer, work) {
      closing.check();
      const wait = closing.link(outer);
      try {
        return await work(wait.signal);
      } finally {
        wait.dispose();
      }
    },
    close() {
      if (closed) return;
      closed = true;
      const error = new ClosedError(what);
      for (const controller of waits) controller.abort(error);
      waits.clear();
    },
  };
  return closing;
}
