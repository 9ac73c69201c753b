/**
 * The request-manager wrapper: every request, whatever its source, passes `fetchNextRequest` here
 * before a slot, a session or an HTTP request is spent on it. Disallowed: skipped with Crawlee's own
 * bookkeeping. Host not due: parked, and the next due request is served instead, so no slot is held
 * while waiting. The binding slot is taken when the request is sent (the HTTP client or the browser
 * calls `sent`); used on its own, with nothing calling `sent`, the manager hands out one request per
 * host at a time, the next a full delay after the previous one was done. Which request may go next is
 * core's frontier (`@politely/core/frontier`); this file is the Crawlee side of it.
 * Design after Crawlee 4's ThrottlingRequestManager (which also returns null and reports empty while
 * only throttled hosts remain).
 */
import type {
  AddRequestsBatchedOptions,
  AddRequestsBatchedResult,
  Log,
  Request,
  RequestProvider,
  RequestQueueOperationOptions,
  RequestsLike,
  Source,
} from '@crawlee/core';
import { RequestState } from '@crawlee/core';
import type { Decision, DisallowedDecision, Politeness } from '@politely/core';
import { robotsTransportError } from '@politely/core/adapter';
import { createFrontier, type Frontier } from '@politely/core/frontier';
import { CrawlEnd, type CrawlEvents } from './crawl-end.js';
import type { HandOutLead } from './hand-out-lead.js';
import { LockKeeper } from './lock-keeper.js';
import type { Reporter } from './reporter.js';
import type { CrawleePolitenessStats } from './types.js';

/**
 * Crawlee's request-manager seat: its `IRequestManager` is exported only since 3.14 and the peer range
 * starts at 3.13, so the methods are taken from `RequestProvider` (both versions export it; the version
 * matrix type-checks against both). 3.13's has no async iterator yet.
 */
export interface RequestManagerLike
  extends Pick<
    RequestProvider,
    | 'isFinished'
    | 'isEmpty'
    | 'handledCount'
    | 'getTotalCount'
    | 'getPendingCount'
    | 'fetchNextRequest'
    | 'markRequestHandled'
    | 'reclaimRequest'
    | 'addRequest'
    | 'addRequestsBatched'
  > {
  [Symbol.asyncIterator](): AsyncGenerator<Request>;
}

/** The parts of Crawlee's RequestQueue (v1 or v2) used beyond the request-manager seat, all optional. */
export interface InnerQueue extends RequestManagerLike {
  name?: string | undefined;
  config?: unknown;
  id?: string;
  requestLockSecs?: number;
  internalTimeoutMillis?: number;
  client?: { prolongRequestLock?(id: string, options: { lockSecs: number }): Promise<unknown> };
  addRequests?(requests: RequestsLike, options?: RequestQueueOperationOptions): Promise<unknown>;
  getRequest?(id: string): Promise<unknown>;
  getInfo?(): Promise<unknown>;
  drop?(): Promise<void>;
  /**
   * True for a request this source serves again before any other once reclaimed (a RequestList's
   * retry comes next: list-first.ts); the manager then keeps it and hands it out next itself.
   */
  retriesFirst?(request: Request): boolean;
  /**
   * True for a request this source counts in progress while the manager holds it, and wants back
   * unhandled when the crawl stops before it was handed out (a RequestList's: list-first.ts).
   */
  takesBack?(request: Request): boolean;
}

