/**
 * The decision for each dequeued request: hand it to the crawler, skip it (robots.txt says no), or
 * park it (its host is not due, or its robots.txt is still being fetched, or a request of its host is
 * out and has not gone out yet). Parked requests are served later by `takeDue`, oldest first per host.
 * Nothing here sleeps: "not yet" is always a parked request and a null answer, so no concurrency slot
 * is held while a host waits. "Due" is only a look at the schedule (`nextStart`): the slot is
 * reserved when the request really goes out (see host-holds.ts).
 */
import type { Log, Request } from '@crawlee/core';
import { RequestState } from '@crawlee/core';
import type { Decision, DisallowedDecision, Politeness } from '@politely/core';
import { isHttpUrl } from './enqueue-filter.js';
import { HostHolds } from './host-holds.js';
import { type ParkedRequest, ParkingLot } from './parking-lot.js';
import type { Reporter } from './reporter.js';

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
  /** Something changed that may make a parked request ready (a robots.txt decision came in). */
  readonly changed: () => void;
}

export class Admission {
  readonly lot = new ParkingLot();
  readonly holds = new HostHolds();
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
    if (this.lot.isHostBusy(host, now()) || this.holds.holds(host) || !this.lot.claim(host)) {
      this.lot.park(entry);
      return null;
    }
    return this.handOverOrPark(entry, false);
  }

  /** True when `takeDue` has something to try. */
  hasReady(now: number): boolean {
    return this.lot.readyHeads(now, this.isHeld).length > 0;
  }

  /** When the next parked host comes due by itself (Infinity when none will). */
  earliestDue(): number {
    return this.lot.earliestDue(this.isHeld);
  }

  /** Serves the first parked request whose host is due. */
  async takeDue(): Promise<Request | null> {
    for (const entry of this.lot.readyHeads(this.options.now(), this.isHeld)) {
      // Claimed before awaiting, so concurrent calls never hand out the same request twice.
      if (!this.lot.claim(entry.host)) continue;
      // The list was taken before an earlier await: a concurrent call may have served this one since.
      if (!this.lot.contains(entry) || this.holds.holds(entry.host)) {
        this.lot.release(entry.host);
        continue;
      }
      this.lot.remove(entry);
      const request = await this.handOverOrPark(entry, true);
      if (request) return request;
    }
    return null;
  }

  /** A request to the host reserved its slot and went out at `at`: the host is free, due a delay later. */
  sent(decision: Decision, at: number): void {
    this.holds.sent(decision.hostKey);
    this.lot.updateDueAt(decision.hostKey, at + decision.delayMs);
  }

  /** The crawler is done with a request; a host it still held counts it as sent now. */
  finished(request: Request): void {
    const decision = this.holds.finished(request);
    if (!decision) return;
    this.lot.updateDueAt(decision.hostKey, this.options.now() + decision.delayMs);
    this.options.track(this.options.politeness.markSent(decision));
  }

  private readonly isHeld = (host: string): boolean => this.holds.holds(host);

  /**
   * Hands the request out if its host is due, else parks it until then. The caller holds the host's
   * claim, released here.
   */
  private async handOverOrPark(entry: ParkedRequest, atFront: boolean): Promise<Request | null> {
    const { politeness, reporter, now } = this.options;
    const decision = entry.decision as Decision;
    try {
      const dueAt = await politeness.nextStart(decision).catch((error: unknown) => {
        // The send-time reservation still paces; only the hand-out hint is lost.
        if (!this.warnedSchedulerError) {
          this.warnedSchedulerError = true;
          this.options.log.warning('politely: the scheduler failed; requests are paced only when sent', {
            error: String(error),
          });
        }
        return now();
      });
      if (dueAt > now()) {
        this.lot.setDueAt(entry.host, dueAt);
        reporter.nextSlot(entry.host, dueAt);
        this.lot.park(entry, atFront);
        return null;
      }
      this.holds.hold(entry.host, entry.request, decision);
      reporter.fetched(entry.host);
      return entry.request;
    } finally {
      this.lot.release(entry.host);
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
          this.options.changed();
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
  private async skip(request: Request, decision: DisallowedDecision): Promise<void> {
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
    await this.options.reporter.skipped({ url: request.url, stage: 'dequeue', decision });
  }
}
