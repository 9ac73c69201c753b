/**
 * `createFrontier(politeness, options)`: which item may go next, without ever sleeping in a worker.
 * Each admitted item is handed out now, skipped (robots.txt says no), or parked (its host is not due,
 * its robots.txt is still being fetched, or an item of its host is out and has not gone out yet).
 * Parked items are served later by `takeDue`, oldest first per host. "Not yet" is always a parked item
 * and an undefined answer, so no worker waits for a host. "Due" is only a look at the schedule
 * (`nextStart`): the slot is reserved when the request really goes out (see host-holds.ts), by
 * whatever paces the send (`admit`/`reserve`, an adapter, a page guard) and reports it with `sent`.
 * The idea is a crawl scheduler's (Scrapy's, Crawlee's request manager): hand out only what is due.
 * This file is the interface and the decisions; what it keeps is in the parts it composes, one a file:
 * parking-lot.ts (with due-heap.ts), host-holds.ts, wake-up.ts, host-counters.ts, origin-checks.ts,
 * background-tasks.ts.
 */

import { type AdapterKit, adapterKit } from '../adapter/kit.js';
import { attachPoliteness } from '../adapter/owner.js';
import type { Logger, Politeness } from '../facade/types.js';
import type { Decision, DisallowedDecision } from '../kernel/decision.js';
import { getRetryAfterMs } from '../kernel/errors.js';
import { isHttpUrl } from '../kernel/http-url.js';
import { BackgroundTasks } from './background-tasks.js';
import {
  type FrontierNextOptions,
  type FrontierWaitOptions,
  validateLimit,
  validateWait,
} from './call-options.js';
import type { FrontierItem } from './frontier-item.js';
import {
  type FrontierOptions,
  type ResolvedFrontierOptions,
  validateFrontierOptions,
} from './frontier-options.js';
import { type FrontierHost, HostCounters } from './host-counters.js';
import { HostHolds } from './host-holds.js';
import { OriginChecks } from './origin-checks.js';
import { type ParkedEntry, ParkingLot } from './parking-lot.js';
import { WakeUp } from './wake-up.js';

/** A parked item, for a caller that keeps something alive while it waits (a queue lock). */
export interface ParkedItem<T extends FrontierItem> {
  readonly item: T;
  readonly host: string;
  /** When it was parked (the frontier's clock, ms). */
  readonly since: number;
}

/** Where `next` takes new items: the caller's queue, one item a call; null or undefined when it has none now. */
export type FrontierPull<T extends FrontierItem> = () => T | null | undefined | Promise<T | null | undefined>;

