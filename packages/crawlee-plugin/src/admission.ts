/**
 * The decision for each dequeued request: hand it to the crawler, skip it (robots.txt says no), or
 * park it (its host is not due, or its robots.txt is still being fetched). Parked requests are served
 * later by `takeDue`, oldest first per host. Nothing here sleeps: "not yet" is always a parked request
 * and a null answer, so no concurrency slot is held while a host waits.
 */
import type { Log, Request } from '@crawlee/core';
import { RequestState } from '@crawlee/core';
import type { Decision, Politeness, TryReservation } from '@politely/core';
import { isHttpUrl } from './enqueue-filter.js';
import { type ParkedRequest, ParkingLot } from './parking-lot.js';
import type { Reporter } from './reporter.js';
import type { SkipReason } from './types.js';

export interface AdmissionOptions {
  readonly politeness: Politeness;
  readonly reporter: Reporter;
  readonly log: Log;
  readonly now: () => number;
  /** Marks a skipped request handled in the wrapped queue. */
  readonly markHandled: (request: Request) => Promise<unknown>;
  /** Gives a request back to the wrapped queue. */
  readonly reclaim: (request: Request) => Promise<unknown>;
  /** Runs a background task that the manager waits for before reporting itself finished. */
  readonly track: (task: Promise<unknown>) => void;
}

export class Admission {
  readonly lot = new ParkingLot();
  private warnedSchedulerError = false;

  constructor(private readonly options: AdmissionOptions) {}

  /** Decides about a freshly dequeued request: the request to hand over, or null (skipped or parked). */
  async admit(request: Request): Promise<Request | null> {
    const { politeness, now } = this.options;
    // Non-HTTP and malformed URLs are not ours to judge; Crawlee reports them itself.
    if (!isHttpUrl(request.url)) return request;
    let host: string;
    let decision: Decision | undefined;
    try {
      host = politeness.hostKey(request.url);
      decision = politeness.checkCached(request.url);
    } catch {
      return request;
    }
    if (!decision) {
      this.parkUntilChecked(request, host);
      return null;
    }
    if (!decision.allowed) {
      await this.skip(request, decision);
      return null;
    }
    const entry: ParkedRequest = { request, host, decision, lockTouchedAt: now() };
    if (this.lot.isHostBusy(host, now()) || !this.lot.claim(host)) {
      this.lot.park(entry);
      return null;
    }
    return this.reserveOrPark(entry, false);
  }

  /** Serves the first parked request whose host is due and whose slot the scheduler grants. */
  async takeDue(): Promise<Request | null> {
    for (const entry of this.lot.readyHeads(this.options.now())) {
      // Claimed before awaiting, so concurrent calls never hand out the same request twice.
      if (!this.lot.claim(entry.host)) continue;
      // The list was taken before an earlier await: a concurrent call may have served this one since.
      if (!this.lot.contains(entry)) {
        this.lot.release(entry.host);
        continue;
      }
      this.lot.remove(entry);
      const request = await this.reserveOrPark(entry, true);
      if (request) return request;
    }
    return null;
  }

  /** Asks the scheduler for a slot; the caller holds the host's claim, released here. */
  private async reserveOrPark(entry: ParkedRequest, atFront: boolean): Promise<Request | null> {
    try {
      const slot = await this.tryReserve(entry.decision as Decision);
      if (slot.ok) {
        this.options.reporter.fetched(entry.host);
        return entry.request;
      }
      this.lot.setDueAt(entry.host, this.options.now() + slot.waitMs);
      this.options.reporter.nextSlot(entry.host, slot.notBefore);
      this.lot.park(entry, atFront);
      return null;
    } finally {
      this.lot.release(entry.host);
    }
  }

  private async tryReserve(decision: Decision): Promise<TryReservation> {
    try {
      return await this.options.politeness.tryReserve(decision);
    } catch (error) {
      // The facade falls back to in-process pacing on its own; anything else must not stop the crawl.
      if (!this.warnedSchedulerError) {
        this.warnedSchedulerError = true;
        this.options.log.warning('politely: the scheduler failed; requests go out unpaced', {
          error: String(error),
        });
      }
      return { ok: true, startAt: this.options.now() };
    }
  }

  /** The origin's rules are not in memory: park the request and let the (single-flight) check run. */
  private parkUntilChecked(request: Request, host: string): void {
    const entry: ParkedRequest = { request, host, decision: undefined, lockTouchedAt: this.options.now() };
    this.lot.park(entry);
    const decided = this.options.politeness.check(request.url).then(
      async (decision) => {
        if (!this.lot.contains(entry)) return;
        if (decision.allowed) {
          entry.decision = decision;
          return;
        }
        this.lot.remove(entry);
        await this.skip(request, decision);
      },
      async (error: unknown) => {
        // check() only rejects on a bug; hand the request back to the queue rather than lose it.
        this.options.log.warning('politely: robots.txt check failed; request returned to the queue', {
          url: request.url,
          error: String(error),
        });
        this.lot.remove(entry);
        await this.options.reclaim(request).catch(() => undefined);
      },
    );
    this.options.track(decided);
  }

  /** Crawlee's own skip bookkeeping (as its respectRobotsTxtFile path): SKIPPED, handled, not retried. */
  private async skip(request: Request, decision: Decision): Promise<void> {
    request.state = RequestState.SKIPPED;
    request.noRetry = true;
    try {
      await this.options.markHandled(request);
    } catch (error) {
      this.options.log.warning('politely: could not mark a skipped request as handled', {
        url: request.url,
        error: String(error),
      });
    }
    await this.options.reporter.skipped({
      url: request.url,
      reason: decision.reason as SkipReason,
      stage: 'dequeue',
      decision,
      host: decision.hostKey,
      request,
    });
  }
}
