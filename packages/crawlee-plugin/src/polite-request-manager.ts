/**
 * The request-manager wrapper: every request, whatever its source (start URLs, addRequests,
 * enqueueLinks, sitemaps, a persisted queue), passes `fetchNextRequest` here before a slot, a session
 * or an HTTP request is spent on it. Disallowed: skipped with Crawlee's own bookkeeping. Host not due:
 * parked, and the next due request is served instead, so no slot is held while waiting.
 * Design after notes/crawlee.md §4 and Crawlee 4's ThrottlingRequestManager (which also returns null
 * and reports empty while only throttled hosts remain).
 */
import type {
  AddRequestsBatchedOptions,
  AddRequestsBatchedResult,
  IRequestManager,
  Log,
  Request,
  RequestQueueOperationOptions,
  RequestsLike,
  Source,
} from '@crawlee/core';
import { RequestState } from '@crawlee/core';
import type { Decision, Politeness } from '@politely/core';
import type { ParkedRequest } from './parking-lot.js';
import { ParkingLot } from './parking-lot.js';
import type { Reporter } from './reporter.js';
import type { SkipReason, SkipStage } from './types.js';

/** The parts of Crawlee's RequestQueue (v1 or v2) used beyond IRequestManager, all optional. */
export interface InnerQueue extends IRequestManager {
  name?: string | undefined;
  id?: string;
  requestLockSecs?: number;
  internalTimeoutMillis?: number;
  client?: { prolongRequestLock?(id: string, options: { lockSecs: number }): Promise<unknown> };
  addRequests?(requests: RequestsLike, options?: RequestQueueOperationOptions): Promise<unknown>;
  getRequest?(id: string): Promise<unknown>;
  getInfo?(): Promise<unknown>;
  drop?(): Promise<void>;
}

export interface PoliteRequestManagerOptions {
  readonly politeness: Politeness;
  /** Opens the wrapped queue; called once, on first use (after the crawler purged default storages). */
  readonly openInner: () => Promise<InnerQueue>;
  readonly reporter: Reporter;
  readonly log: Log;
  readonly maxParked: number;
  readonly filterOnEnqueue: boolean;
  readonly now: () => number;
}

/** Requests pulled from the inner queue per `fetchNextRequest` call at most, looking for a due one. */
const PULL_LIMIT = 25;
/** Origins remembered as "robots.txt prefetch started", to avoid one prefetch call per enqueued URL. */
const PREFETCH_MEMORY = 10_000;

export const MANAGER_BRAND = Symbol.for('politely.crawlee.request-manager');

const isHttpUrl = (url: string): boolean => url.startsWith('http://') || url.startsWith('https://');

export class PoliteRequestManager implements IRequestManager {
  readonly [MANAGER_BRAND] = true;
  private readonly lot = new ParkingLot();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly prefetched = new Set<string>();
  private inner: InnerQueue | undefined;
  private opening: Promise<InnerQueue> | undefined;
  private lockSecs: number | undefined;
  private timeoutMillis: number | undefined;
  private lastLockSweep = 0;
  private warnedSchedulerError = false;

  constructor(private readonly options: PoliteRequestManagerOptions) {}

  // --- settings the crawler writes onto its queue, forwarded to the wrapped one -----------------