export interface Frontier<T extends FrontierItem> {
  /**
   * The next item that may go now: a parked one whose host is due (`takeDue`), else new items pulled
   * from the caller's queue and admitted, one by one, until one may go. Stops pulling when the queue
   * has none, after `limit` items, or when the frontier is `full`. An item whose id is already parked
   * (a queue serves it again after its lock lapsed) is passed over: the parked copy stays in charge.
   * Undefined when nothing may go now.
   */
  next(pull: FrontierPull<T>, options?: FrontierNextOptions): Promise<T | undefined>;
  /**
   * A new item: resolves with it when it may go now (its host is held until `sent` or `finished`),
   * or undefined when it was parked or skipped (`onSkip`). Non-HTTP and malformed URLs are handed out
   * untouched: they are not robots.txt's to judge. With `first`, an item parked goes ahead of its
   * host's other parked items (a retry the caller's queue would serve next, as a RequestList does).
   */
  admit(item: T, options?: { readonly first?: boolean }): Promise<T | undefined>;
  /**
   * A look at a URL before it is queued, never waiting on I/O: the decision when its origin's
   * robots.txt is in memory and refuses it (drop the URL, report it), else undefined. The robots.txt
   * of an origin not yet known is fetched in the background (once), so `admit` usually finds it in.
   */
  screen(url: string): DisallowedDecision | undefined;
  /**
   * A parked item whose host is due, now held: the oldest of the host that came due first (among hosts
   * due at one time, the one parked longest); undefined when none is. O(log n) in the hosts parked.
   */
  takeDue(): Promise<T | undefined>;
  /** True when `takeDue` has something to try. */
  hasReady(): boolean;
  /** When the next parked host comes due by itself (epoch ms; Infinity when none will). */
  earliestDue(): number;
  /**
   * Resolves when the first parked host comes due, when something changes (an item decided, sent or
   * finished, `wake()`), or after `maxMs`, whichever is first. For a pool that asks again then.
   */
  nap(maxMs: number): Promise<void>;
  /**
   * Waits for work: true as soon as a parked host is due or the caller's queue has items (and the
   * frontier is not `full`), false when none came within `maxMs`. Answers false at once when nothing
   * under way can bring work in time: no host held (its `sent` or `finished` frees it), no robots.txt
   * check of a parked item running, no parked host due within `maxMs`. A worker pool loops on `next`
   * and this, and stops when it answers false with the default `maxMs` (Infinity).
   */
  waitForWork(options?: FrontierWaitOptions): Promise<boolean>;
  /** Something outside changed (new items to admit): wakes every `nap`. */
  wake(): void;
  /** A request to the decision's host took its slot and went out at `at` (default now). */
  sent(decision: Decision, at?: number): void;
  /** The caller is done with an item; a host it still held counts it as sent now (`markSent`). */
  finished(item: T): void;
  /** Every parked item, oldest host lanes first. */
  parked(): IterableIterator<ParkedItem<T>>;
  /**
   * Takes the parked items `which` picks (every parked item without it) out of the frontier and
   * returns them, oldest host lanes first, each lane in its order: items the caller gives back to its
   * queue unhandled (a crawl that stopped early). Never returns an item handed out, nor one twice; an
   * item being handed out right now is not parked, and comes back from its call. A robots.txt check
   * under way for a taken item ends without a word: no skip, no hand-out. Admitted again later, an
   * item is checked again.
   */
  takeBack(which?: (item: T) => boolean): T[];
  /** True when an item with this id is parked. */
  isParked(id: string | undefined): boolean;
  /**
   * Every host with items parked, held or being checked now, and those that had an item handed out or
   * kept waiting lately: a host out of play is forgotten after a while (host-counters.ts), so the list
   * stays as long as the crawl's working set, not as long as every host it ever met.
   */
  hosts(): FrontierHost[];
  /** Items handed out so far, every host together (forgotten hosts included). */
  readonly handedOut: number;
  /** Items parked now. */
  readonly size: number;
  /**
   * `next` pulls nothing more for now: `size` reached `maxParked`, or the robots.txt of
   * `maxRobotsFetches` origins is being fetched for parked items. Ends as parked items go or checks end.
   */
  readonly full: boolean;
  /** Hosts held by an item handed out and not yet sent or finished. */
  readonly held: number;
  /** Nothing parked, nothing held, no robots.txt check, callback or tracked task under way. */
  readonly idle: boolean;
  /**
   * A background task of the caller's (a report, a lookup started for an item): counted in `idle` and
   * `settled` until it ends; a rejection is logged (`logger`), never thrown.
   */
  track(task: Promise<unknown>): void;
  /** Waits for the robots.txt checks, callbacks, `markSent` calls and tracked tasks under way. */
  settled(): Promise<void>;
}

export function createFrontier<T extends FrontierItem>(
  politeness: Politeness,
  options: FrontierOptions<T> = {},
): Frontier<T> {
  const valid = validateFrontierOptions(politeness, options);
  // `politenessOf(frontier)` finds the Politeness it drives.
  return attachPoliteness(new PoliteFrontier(politeness, adapterKit(politeness), valid), politeness);
}

class PoliteFrontier<T extends FrontierItem> implements Frontier<T> {
  private readonly holds = new HostHolds<T>();
  private readonly lot = new ParkingLot<T>((host) => this.holds.holds(host));
  private readonly wakeUp = new WakeUp();
  private readonly now: () => number;
  private readonly logger: Logger | undefined;
  private readonly maxParked: number;
  private warnedSchedulerError = false;
  /** robots.txt checks of parked items under way: each wakes the naps when it ends. */
  private checks = 0;
  /** `next` calls between taking an item from the caller's queue and parking or handing it out. */
  private pulling = 0;
  private readonly tasks: BackgroundTasks;
  private readonly origins: OriginChecks;
  private readonly counters: HostCounters;

  constructor(
    private readonly politeness: Politeness,
    private readonly kit: AdapterKit,
    private readonly options: ResolvedFrontierOptions<T>,
  ) {
    this.now = options.now;
    this.logger = options.logger || undefined;
    this.maxParked = options.maxParked;
    this.tasks = new BackgroundTasks(this.logger);
    this.origins = new OriginChecks(options.maxRobotsFetches, kit, this.now);
    this.counters = new HostCounters(this.now, (host) => this.lot.hasHost(host) || this.holds.holds(host));
    // The parked gauges of the Politeness' metrics read `size` and `parkedHosts` while this frontier lives.
    kit.observeParked?.(this);
  }

  /** Hosts with items parked now (the `politely.hosts.parked` gauge). */
  get parkedHosts(): number {
    return this.lot.hostCount;
  }

