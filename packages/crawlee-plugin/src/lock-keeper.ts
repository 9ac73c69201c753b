/**
 * Parked requests stay locked in a locking queue (RequestQueue v2 locks what it hands out for
 * `requestLockSecs`; the plugin's default queue on local storage is RequestQueueV1, which does not).
 * Without renewal the queue would hand them out again once the lock lapsed, to this process or another
 * one. Locks older than half the lock time are prolonged, in sweeps at most every quarter of it, so a
 * lock is renewed well before it lapses.
 */
import type { Log, Request } from '@crawlee/core';
import * as crawleeCore from '@crawlee/core';
import type { ParkedItem } from '@politely/core/frontier';

export interface LockingQueue {
  requestLockSecs?: number;
  client?: { prolongRequestLock?(id: string, options: { lockSecs: number }): Promise<unknown> };
}

export class LockKeeper {
  private lastSweep = Number.NEGATIVE_INFINITY;
  /** When a parked request's lock was last prolonged; until then, it was taken when it was parked. */
  private readonly touchedAt = new WeakMap<Request, number>();

  constructor(private readonly log: Log) {}

  sweep(queue: LockingQueue, parked: Iterable<ParkedItem<Request>>, now: number): void {
    const client = queue.client;
    const lockSecs = queue.requestLockSecs;
    if (!client?.prolongRequestLock || !lockSecs || isUnlockedQueue(queue)) return;
    const lockMs = lockSecs * 1000;
    if (now - this.lastSweep < lockMs / 4) return;
    this.lastSweep = now;
    for (const { item: request, since } of parked) {
      const id = request.id;
      if (id === undefined || now - Math.max(this.touchedAt.get(request) ?? since, since) < lockMs / 2)
        continue;
      this.touchedAt.set(request, now);
      client.prolongRequestLock(id, { lockSecs }).catch((error: unknown) =>
        this.log.debug('politely: could not prolong the lock of a parked request', {
          id,
          error: String(error),
        }),
      );
    }
  }
}

/**
 * RequestQueueV1 locks nothing in storage (what it handed out is kept in memory): prolonging would
 * only write locks that nothing reads. A V1 of another copy of @crawlee/core is no instance of this
 * copy's class: known by shape then, counting what it has in progress (`inProgressCount`, V1 only)
 * and having none of RequestQueue v2's locking methods.
 */
function isUnlockedQueue(queue: LockingQueue): boolean {
  const V1 = (crawleeCore as { RequestQueueV1?: abstract new (...args: never[]) => unknown }).RequestQueueV1;
  if (V1 !== undefined && queue instanceof V1) return true;
  const shape = queue as { inProgressCount?: unknown; giveUpLock?: unknown; _listHeadAndLock?: unknown };
  return (
    typeof shape.inProgressCount === 'function' &&
    typeof shape.giveUpLock !== 'function' &&
    typeof shape._listHeadAndLock !== 'function'
  );
}