  get requestLockSecs(): number | undefined {
    return this.inner?.requestLockSecs ?? this.lockSecs;
  }
  set requestLockSecs(value: number | undefined) {
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

  /** Requests parked right now, per host. */
  parkedByHost(): Map<string, number> {
    return this.lot.countByHost();
  }

  // --- IRequestManager ----------------------------------------------------------------------------

  async fetchNextRequest<
    T extends Record<string, unknown> = Record<string, unknown>,
  >(): Promise<Request<T> | null> {
    const inner = await this.open();
    this.sweepLocks(inner);
    const parked = await this.takeDueParked();
    if (parked) return parked as Request<T>;
    for (let pulled = 0; pulled < PULL_LIMIT && this.lot.size < this.options.maxParked; pulled++) {
      const request = await inner.fetchNextRequest();
      if (!request) break;
      // The queue serves a parked request again once its lock lapsed; the parked copy stays in charge.
      if (this.lot.holds(request.id)) continue;
      const admitted = await this.admit(request);
      if (admitted) return admitted as Request<T>;
    }
    return null;
  }

  async isEmpty(): Promise<boolean> {
    const inner = await this.open();
    this.sweepLocks(inner);
    if (this.lot.hasReady(this.options.now())) return false;
    if (this.lot.size >= this.options.maxParked) return true;
    return inner.isEmpty();
  }

  async isFinished(): Promise<boolean> {
    if (this.lot.size > 0 || this.pending.size > 0) return false;
    return (await this.open()).isFinished();
  }

  async markRequestHandled(request: Request) {
    return (await this.open()).markRequestHandled(request);
  }

  async reclaimRequest(request: Request, options?: RequestQueueOperationOptions) {
    return (await this.open()).reclaimRequest(request, options);
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

  async addRequest(requestLike: Source, options?: RequestQueueOperationOptions) {
    // Single adds (also RequestList -> queue transfers) are not pre-filtered: the dequeue check decides.
    return (await this.open()).addRequest(requestLike, options);
  }

  async addRequestsBatched(
    requests: RequestsLike,
    options?: AddRequestsBatchedOptions,
  ): Promise<AddRequestsBatchedResult> {
    return (await this.open()).addRequestsBatched(this.filterOnEnqueue(requests), options);
  }

  /** RequestQueue's own batch add, for users who call it on `crawler.getRequestQueue()`. */
  async addRequests(requests: RequestsLike, options?: RequestQueueOperationOptions): Promise<unknown> {
    const inner = await this.open();
    if (!inner.addRequests)
      throw new TypeError('The wrapped request manager has no addRequests(); use addRequestsBatched()');
    const kept: (Source | string)[] = [];
    for await (const source of this.filterOnEnqueue(requests)) kept.push(source);
    return inner.addRequests(kept, options);
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

  // --- RequestQueue conveniences, forwarded ------------------------------------------------------

  async getRequest(id: string): Promise<unknown> {
    return (await this.open()).getRequest?.(id) ?? null;
  }

  async getInfo(): Promise<unknown> {
    return (await this.open()).getInfo?.();
  }

  async drop(): Promise<void> {
    await (await this.open()).drop?.();
  }

  /** Waits for background robots checks and skip bookkeeping (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  // --- internals ---------------------------------------------------------------------------------

  private open(): Promise<InnerQueue> {
    this.opening ??= this.options.openInner().then((inner) => {
      if (this.lockSecs !== undefined) inner.requestLockSecs = this.lockSecs;
      if (this.timeoutMillis !== undefined) inner.internalTimeoutMillis = this.timeoutMillis;
      this.inner = inner;
      return inner;
    });
    return this.opening;
  }

  /** Decides about a freshly dequeued request: hand it over, skip it, or park it. */
  private async admit(request: Request): Promise<Request | null> {
    const { politeness } = this.options;
    // Non-HTTP URLs are not ours to judge; Crawlee reports them itself.
    if (!isHttpUrl(request.url)) return request;
    const host = politeness.hostKey(request.url);
    const decision = politeness.checkCached(request.url);
    if (!decision) {
      this.parkUntilChecked(request, host);
      return null;
    }
    if (!decision.allowed) {
      await this.skip(request, decision, 'dequeue');
      return null;
    }
    const entry: ParkedRequest = { request, host, decision, lockTouchedAt: this.options.now() };
    if (this.lot.isHostBusy(host, this.options.now()) || !this.lot.claim(host)) {
      this.lot.park(entry);
      return null;
    }
    return this.reserveOrPark(entry, false);
  }

  /** Serves the first parked request whose host is due and whose slot the scheduler grants. */
  private async takeDueParked(): Promise<Request | null> {
    for (const entry of this.lot.readyHeads(this.options.now())) {
      // Claimed before awaiting, so concurrent calls never hand out the same request twice.
      if (!this.lot.claim(entry.host)) continue;
      this.lot.remove(entry);
      const request = await this.reserveOrPark(entry, true);
      if (request) return request;
    }
    return null;
  }

  /** Asks the scheduler for a slot; the caller holds the host's claim, released here. */
  private async reserveOrPark(entry: ParkedRequest, atFront: boolean): Promise<Request | null> {
    try {
      return await this.tryReserve(entry, atFront);
    } finally {
      this.lot.release(entry.host);
    }
  }

  private async tryReserve(entry: ParkedRequest, atFront: boolean): Promise<Request | null> {
    const decision = entry.decision as Decision;
    let slot: Awaited<ReturnType<Politeness['tryReserve']>>;
    try {
      slot = await this.options.politeness.tryReserve(decision);
    } catch (error) {
      // The facade falls back to in-process pacing on its own; anything else must not stop the crawl.
      if (!this.warnedSchedulerError) {
        this.warnedSchedulerError = true;
        this.options.log.warning('politely: the scheduler failed; requests go out unpaced', {
          error: String(error),
        });
      }
      this.options.reporter.fetched(entry.host);
      return entry.request;
    }
    if (slot.ok) {
      this.options.reporter.fetched(entry.host);
      return entry.request;
    }
    this.lot.setDueAt(entry.host, this.options.now() + slot.waitMs);
    this.options.reporter.nextSlot(entry.host, slot.notBefore);
    this.lot.park(entry, atFront);
    return null;
  }

  /** The origin's rules are not in memory: park the request and let the (single-flight) check run. */
  private parkUntilChecked(request: Request, host: string): void {
    const entry: ParkedRequest = { request, host, decision: undefined, lockTouchedAt: this.options.now() };
    this.lot.park(entry);
    this.track(
      this.options.politeness.check(request.url).then(
        async (decision) => {
          if (!this.lot.contains(entry)) return;
          if (decision.allowed) {
            entry.decision = decision;
            return;
          }
          this.lot.remove(entry);
          await this.skip(request, decision, 'dequeue');
        },
        async (error: unknown) => {
          // check() only rejects on a bug; hand the request back to the queue rather than lose it.
          this.options.log.warning('politely: robots.txt check failed; request returned to the queue', {
            url: request.url,
            error: String(error),
          });
          this.lot.remove(entry);
          await this.reclaimRequest(request).catch(() => undefined);
        },
      ),
    );
  }

  /** Crawlee's own skip bookkeeping (as its respectRobotsTxtFile path): SKIPPED, handled, not retried. */
  private async skip(request: Request, decision: Decision, stage: SkipStage): Promise<void> {
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
    await this.options.reporter.skipped({
      url: request.url,
      reason: decision.reason as SkipReason,
      stage,
      decision,
      host: decision.hostKey,
      request,
    });
  }

  private async *filterOnEnqueue(requests: RequestsLike): AsyncGenerator<Source | string> {
    for await (const source of requests) {
      if (!this.options.filterOnEnqueue || this.keepOnEnqueue(source)) yield source;
    }
  }

  /** Drops a URL whose rules are already in memory and say no; otherwise warms its robots.txt. */
  private keepOnEnqueue(source: Source | string): boolean {
    const url = typeof source === 'string' ? source : source.url;
    if (typeof url !== 'string' || !isHttpUrl(url)) return true;
    const { politeness } = this.options;
    const decision = politeness.checkCached(url);
    if (!decision) {
      this.prefetchOnce(url);
      return true;
    }
    if (decision.allowed) return true;
    this.track(
      this.options.reporter.skipped({
        url,
        reason: decision.reason as SkipReason,
        stage: 'enqueue',
        decision,
        host: decision.hostKey,
      }),
    );
    return false;
  }

  private prefetchOnce(url: string): void {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return;
    }
    if (this.prefetched.has(origin)) return;
    if (this.prefetched.size >= PREFETCH_MEMORY) this.prefetched.clear();
    this.prefetched.add(origin);
    this.options.politeness.prefetch(url);
  }

  /**
   * Parked requests keep their queue lock: prolong locks older than half the lock time, at most
   * every quarter of it. Without this, the queue would hand them out again once the lock lapsed.
   */
  private sweepLocks(inner: InnerQueue): void {
    const prolong = inner.client?.prolongRequestLock?.bind(inner.client);
    const lockSecs = inner.requestLockSecs;
    if (!prolong || !lockSecs || this.lot.size === 0) return;
    const now = this.options.now();
    const lockMs = lockSecs * 1000;
    if (now - this.lastLockSweep < lockMs / 4) return;
    this.lastLockSweep = now;
    for (const entry of this.lot.entries()) {
      const id = entry.request.id;
      if (id === undefined || now - entry.lockTouchedAt < lockMs / 2) continue;
      entry.lockTouchedAt = now;
      prolong(id, { lockSecs }).catch((error: unknown) =>
        this.options.log.debug('politely: could not prolong the lock of a parked request', {
          id,
          error: String(error),
        }),
      );
    }
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise
      .catch((error: unknown) =>
        this.options.log.warning('politely: background task failed', { error: String(error) }),
      )
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }
}