  get size(): number {
    return this.lot.size;
  }

  get full(): boolean {
    // A pull under way counts as parked and as checked: concurrent `next` calls each pass this test
    // before their pulled item lands, and would otherwise overshoot both bounds by the workers' number.
    return this.lot.size + this.pulling >= this.maxParked || this.origins.busy(this.pulling);
  }

  get held(): number {
    return this.holds.size;
  }

  get idle(): boolean {
    return this.lot.size === 0 && this.holds.size === 0 && this.tasks.size === 0;
  }

  async admit(item: T, options: { readonly first?: boolean } = {}): Promise<T | undefined> {
    const { kit, now } = this;
    if (!isHttpUrl(item.url)) return item;
    let host: string;
    let decision: Decision | undefined;
    try {
      host = kit.hostKey(item.url);
      // Counted: handing the item out (or refusing it) is the frontier's decision about its URL.
      decision = kit.checkCached(item.url, { count: true });
    } catch {
      return item;
    }
    const first = options.first === true;
    if (!decision) {
      this.parkUntilChecked(item, host, first);
      return undefined;
    }
    if (!decision.allowed) {
      await this.skip(item, decision);
      return undefined;
    }
    const entry: ParkedEntry<T> = { item, host, decision, since: now() };
    if (this.lot.isHostBusy(host, now()) || this.holds.holds(host) || !this.lot.claim(host)) {
      this.lot.park(entry, first);
      return undefined;
    }
    return this.handOutOrPark(entry, first);
  }

  async next(pull: FrontierPull<T>, options: FrontierNextOptions = {}): Promise<T | undefined> {
    const limit = validateLimit(options);
    const due = await this.takeDue();
    if (due) return due;
    for (let pulled = 0; pulled < limit && !this.full; pulled++) {
      this.pulling++;
      try {
        const item = await pull();
        if (item === null || item === undefined) return undefined;
        if (this.isParked(item.id)) continue;
        const admitted = await this.admit(item);
        if (admitted) return admitted;
      } finally {
        const wasFull = this.full;
        this.pulling--;
        // A `waitForWork` that found the frontier full because of this pull asks again.
        if (wasFull && !this.full) this.wakeUp.wake();
      }
    }
    return undefined;
  }

  screen(url: string): DisallowedDecision | undefined {
    if (!isHttpUrl(url)) return undefined;
    let decision: Decision | undefined;
    try {
      decision = this.kit.checkCached(url);
    } catch {
      // A malformed URL is not robots.txt's to judge here: it goes on, as `admit` hands it out.
      return undefined;
    }
    if (!decision) this.origins.prefetchOnce(url);
    return decision?.allowed === false ? decision : undefined;
  }

  hasReady(): boolean {
    return this.lot.nextReady(this.now()) !== undefined;
  }

  earliestDue(): number {
    return this.lot.earliestDue();
  }

  async takeDue(): Promise<T | undefined> {
    // Each turn takes the lane due first (O(log n)); one that turns out not due is parked again with
    // its new due time, so the loop ends. A ready lane is never claimed or held (parking-lot.ts).
    for (let entry = this.lot.nextReady(this.now()); entry; entry = this.lot.nextReady(this.now())) {
      // Claimed before awaiting, so concurrent calls never hand out the same item twice.
      this.lot.claim(entry.host);
      this.lot.remove(entry);
      const item = await this.handOutOrPark(entry, true);
      if (item) return item;
    }
    return undefined;
  }

  nap(maxMs: number): Promise<void> {
    // +1: timers may fire within the millisecond before a due time read from another clock.
    return this.wakeUp.nap(this.earliestDue() + 1, this.now(), maxMs);
  }

  async waitForWork(options: FrontierWaitOptions = {}): Promise<boolean> {
    const { maxMs, sourceEmpty } = validateWait(options);
    const end = performance.now() + maxMs;
    for (;;) {
      if (this.hasReady()) return true;
      if (sourceEmpty && !this.full && !(await sourceEmpty())) return true;
      const left = end - performance.now();
      // A host held until its request goes out frees when `sent` or `finished` wakes the nap, and a
      // robots.txt check ends with one: without waiting for them here, a crawler's pool would ask
      // again only at its next tick or when a task ends, and a host allowed several requests in flight
      // would never get a second one.
      const underWay = this.holds.size > 0 || this.checks > 0;
      const due = this.earliestDue();
      if (left <= 0 || (!underWay && (due === Number.POSITIVE_INFINITY || due - this.now() > left)))
        return false;
      await this.nap(left);
    }
  }

  wake(): void {
    this.wakeUp.wake();
  }

