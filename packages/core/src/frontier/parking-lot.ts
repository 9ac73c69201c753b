/**
 * Items held in memory while their host is not due, one FIFO lane per host. Holding them here
 * (instead of sleeping in a task) is what keeps a crawler's workers free for other hosts. Which lane
 * is due first comes from a heap of due times (due-heap.ts), not from a scan of every lane.
 */
import type { Decision } from '../kernel/decision.js';
import { DueHeap, type DueSlot } from './due-heap.js';
import type { FrontierItem } from './frontier-item.js';

export interface ParkedEntry<T extends FrontierItem> {
  readonly item: T;
  readonly host: string;
  /** Undefined while the origin's robots.txt is being fetched. Only allowed decisions are parked. */
  decision: Decision | undefined;
  /** When the item was first parked (the frontier's clock, ms). */
  readonly since: number;
}

interface Lane<T extends FrontierItem> {
  readonly entries: ParkedEntry<T>[];
  /** The scheduler said "not before" this time (the frontier's clock, ms); 0 when unknown. */
  dueAt: number;
  /** Creation order, the tie-break among lanes due at one time. */
  readonly seq: number;
  /** Bumped on every change; heap slots of an older version are stale. */
  version: number;
}

/**
 * Stale slots allowed in the due heap beyond one per lane before it is rebuilt from the lanes: the
 * rebuild is O(lanes) and comes after at least as many pushes, so it costs O(1) a change, amortised.
 */
const HEAP_SLACK = 64;

export class ParkingLot<T extends FrontierItem> {
  private readonly lanes = new Map<string, Lane<T>>();
  private readonly ids = new Set<string>();
  private readonly live = new Set<ParkedEntry<T>>();
  /** Hosts with a slot request in flight: nobody else asks for them meanwhile, which keeps FIFO order. */
  private readonly claimed = new Set<string>();
  /** Every lane that may be ready (decided head, not claimed, not held), by due time. */
  private readonly due = new DueHeap();
  private seq = 0;
  private version = 0;

  /** `isHeld` names hosts that must wait anyway (an item of theirs is out and has not gone out yet). */
  constructor(private readonly isHeld: (host: string) => boolean) {}

  get size(): number {
    return this.live.size;
  }

  /** Hosts with a lane (items parked, or a due time being set). */
  get hostCount(): number {
    return this.lanes.size;
  }

  /** True when an item with this id is parked (a queue may serve it again once its lock lapses). */
  holds(id: string | undefined): boolean {
    return id !== undefined && this.ids.has(id);
  }

  contains(entry: ParkedEntry<T>): boolean {
    return this.live.has(entry);
  }

  /** True when the host has items parked (or is having its due time set). */
  hasHost(host: string): boolean {
    return this.lanes.has(host);
  }

  /** Items of the host parked now. */
  countOf(host: string): number {
    return this.lanes.get(host)?.entries.length ?? 0;
  }

  park(entry: ParkedEntry<T>, atFront = false): void {
    const lane = this.lane(entry.host);
    if (atFront) lane.entries.unshift(entry);
    else lane.entries.push(entry);
    this.live.add(entry);
    if (entry.item.id !== undefined) this.ids.add(entry.item.id);
    this.changed(entry.host);
  }

  remove(entry: ParkedEntry<T>): void {
    if (!this.live.delete(entry)) return;
    const lane = this.lanes.get(entry.host) as Lane<T>;
    // Almost always the head (takeDue); a refused or failed check may take one from the middle.
    if (lane.entries[0] === entry) lane.entries.shift();
    else lane.entries.splice(lane.entries.indexOf(entry), 1);
    if (entry.item.id !== undefined) this.ids.delete(entry.item.id);
    if (lane.entries.length === 0) this.lanes.delete(entry.host);
    else this.changed(entry.host);
  }

  /** Marks a host as being asked for a slot; `false` when someone else is already asking. */
  claim(host: string): boolean {
    if (this.claimed.has(host)) return false;
    this.claimed.add(host);
    return true;
  }

  release(host: string): void {
    this.claimed.delete(host);
    this.changed(host);
  }

  /** An item for this host must wait behind others, or the host is known not to be due yet. */
  isHostBusy(host: string, now: number): boolean {
    if (this.claimed.has(host)) return true;
    const lane = this.lanes.get(host);
    if (!lane) return false;
    if (lane.entries.length > 0 || lane.dueAt > now) return true;
    this.lanes.delete(host);
    return false;
  }

  setDueAt(host: string, dueAt: number): void {
    this.lane(host).dueAt = dueAt;
    this.changed(host);
  }

  /**
   * Moves a parked host's due time (a request of it went out, so it is no longer held); hosts with
   * nothing parked are left alone.
   */
  updateDueAt(host: string, dueAt: number): void {
    const lane = this.lanes.get(host);
    if (!lane) return;
    lane.dueAt = Math.max(lane.dueAt, dueAt);
    this.changed(host);
  }

  /**
   * Something that decides whether the host's lane may be ready changed outside (its head's robots.txt
   * decision came in, its hold ended): the lane takes a fresh place in the due heap.
   */
  changed(host: string): void {
    const lane = this.lanes.get(host);
    if (!lane) return;
    lane.version = ++this.version;
    if (this.eligible(host, lane))
      this.due.push({ dueAt: lane.dueAt, seq: lane.seq, host, version: lane.version });
    if (this.due.length > 2 * this.lanes.size + HEAP_SLACK) this.rebuild();
  }

  /**
   * The head of the lane due first, when it is due by `now`: decided, not claimed, not held; among
   * lanes due at one time, the oldest. O(log n) amortised: stale heap slots are dropped on the way.
   */
  nextReady(now: number): ParkedEntry<T> | undefined {
    const top = this.top();
    return top && top.dueAt <= now ? this.lanes.get(top.host)?.entries[0] : undefined;
  }

  /** The earliest time a lane with a decided head comes due (Infinity when none will by itself). */
  earliestDue(): number {
    return this.top()?.dueAt ?? Number.POSITIVE_INFINITY;
  }

  *entries(): Generator<ParkedEntry<T>> {
    for (const lane of this.lanes.values()) yield* lane.entries;
  }

  /** Hosts with items parked, oldest lanes first. */
  hosts(): IterableIterator<string> {
    return this.lanes.keys();
  }

  /** The heap's top once every stale slot above it is gone. */
  private top(): DueSlot | undefined {
    for (;;) {
      const slot = this.due.peek();
      if (!slot) return undefined;
      const lane = this.lanes.get(slot.host);
      if (lane && lane.version === slot.version && this.eligible(slot.host, lane)) return slot;
      // Stale, or not eligible now: whatever makes it eligible again calls `changed`, which pushes anew.
      this.due.pop();
    }
  }

  private eligible(host: string, lane: Lane<T>): boolean {
    return lane.entries[0]?.decision !== undefined && !this.claimed.has(host) && !this.isHeld(host);
  }

  private rebuild(): void {
    const slots: DueSlot[] = [];
    for (const [host, lane] of this.lanes) {
      lane.version = ++this.version;
      if (this.eligible(host, lane))
        slots.push({ dueAt: lane.dueAt, seq: lane.seq, host, version: lane.version });
    }
    this.due.reset(slots);
  }

  private lane(host: string): Lane<T> {
    let lane = this.lanes.get(host);
    if (!lane) {
      lane = { entries: [], dueAt: 0, seq: this.seq++, version: 0 };
      this.lanes.set(host, lane);
    }
    return lane;
  }
}