export interface PoliteRequestManagerOptions {
  readonly politeness: Politeness;
  /** Opens the wrapped queue; called once, on first use (after the crawler purged default storages). */
  readonly openInner: () => Promise<InnerQueue>;
  /**
   * Called once, synchronously, when a crawler takes this manager as its queue: its constructor sets
   * `requestLockSecs` (before anything opened the wrapped queue). See crawler-config.ts.
   */
  readonly onSeated?: () => void;
  readonly reporter: Reporter;
  readonly log: Log;
  readonly maxParked: number;
  readonly filterOnEnqueue: boolean;
  readonly now: () => number;
  /**
   * Longest nap of `isEmpty()` waiting for work (the frontier's `waitForWork`); 0, the default,
   * answers at once.
   */
  readonly maxNapMs?: number;
  /** Told of every request pulled from the wrapped queue (sitemap-enqueuer.ts); tracked until done. */
  readonly met?: (url: string) => Promise<void> | undefined;
  /** Learns how long a handed-out request takes to reach the HTTP client (hand-out-lead.ts). */
  readonly handOutLead?: HandOutLead;
  /**
   * A crawler's task for `request` ended, whatever ended it: the request came back done, failed or to
   * be retried (navigation-bodies.ts drops the response bodies the task left unread).
   */
  readonly taskEnded?: (request: Request) => void;
  /**
   * The crawl's event manager (the crawler's), where the manager sees the crawl end (crawl-end.ts)
   * and gives back what it read ahead of a source that `takesBack`.
   */
  readonly crawlEvents?: () => CrawlEvents | undefined;
}

/** Requests pulled from the inner queue per `fetchNextRequest` call at most, looking for a due one. */
const PULL_LIMIT = 25;
/**
 * How long an "empty" answer of the wrapped queue is reused. The plugin asks the crawler to poll
 * often (parked hosts come due at any moment); this keeps the wrapped queue, which may be a remote
 * API, polled no more often than Crawlee's default. Adds through this wrapper clear it at once.
 */
const INNER_EMPTY_REUSE_MS = 500;

/** Longest nap of `isEmpty()` after a look that found nothing though the queue has items. */
const FRUITLESS_NAP_MS = 100;

export const MANAGER_BRAND = Symbol.for('politely.crawlee.request-manager');

export class PoliteRequestManager implements RequestManagerLike {
  readonly [MANAGER_BRAND] = true;
  private readonly frontier: Frontier<Request>;
  private readonly lockKeeper: LockKeeper;
  private inner: InnerQueue | undefined;
  private opening: Promise<InnerQueue> | undefined;
  private lockSecs: number | undefined;
  private timeoutMillis: number | undefined;
  private innerEmptyUntil = Number.NEGATIVE_INFINITY;
  private seated = false;
  /**
   * Requests `isEmpty()` found due, each for the task its "not empty" starts: Crawlee takes a session
   * for a task before it asks for the request, so a task that found nothing would have made a session
   * for nothing.
   */
  private readonly ready: Request[] = [];
  /** Retries their source serves before any other request (`retriesFirst`), until handed out again. */
  private readonly retriedFirst = new WeakSet<Request>();
  /** The crawl's end, where requests read ahead of a list go back to it (`giveBack`). */
  private readonly crawlEnd: CrawlEnd;
  /** Calls under way that may bring a request in: `isEmpty`, `fetchNextRequest`, `reclaimRequest`. */
  private calls = 0;
  /** Requests handed out whose task has not ended, each with the give-back it went out after. */
  private readonly out = new Map<Request, number>();
  /** Give-backs at a crawl's end so far. */
  private givenBack = 0;
  /**
   * Calls and tasks under way at the last give-back (a crawl torn down mid-flight); what they bring in
   * (a retry, a request found due) goes back too once the last of them ends.
   */
  private stragglers = 0;

  constructor(private readonly options: PoliteRequestManagerOptions) {
    const { log } = options;
    this.frontier = createFrontier<Request>(options.politeness, {
      now: options.now,
      logger: { warn: (message, data) => log.warning(`politely: ${message}`, data) },
      onSkip: (request, decision) => this.skip(request, decision),
      onCheckFailed: async (request, error) => {
        // check() only rejects on a bug; hand the request back to the queue rather than lose it.
        log.warning('politely: robots.txt check failed; request returned to the queue', {
          url: request.url,
          error: String(error),
        });
        await this.open()
          .then((inner) => inner.reclaimRequest(request))
          .catch(() => undefined);
      },
      maxParked: options.maxParked,
    });
    this.lockKeeper = new LockKeeper(options.log);
    this.crawlEnd = new CrawlEnd(
      () => options.crawlEvents?.(),
      (last) => this.saved(last),
    );
  }

