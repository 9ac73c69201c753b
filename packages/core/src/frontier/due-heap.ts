/**
 * A binary min-heap of parked hosts by due time, so "which host is due first" costs O(log n) however
 * many hosts are parked (a scan of every lane would make a crawl over thousands of hosts quadratic).
 * Entries are never updated in place: a lane that changes pushes a new entry with a new version, and
 * the parking lot drops the stale ones when they reach the top (lazy invalidation).
 */

/** A lane's place in the heap: its due time then its age, as it was when pushed. */
export interface DueSlot {
  readonly dueAt: number;
  /** The lane's creation order: among hosts due at one time, the older lane goes first. */
  readonly seq: number;
  readonly host: string;
  /** The lane's version when pushed; a lane that changed since has a newer one. */
  readonly version: number;
}

const before = (a: DueSlot, b: DueSlot): boolean =>
  a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);

export class DueHeap {
  private slots: DueSlot[] = [];

  get length(): number {
    return this.slots.length;
  }

  peek(): DueSlot | undefined {
    return this.slots[0];
  }

  push(slot: DueSlot): void {
    const { slots } = this;
    slots.push(slot);
    let i = slots.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(slot, slots[parent] as DueSlot)) break;
      slots[i] = slots[parent] as DueSlot;
      i = parent;
    }
    slots[i] = slot;
  }

  pop(): DueSlot | undefined {
    const { slots } = this;
    const top = slots[0];
    const last = slots.pop();
    if (slots.length > 0 && last) this.siftDown(0, last);
    return top;
  }

  /** Replaces every slot (a compaction): O(n), bottom-up. */
  reset(slots: DueSlot[]): void {
    this.slots = slots;
    for (let i = (slots.length >> 1) - 1; i >= 0; i--) this.siftDown(i, slots[i] as DueSlot);
  }

  private siftDown(start: number, slot: DueSlot): void {
    const { slots } = this;
    const n = slots.length;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && before(slots[right] as DueSlot, slots[child] as DueSlot)) child = right;
      if (!before(slots[child] as DueSlot, slot)) break;
      slots[i] = slots[child] as DueSlot;
      i = child;
    }
    slots[i] = slot;
  }
}
