/**
 * A few numbers per host, for a crawler's progress display (`Frontier.hosts()`): how many of its items
 * went out and when it was last found not due. Kept apart from the parking lot, which forgets a host
 * once its lane is empty and due; these outlive the lane, as a crawler's per-host table does, but not
 * for ever: a broad crawl meets millions of hosts once each. A host out of
 * play (nothing parked, held or being checked) is forgotten once it was left alone for
 * FORGET_AFTER_MS of the frontier's clock, and sooner when more than MAX_RESTING hosts are out of
 * play (the longest known first). Its items stay counted in `total`.
 */

/** One host's counters, for a progress display. */
export interface FrontierHost {
  readonly host: string;
  /** Items of the host handed out so far (an item handed out again, a retry, counts again). */
  readonly handedOut: number;
  /** Items of the host parked now. */
  readonly parked: number;
  /** When the host was last found not due until (epoch ms); 0 until an item of it had to wait. */
  readonly nextDueAt: number;
}

/** What `list` needs of the parking lot. */
export interface ParkedHosts {
  countOf(host: string): number;
  hosts(): Iterable<string>;
}

/** How long a host out of play keeps its counters (the frontier's clock, ms). */
export const FORGET_AFTER_MS = 5 * 60_000;
/** Hosts out of play whose counters are kept at most (beyond it, the longest known go first). */
export const MAX_RESTING = 10_000;

interface Counters {
  handedOut: number;
  nextDueAt: number;
  /** Last touched, or last found in play by a sweep (the frontier's clock, ms). */
  seenAt: number;
}

export class HostCounters {
  private readonly byHost = new Map<string, Counters>();
  private handedOutTotal = 0;
  /** A sweep runs when the map grows past this, or FORGET_AFTER_MS after the last one. */
  private sweepAtSize = 2 * MAX_RESTING;
  private lastSweep: number;

  /** `inPlay`: the host has items parked, held or being checked, so its counters stay. */
  constructor(
    private readonly now: () => number,
    private readonly inPlay: (host: string) => boolean,
  ) {
    this.lastSweep = now();
  }

  /** Items handed out so far, forgotten hosts included. */
  get total(): number {
    return this.handedOutTotal;
  }

  /** An item of the host was handed out. */
  handedOut(host: string): void {
    this.of(host).handedOut++;
    this.handedOutTotal++;
  }

  /** An item of the host was found not due until `dueAt` (epoch ms). */
  notDueUntil(host: string, dueAt: number): void {
    this.of(host).nextDueAt = dueAt;
  }

  /**
   * Every host remembered, then every other host with items parked now. O(hosts remembered + hosts
   * parked), both bounded: resting hosts by MAX_RESTING, parked ones by the frontier's `maxParked`.
   */
  list(parked: ParkedHosts): FrontierHost[] {
    this.sweepIfDue();
    const list: FrontierHost[] = [];
    for (const [host, { handedOut, nextDueAt }] of this.byHost)
      list.push({ host, handedOut, parked: parked.countOf(host), nextDueAt });
    for (const host of parked.hosts())
      if (!this.byHost.has(host))
        list.push({ host, handedOut: 0, parked: parked.countOf(host), nextDueAt: 0 });
    return list;
  }

  private of(host: string): Counters {
    const now = this.now();
    let counters = this.byHost.get(host);
    if (counters) {
      counters.seenAt = now;
      return counters;
    }
    counters = { handedOut: 0, nextDueAt: 0, seenAt: now };
    this.byHost.set(host, counters);
    if (this.byHost.size > this.sweepAtSize) this.sweep();
    else this.sweepIfDue();
    return counters;
  }

  private sweepIfDue(): void {
    if (this.now() - this.lastSweep >= FORGET_AFTER_MS) this.sweep();
  }

  /**
   * Forgets the hosts out of play that rested long enough, then the longest known beyond MAX_RESTING.
   * O(hosts remembered); it runs when their number doubled or once per FORGET_AFTER_MS, so it costs
   * O(1) a new host, amortised.
   */
  private sweep(): void {
    const now = this.now();
    this.lastSweep = now;
    const resting: string[] = [];
    for (const [host, counters] of this.byHost) {
      if (this.inPlay(host)) counters.seenAt = now;
      else if (now - counters.seenAt >= FORGET_AFTER_MS) this.byHost.delete(host);
      else resting.push(host);
    }
    // Map order is first-seen order: the hosts known longest go first.
    for (let i = 0; i < resting.length - MAX_RESTING; i++) this.byHost.delete(resting[i] as string);
    this.sweepAtSize = Math.max(2 * MAX_RESTING, 2 * this.byHost.size);
  }
}