  get requestLockSecs(): number | undefined {
    return this.inner?.requestLockSecs ?? this.lockSecs;
  }
  set requestLockSecs(value: number | undefined) {
    if (!this.seated && !this.opening) this.options.onSeated?.();
    this.seated = true;
    this.lockSecs = value;
    if (this.inner && value !== undefined) this.inner.requestLockSecs = value;
  }
  get internalTimeoutMillis(): number | undefined {
    return this.inner?.internalTimeoutMillis ?? this.timeoutMillis;
  }
  set internalTimeoutMillis(value: number | undefined) {
    this.timeoutMillis = value;
    if (this.inner && value !== undefined) this.inner.internalTimeoutMillis = value;
  }
  /**
   * Deliberately not the inner queue's name: Crawlee drops and replaces a queue named 'default' when
   * `run()` is called a second time, which would silently unwrap it.
   */
  get name(): string | undefined {
    return undefined;
  }
  get id(): string | undefined {
    return this.inner?.id;
  }
  /** The wrapped queue's Configuration, as Crawlee's own queue shows it. */
  get config(): unknown {
    return this.inner?.config;
  }

  /** Requests parked right now, per host. */
  parkedByHost(): Map<string, number> {
    return new Map(this.frontier.hosts().flatMap(({ host, parked }) => (parked > 0 ? [[host, parked]] : [])));
  }

  /**
   * The plugin's counters (`crawlStats`): the frontier's per host and its total of requests handed
   * out (the total, since `hosts()` forgets hosts out of play), with the reporter's skips.
   */
  crawlStats(): CrawleePolitenessStats {
    return this.options.reporter.stats(this.frontier.hosts(), this.frontier.handedOut);
  }

  /** Ids of the requests parked right now, oldest host lanes first. */
  parkedRequestIds(): string[] {
    return [...this.frontier.parked()].flatMap(({ item }) => (item.id ? [item.id] : []));
  }

  async fetchNextRequest<
    T extends Record<string, unknown> = Record<string, unknown>,
  >(): Promise<Request<T> | null> {
    return this.underWay(async () => {
      const next = this.ready.shift() ?? (await this.nextDue());
      if (next) {
        this.retriedFirst.delete(next);
        // Counted only where a crawl's end gives requests back (a list's): `saved`, `stragglers`.
        if (this.inner?.takesBack) this.out.set(next, this.givenBack);
        this.options.handOutLead?.handedOut(next.url);
      }
      return (next as Request<T> | undefined) ?? null;
    });
  }

  private async nextDue(): Promise<Request | undefined> {
    const inner = await this.open();
    if (inner.takesBack) this.crawlEnd.arm();
    this.lockKeeper.sweep(inner, this.frontier.parked(), this.options.now());
    return this.frontier.next(() => this.pull(inner), { limit: PULL_LIMIT });
  }

  /**
   * One request from the wrapped queue for the frontier. A queue that just had none is not asked again
   * for `INNER_EMPTY_REUSE_MS` unless requests were added through this wrapper (as `isEmpty`): with
   * the crawl's pending requests parked here, the queue's head is empty after every pull, and each
   * refill of RequestQueue v2 (`listAndLockHead`) reads every locked request, parked ones included,
   * from its storage, as Crawlee's memory storage does from disk.
   */
  private async pull(inner: InnerQueue): Promise<Request | null> {
    const now = this.options.now();
    if (now < this.innerEmptyUntil) return null;
    const request = await inner.fetchNextRequest();
    if (!request) {
      this.innerEmptyUntil = now + INNER_EMPTY_REUSE_MS;
      return null;
    }
    const meeting = this.options.met?.(request.url);
    if (meeting) this.frontier.track(meeting);
    return request;
  }

  /**
   * Not empty only with a request due in hand (kept in `ready` for the task this answer starts), so
   * no task of Crawlee's starts, and takes a session, for nothing. While none is due, naps
   * (`frontier.waitForWork`, up to `maxNapMs`) until a parked host comes due, a held host may free, a
   * robots.txt check ends or requests are added, and looks again: Crawlee's pool would otherwise ask
   * again only at its next tick (`maybeRunIntervalSecs`) or when a task ends. The pool runs one
   * readiness check at a time and holds no concurrency slot meanwhile.
   */
  async isEmpty(): Promise<boolean> {
    if (this.ready.length > 0) return false;
    return this.underWay(() => this.findsNoneDue());
  }