  sent(decision: Decision, at: number = this.now()): void {
    this.holds.sent(decision.hostKey);
    this.lot.updateDueAt(decision.hostKey, at + decision.delayMs);
    this.wakeUp.wake();
  }

  finished(item: T): void {
    const decision = this.holds.finished(item);
    if (decision) {
      this.lot.updateDueAt(decision.hostKey, this.now() + decision.delayMs);
      this.track(this.kit.markSent(decision));
    }
    this.wakeUp.wake();
  }

  *parked(): IterableIterator<ParkedItem<T>> {
    for (const { item, host, since } of this.lot.entries()) yield { item, host, since };
  }

  isParked(id: string | undefined): boolean {
    return this.lot.holds(id);
  }

  takeBack(which?: (item: T) => boolean): T[] {
    const taken = [...this.lot.entries()].filter(({ item }) => which?.(item) ?? true);
    for (const entry of taken) this.lot.remove(entry);
    // A `waitForWork` or `nap` counting on a taken item asks again.
    if (taken.length > 0) this.wakeUp.wake();
    return taken.map(({ item }) => item);
  }

  hosts(): FrontierHost[] {
    return this.counters.list(this.lot);
  }

  get handedOut(): number {
    return this.counters.total;
  }

  track(task: Promise<unknown>): void {
    this.tasks.track(task);
  }

  async settled(): Promise<void> {
    await this.tasks.settled();
  }

  /**
   * Hands the item out if its host is due, else parks it until then. The caller holds the host's
   * claim, released here.
   */
  private async handOutOrPark(entry: ParkedEntry<T>, atFront: boolean): Promise<T | undefined> {
    const decision = entry.decision as Decision;
    try {
      const dueAt = await this.kit.nextStart(decision).catch((error: unknown) => {
        // The send-time reservation still paces; only the hand-out hint is lost.
        if (!this.warnedSchedulerError) {
          this.warnedSchedulerError = true;
          this.logger?.warn('the scheduler failed; requests are paced only when sent', {
            error: String(error),
          });
        }
        return this.now();
      });
      if (dueAt > this.now()) {
        this.lot.setDueAt(entry.host, dueAt);
        this.counters.notDueUntil(entry.host, dueAt);
        this.lot.park(entry, atFront);
        return undefined;
      }
      this.holds.hold(entry.host, entry.item, decision);
      this.counters.handedOut(entry.host);
      return entry.item;
    } finally {
      this.lot.release(entry.host);
    }
  }

  /** The origin's rules are not in memory: park the item and let the (single-flight) check run. */
  private parkUntilChecked(item: T, host: string, first = false): void {
    const entry: ParkedEntry<T> = { item, host, decision: undefined, since: this.now() };
    this.lot.park(entry, first);
    this.checkParked(entry);
  }

  private checkParked(entry: ParkedEntry<T>): void {
    const { item, host } = entry;
    const decided = this.politeness.check(item.url).then(
      async (decision) => {
        if (!this.lot.contains(entry)) return;
        if (decision.allowed) {
          entry.decision = decision;
          this.lot.changed(host);
          this.wakeUp.wake();
          return;
        }
        this.lot.remove(entry);
        await this.skip(item, decision);
      },
      async (error: unknown) => {
        // robots.txt waits for its host's slot, further than maxWaitMs: the item stays parked, and
        // the check runs again when the slot is near.
        const retryMs = getRetryAfterMs(error);
        if (retryMs !== undefined && this.lot.contains(entry)) {
          await new Promise((resolve) => setTimeout(resolve, retryMs));
          if (this.lot.contains(entry)) this.checkParked(entry);
          return;
        }
        // Otherwise check() only rejects on a bug: the item is the caller's again rather than lost in
        // here, unless the caller took it back meanwhile (`takeBack`) and has it already.
        if (!this.lot.contains(entry)) return;
        this.lot.remove(entry);
        if (this.options.onCheckFailed) await this.options.onCheckFailed(item, error);
        else
          this.logger?.warn('robots.txt check failed; item dropped', { url: item.url, error: String(error) });
      },
    );
    this.checks++;
    const origin = this.origins.started(item.url);
    this.track(
      decided.finally(() => {
        this.checks--;
        this.origins.ended(origin);
        this.wakeUp.wake(); // a refused or failed item leaves nothing to wait for: naps ask again
      }),
    );
  }

  /** A throwing or rejecting `onSkip` is logged: a refused item never fails `admit` or a check. */
  private async skip(item: T, decision: DisallowedDecision): Promise<void> {
    try {
      await this.options.onSkip?.(item, decision);
    } catch (error) {
      this.logger?.warn('onSkip failed', { url: item.url, error: String(error) });
    }
  }
}
