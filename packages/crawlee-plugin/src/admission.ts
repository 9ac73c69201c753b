/**
 * The decision for each dequeued request: hand it to the crawler, skip it (robots.txt says no), or
 * park it (its host is not due, or its robots.txt is still being fetched, or a request of its host is
 * out and has not started yet). Parked requests are served later by `takeDue`, oldest first per host.
 * Nothing here sleeps: "not yet" is always a parked request and a null answer, so no concurrency slot
 * is held while a host waits. Whether "due" means a slot reserved here or only a look at the schedule
 * (the slot is then reserved when the request is sent) is the Handovers' mode.
 */
import type { Log, Request } from '@crawlee/core';
import { RequestState } from '@crawlee/core';
import type { Decision, Politeness, TryReservation } from '@politely/core';
import { isHttpUrl } from './enqueue-filter.js';
import type { Handovers } from './handovers.js';
import { type ParkedRequest, ParkingLot } from './parking-lot.js';
import type { Reporter } from './reporter.js';
import type { SkipReason } from './types.js';

export interface AdmissionOptions {
  readonly politeness: Politeness;
  readonly reporter: Reporter;
  readonly handovers: Handovers;
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
    const { handovers } = this.options;
    if (
      this.lot.isHostBusy(host, now()) ||
      handovers.holds(host, now()) ||
      !handovers.canHandOut(now()) ||
      !this.lot.claim(host)
    ) {
      this.lot.park(entry);
      return null;
    }
    return this.handOverOrPark(entry, false);
  }

  /** True when `takeDue` has something to try. */
  hasReady(now: number): boolean {
    const { handovers } = this.options;
    return handovers.canHandOut(now) && this.lot.hasReady(now, (host) => handovers.holds(host, now));
  }

  /** Serves the first parked request whose host is due (and, at dequeue, whose slot is granted). */
  async takeDue(): Promise<Request | null> {
    const now = this.options.now();
    const { handovers } = this.options;
    if (!handovers.canHandOut(now)) return null;
    for (const entry of this.lot.readyHeads(now, (host) => handovers.holds(host, now))) {
      // Claimed before awaiting, so concurrent calls never hand out the same request twice.
      if (!this.lot.claim(entry.host)) continue;
      // The list was taken before an earlier await: a concurrent call may have served this one since.
      if (!this.lot.contains(entry)) {
        this.lot.release(entry.host);
        continue;
      }
      this.lot.remove(entry);
      const request = await this.handOverOrPark(entry, true);
      if (request) return request;
      // A concurrent call may have handed out the undecided mode's one request meanwhile.
      if (!handovers.canHandOut(this.options.now())) return null;
    }
    return null;
  }

  /**
   * Hands the request out if its host is due, else parks it until then. The caller holds the host's
   * claim, released here.
   */
  private async handOverOrPark(entry: ParkedRequest, atFront: boolean): Promise<Request | null> {
    const { handovers, reporter, now } = this.options;
    const decision = entry.decision as Decision;
    try {
      if (handovers.reservesAtDequeue) {
        const slot = await this.tryReserve(decision);
        if (slot.ok) {
          reporter.fetched(entry.host);
          return entry.request;
        }
        return this.parkUntil(entry, now() + slot.waitMs, slot.notBefore, atFront);
      }
      // Only a look at the schedule: the HTTP client's hook takes the slot when the request goes out.
      const dueAt = await this.nextStart(decision);
      if (dueAt > now()) return this.parkUntil(entry, dueAt, dueAt, atFront);
      // While this call awaited, another may have handed out the undecided mode's one request, or
      // that request may have settled the mode as dequeue: then try again later.
      if (!handovers.canHandOut(now()) || handovers.reservesAtDequeue) {
        this.lot.park(entry, atFront);
        return null;
      }
      handovers.handedOut(entry.request, entry.host, decision.delayMs, now());
      reporter.fetched(entry.host);
      return entry.request;
    } finally {
      this.lot.release(entry.host);
    }
  }

  private parkUntil(entry: ParkedRequest, dueAt: number, notBefore: number, atFront: boolean): null {
    this.lot.setDueAt(entry.host, dueAt);
    this.options.reporter.nextSlot(entry.host, notBefore);
    this.lot.park(entry, atFront);
    return null;
  }

  private async nextStart(decision: Decision): Promise<number> {
    try {
      return await this.options.politeness.nextStart(decision);
    } catch (error) {
      // The send-time reservation still paces; only the hand-out hint is lost.
      this.warnSchedulerError(error, 'politely: the scheduler failed; requests are paced only when sent');
      return this.options.now();
    }
  }

  private async tryReserve(decision: Decision): Promise<TryReservation> {
    try {
      return await this.options.politeness.tryReserve(decision);
    } catch (error) {
      // The facade falls back to in-process pacing on its own; anything else must not stop the crawl.
      this.warnSchedulerError(error, 'politely: the scheduler failed; requests go out unpaced');
      return { ok: true, startAt: this.options.now() };
    }
  }

  private warnSchedulerError(error: unknown, message: string): void {
    if (this.warnedSchedulerError) return;
    this.warnedSchedulerError = true;
    this.options.log.warning(message, { error: String(error) });
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