  private async findsNoneDue(): Promise<boolean> {
    const inner = await this.open();
    const end = performance.now() + (this.options.maxNapMs ?? 0);
    for (let fruitless = false; ; fruitless = true) {
      const next = await this.nextDue();
      if (next) {
        this.ready.push(next);
        return false;
      }
      if (fruitless) {
        // Work was promised and none came: the queue serves only what the frontier holds already (a
        // request served again once its lock lapsed, whose parked copy stays in charge). Nap until a
        // change rather than ask again at once: that loop never yields, and no timer, the handler's
        // own included, would run.
        const left = end - performance.now();
        if (left <= 0) return this.ready.length === 0;
        await this.frontier.nap(Math.min(left, FRUITLESS_NAP_MS));
      }
      const maxMs = Math.max(0, end - performance.now());
      const more = await this.frontier.waitForWork({ maxMs, sourceEmpty: () => this.innerIsEmpty(inner) });
      // A request whose robots.txt got no answer goes to `ready` as its check ends (skip()), not back
      // to the frontier, which may then have nothing left to wait for: it is the work this wait was for.
      if (this.ready.length > 0) return false;
      if (!more) return true;
    }
  }

  /** A request to the decision's host reserved its slot and went out at `at`. */
  sent(decision: Decision, at: number = this.options.now()): void {
    this.frontier.sent(decision, at);
  }

  async isFinished(): Promise<boolean> {
    return this.ready.length === 0 && this.frontier.idle && (await this.open()).isFinished();
  }

  async markRequestHandled(request: Request) {
    this.taskEnded(request);
    try {
      return await (await this.open()).markRequestHandled(request);
    } finally {
      this.taskDone(request);
    }
  }

  async reclaimRequest(request: Request, options?: RequestQueueOperationOptions) {
    this.taskEnded(request);
    return this.underWay(async () => {
      try {
        const inner = await this.open();
        if (inner.retriesFirst?.(request)) {
          // Next, as the list would serve it, ahead of what the frontier parked meanwhile (and no less
          // polite: its host held again, or the request parked until the host is due).
          this.retriedFirst.add(request);
          const again = await this.frontier.admit(request, { first: true });
          if (again) this.ready.unshift(again);
          this.frontier.wake();
          return null;
        }
        this.added();
        return await inner.reclaimRequest(request, options);
      } finally {
        // After the retry is held again: a crawl that ended meanwhile gives it back (`stragglers`).
        this.taskDone(request);
      }
    });
  }

  /**
   * Gives every request read ahead of a source that `takesBack` (a RequestList), and not handed out,
   * back to it unhandled (`reclaimRequest`, as Crawlee gives back a request it did not finish): the
   * source serves it again, to this crawl if it goes on or to the next one, whose robots.txt check it
   * passes again. Nothing is lost (the request stays the source's, in progress there until served
   * again) and nothing is handed out twice (a request handed out is not held here).
   */
  private async giveBack(): Promise<void> {
    const inner = this.inner;
    const takesBack = inner?.takesBack?.bind(inner);
    if (!inner || !takesBack) return;
    const ready: Request[] = [];
    for (let i = this.ready.length - 1; i >= 0; i--) {
      const request = this.ready[i] as Request;
      if (!takesBack(request)) continue;
      this.ready.splice(i, 1);
      ready.unshift(request);
    }
    // Due first, then by host lane in order: the source serves what it got back in this order.
    const held = [...ready, ...this.frontier.takeBack(takesBack)];
    if (held.length === 0) return;
    this.added(); // the source has them again: asked at the next look
    // All at once: a RequestList takes each back as it is called, before anything else reads it.
    await Promise.all(
      held.map(async (request) => {
        this.retriedFirst.delete(request);
        try {
          await inner.reclaimRequest(request);
        } catch (error) {
          this.options.log.warning('politely: could not give a request back to the list', {
            url: request.url,
            error: String(error),
          });
        }
      }),
    );
  }

