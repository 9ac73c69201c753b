/**
 * Items held in memory while their host is not due, one FIFO lane per host. Holding them here
 * (instead of sleeping in a task) is what keeps a crawler's workers free for other hosts.
 */
import type { Decision } from '../kernel/decision.js';
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
}

export class ParkingLot<T extends FrontierItem> {
  private readonly lanes = new Map<string, Lane<T>>();
  private readonly ids = new Set<string>();
  /** Hosts with a slot request in flight: nobody else asks for them meanwhile, which keeps FIFO order. */
  private readonly claimed = new Set<string>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** True when an item with this id is parked (a queue may serve it again once its lock lapses). */
  holds(id: string | undefined): boolean {
    return id !== undefined && this.ids.has(id);
  }

  contains(entry: ParkedEntry<T>): boolean {
    return this.lanes.get(entry.host)?.entries.includes(entry) ?? false;
  }

  park(entry: ParkedEntry<T>, atFront = false): void {
    const lane = this.lane(entry.host);
    if (atFront) lane.entries.unshift(entry);
    else lane.entries.push(entry);
    this.count++;
    if (entry.item.id !== undefined) this.ids.add(entry.item.id);
  }

  remove(entry: ParkedEntry<T>): void {
    const lane = this.lanes.get(entry.host);
    if (!lane) return;
    const index = lane.entries.indexOf(entry);
    if (index === -1) return;
    lane.entries.splice(index, 1);
    this.count--;
    if (entry.item.id !== undefined) this.ids.delete(entry.item.id);
    if (lane.entries.length === 0) this.lanes.delete(entry.host);
  }

  /** Marks a host as being asked for a slot; `false` when someone else is already asking. */
  claim(host: string): boolean {
    if (this.claimed.has(host)) return false;
    this.claimed.add(host);
    return true;
  }

  release(host: string): void {
    this.claimed.delete(host);
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
  }

  /** Moves a parked host's due time (a request of it went out); hosts with nothing parked are left alone. */
  updateDueAt(host: string, dueAt: number): void {
    const lane = this.lanes.get(host);
    if (lane) lane.dueAt = Math.max(lane.dueAt, dueAt);
  }

  /**
   * The head of every lane whose robots decision is in and whose host is due, oldest lanes first.
   * `isHeld` names hosts that must wait anyway (an item of theirs is out and has not gone out yet).
   */
  readyHeads(now: number, isHeld: (host: string) => boolean): ParkedEntry<T>[] {
    const heads: ParkedEntry<T>[] = [];
    for (const [host, lane] of this.lanes) {
      const head = lane.entries[0];
      if (head?.decision && lane.dueAt <= now && !this.claimed.has(host) && !isHeld(host)) heads.push(head);
    }
    return heads;
  }

  /** The earliest time a lane with a decided head comes due (Infinity when none will by itself). */
  earliestDue(isHeld: (host: string) => boolean): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [host, lane] of this.lanes) {
      if (lane.entries[0]?.decision && !this.claimed.has(host) && !isHeld(host))
        earliest = Math.min(earliest, lane.dueAt);
    }
    return earliest;
  }

  *entries(): Generator<ParkedEntry<T>> {
    for (const lane of this.lanes.values()) yield* lane.entries;
  }

  countByHost(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [host, lane] of this.lanes) counts.set(host, lane.entries.length);
    return counts;
  }

  private lane(host: string): Lane<T> {
    let lane = this.lanes.get(host);
    if (!lane) {
      lane = { entries: [], dueAt: 0 };
      this.lanes.set(host, lane);
    }
    return lane;
  }
}
