/**
 * With spacing 'start', for adapters that see their sends as they happen (`openHop`'s `ordered`: the
 * got adapter), one request per host (in this process, per Politeness) between reserving a slot and
 * its real send, the moment that decides the next slot. A caller that reserved before that moment was known
 * would go early when the request before it went out late, so the next caller waits for it here
 * before reserving. Hosts never wait for each other.
 *
 * Why this gate beside the facade's in-flight lease (`acquireInFlight`, `maxConcurrentPerHost`): they
 * hold different spans. The lease counts requests from before their slot to the body's end; at the
 * default limit of 1 it already orders everything and this gate is passed at once. Above 1 the lease
 * lets the next request reserve while the one before has its slot but has not gone out, so its slot
 * would count from a start that had not happened; this gate closes only that span, from reserve to
 * the real send. With 'response' spacing the lease alone orders them (the gate is not used).
 */

export interface HostGate {
  /** Resolves with a release function once no other request to `host` is in flight. */
  enter(host: string, signal?: AbortSignal): Promise<() => void>;
}

export function createHostGate(): HostGate {
  // The tail of each host's queue: resolves when the last request queued so far has released.
  const tails = new Map<string, Promise<void>>();

  return {
    async enter(host, signal) {
      signal?.throwIfAborted();
      const previous = tails.get(host) ?? Promise.resolve();
      let release!: () => void;
      const done = new Promise<void>((resolve) => {
        release = resolve;
      });
      // Whatever happens to this caller, the queue behind it moves on once it is done.
      const tail = previous.then(() => done);
      tails.set(host, tail);
      void tail.then(() => {
        if (tails.get(host) === tail) tails.delete(host);
      });
      let released = false;
      const releaseOnce = () => {
        if (released) return;
        released = true;
        release();
      };
      if (signal) {
        try {
          await abortable(previous, signal);
        } catch (error) {
          // Our turn is given up: release it as soon as it comes so later callers are not stuck.
          void previous.then(releaseOnce);
          throw error;
        }
      } else {
        await previous;
      }
      return releaseOnce;
    },
  };
}

function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