  /**
   * The crawl saved its state (crawl-end.ts). At the event manager's last save the crawl is over: what
   * is held goes back now, and what calls and tasks still under way bring in goes back once they end.
   * At another save (periodic, or the end of a crawl whose event manager the crawler did not start),
   * only when nothing is under way: no task out, no call looking for work, as at a crawl's end; the
   * crawl, if it goes on, reads them again.
   */
  private saved(last: boolean): Promise<void> | undefined {
    const underWay = this.calls + this.out.size;
    if (!last && underWay > 0) return undefined;
    this.crawlEnd.disarm();
    this.givenBack++;
    this.stragglers = underWay;
    return this.giveBack();
  }

  /** Runs a call that may bring a request in, counted as under way (`saved`, `stragglers`). */
  private async underWay<R>(call: () => Promise<R>): Promise<R> {
    const since = this.givenBack;
    this.calls++;
    try {
      return await call();
    } finally {
      this.calls--;
      this.straggled(since);
    }
  }

  /** A request's task ended: it no longer holds its host back. */
  private taskEnded(request: Request): void {
    // First: a body the task left unread gives its host's place back before the host is released.
    this.options.taskEnded?.(request);
    this.frontier.finished(request);
    this.options.handOutLead?.forget(request.url);
  }

  /** A request handed out came back (handled, or reclaimed and held again). */
  private taskDone(request: Request): void {
    const since = this.out.get(request);
    this.out.delete(request);
    if (since !== undefined) this.straggled(since);
  }

  /** A call or task under way at the last give-back ended: after the last of them, one more. */
  private straggled(since: number): void {
    if (since < this.givenBack && this.stragglers > 0 && --this.stragglers === 0) {
      void this.giveBack();
    }
  }

  async handledCount(): Promise<number> {
    return (await this.open()).handledCount();
  }

  getTotalCount(): number {
    return this.inner?.getTotalCount() ?? 0;
  }

  getPendingCount(): number {
    return this.inner?.getPendingCount() ?? 0;
  }

  addRequest(requestLike: Source, options?: RequestQueueOperationOptions) {
    // Single adds (also RequestList -> queue transfers) are not pre-filtered: the dequeue check decides.
    return this.adding((inner) => inner.addRequest(requestLike, options));
  }

  addRequestsBatched(
    requests: RequestsLike,
    options?: AddRequestsBatchedOptions,
  ): Promise<AddRequestsBatchedResult> {
    return this.adding((inner) => inner.addRequestsBatched(this.filterOnEnqueue(requests), options));
  }

  /** RequestQueue's own batch add, for users who call it on `crawler.getRequestQueue()`. */
  addRequests(requests: RequestsLike, options?: RequestQueueOperationOptions): Promise<unknown> {
    return this.adding(async (inner) => {
      if (!inner.addRequests)
        throw new TypeError('The wrapped request manager has no addRequests(); use addRequestsBatched()');
      const kept: (Source | string)[] = [];
      for await (const source of this.filterOnEnqueue(requests)) kept.push(source);
      return inner.addRequests(kept, options);
    });
  }

