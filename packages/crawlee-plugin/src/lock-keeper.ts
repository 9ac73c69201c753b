/**
 * Parked requests stay locked in the wrapped queue (RequestQueue v2 locks what it hands out for
 * `requestLockSecs`). Without renewal the queue would hand them out again once the lock lapsed, to
 * this process or another one. Locks older than half the lock time are prolonged, in sweeps at most
 * every quarter of it, so a lock is renewed well before it lapses.
 */
import type { Log } from '@crawlee/core';
import type { ParkedRequest } from './parking-lot.js';

export interface LockingQueue {
  requestLockSecs?: number;
  client?: { prolongRequestLock?(id: string, options: { lockSecs: number }): Promise<unknown> };
}

export class LockKeeper {
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly log: Log) {}

  sweep(queue: LockingQueue, parked: Iterable<ParkedRequest>, now: number): void {
    const client = queue.client;
    const lockSecs = queue.requestLockSecs;
    if (!client?.prolongRequestLock || !lockSecs) return;
    const lockMs = lockSecs * 1000;
    if (now - this.lastSweep < lockMs / 4) return;
    this.lastSweep = now;
    for (const entry of parked) {
      const id = entry.request.id;
      if (id === undefined || now - entry.lockTouchedAt < lockMs / 2) continue;
      entry.lockTouchedAt = now;
      client.prolongRequestLock(id, { lockSecs }).catch((error: unknown) =>
        this.log.debug('politely: could not prolong the lock of a parked request', {
          id,
          error: String(error),
        }),
      );
    }
  }
}