  /** An add to the wrapped queue, told (`added`) as it starts and once it is done. */
  private async adding<R>(add: (inner: InnerQueue) => Promise<R>): Promise<R> {
    this.added();
    const result = await add(await this.open());
    this.added();
    return result;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Request> {
    while (true) {
      const request = await this.fetchNextRequest();
      if (request) {
        yield request;
      } else if (await this.isFinished()) {
        return;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async getRequest(id: string): Promise<unknown> {
    return (await this.open()).getRequest?.(id) ?? null;
  }

  async getInfo(): Promise<unknown> {
    return (await this.open()).getInfo?.();
  }

  async drop(): Promise<void> {
    await (await this.open()).drop?.();
  }

  /** Waits for background robots checks, skip bookkeeping and the frontier's work (tests, shutdown). */
  settled(): Promise<void> {
    return this.frontier.settled();
  }

  private open(): Promise<InnerQueue> {
    this.opening ??= this.options.openInner().then((inner) => {
      if (this.lockSecs !== undefined) inner.requestLockSecs = this.lockSecs;
      if (this.timeoutMillis !== undefined) inner.internalTimeoutMillis = this.timeoutMillis;
      this.inner = inner;
      return inner;
    });
    return this.opening;
  }

  /** Requests were added: the wrapped queue is asked again, and a napping `isEmpty()` wakes. */
  private added(): void {
    this.innerEmptyUntil = Number.NEGATIVE_INFINITY;
    this.frontier.wake();
  }

  private async innerIsEmpty(inner: InnerQueue): Promise<boolean> {
    const now = this.options.now();
    if (now < this.innerEmptyUntil) return true;
    const empty = await inner.isEmpty();
    if (empty) this.innerEmptyUntil = now + INNER_EMPTY_REUSE_MS;
    return empty;
  }

  private filterOnEnqueue(requests: RequestsLike): RequestsLike {
    return this.options.filterOnEnqueue ? this.screened(requests) : requests;
  }

  /**
   * The cheap half of the robots.txt check, as requests are enqueued (`frontier.screen`): what rules in
   * memory refuse is dropped and reported (not a robots.txt that got no answer), the rest goes through. Never blocks on I/O, unlike
   * Crawlee's serial check in addRequests.
   */
  private async *screened(requests: RequestsLike): AsyncGenerator<Source | string> {
    for await (const source of requests) {
      const url = typeof source === 'string' ? source : source.url;
      const screened = typeof url === 'string' ? this.frontier.screen(url) : undefined;
      // A robots.txt that got no answer refuses nothing here: the request is queued, and at its turn
      // it asks again (through its own proxy) or fails with the transport's error, as at dequeue.
      const decision = screened && !robotsTransportError(screened) ? screened : undefined;
      if (decision)
        this.frontier.track(this.options.reporter.skipped({ url: String(url), stage: 'enqueue', decision }));
      else yield source;
    }
  }

  /**
   * Crawlee's own skip bookkeeping (as its respectRobotsTxtFile path): SKIPPED, handled, not retried.
   * Not for a robots.txt that failed at the transport (a dead proxy, a refused connection): that
   * request is handed out all the same, and its navigation, which asks for robots.txt again (through
   * the crawler's next proxy; core keeps no first transport failure), fails with the transport's error
   * if it fails again, before the page is sent: a failed attempt Crawlee retries, rotating its
   * session and proxy, up to its failedRequestHandler, as when the page itself fails so.
   */
  private async skip(request: Request, decision: DisallowedDecision): Promise<void> {
    if (robotsTransportError(decision)) {
      if (this.retriedFirst.has(request)) this.ready.unshift(request);
      else this.ready.push(request);
      this.frontier.wake();
      return;
    }
    request.state = RequestState.SKIPPED;
    request.noRetry = true;
    try {
      await (await this.open()).markRequestHandled(request);
    } catch (error) {
      this.options.log.warning('politely: could not mark a skipped request as handled', {
        url: request.url,
        error: String(error),
      });
    }
    await this.options.reporter.skipped({ url: request.url, stage: 'dequeue', decision });
  }

  /*
   * Crawlee 4's `SupportsDomainThrottling` (read from apify/crawlee master, not run: no 4.0 release).
   * Crawlee 4 wraps a request manager without these three methods in its own ThrottlingRequestManager
   * when `sameDomainDelaySecs` is set, which opens per-domain queues the requests then take instead of
   * this one; and it warns that nothing honours a 429 or a Crawl-delay. With them it hands both to the
   * manager. Crawlee 3 never calls them.
   */

  /**
   * A 429 the crawler saw. The HTTP client decorator or the page guard fed that response to the facade
   * already (the host is backed off by its Retry-After), so there is nothing to add: `true` tells
   * Crawlee the delay is taken care of, and it reclaims the request, which waits here until its host
   * is due, at no retry's cost.
   */
  recordDomainDelay(_url: string, _retryAfterMs?: number | null): boolean {
    return true;
  }

  /** A Crawl-delay Crawlee read (with `respectRobotsTxtFile`): politely paces by its own reading of it. */
  setCrawlDelay(_url: string, _delaySeconds: number): boolean {
    return true;
  }

  /** Crawlee 4 aborts a crawl stalled on one domain; politely parks its requests instead, so none is. */
  async assertNoStalledDomains(): Promise<void> {}
}
