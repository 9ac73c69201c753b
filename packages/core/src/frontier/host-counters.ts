/**
 * A few numbers per host ever met, for a crawler's progress display (`Frontier.hosts()`): how many of
 * its items went out and when it was last found not due. Kept apart from the parking lot, which
 * forgets a host once its lane is empty and due; these outlive the lane, as a crawler's per-host table does.
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

interface Counters {
  handedOut: number;
  nextDueAt: number;
}

export class HostCounters {
  private readonly byHost = new Map<string, Counters>();

  /** An item of the host was handed out. */
  handedOut(host: string): void {
    this.of(host).handedOut++;
  }

  /** An item of the host was found not due until `dueAt` (epoch ms). */
  notDueUntil(host: string, dueAt: number): void {
    this.of(host).nextDueAt = dueAt;
  }

  /** Every host met, and every host with items parked now (`parked`, from the parking lot). */
  list(parked: ReadonlyMap<string, number>): FrontierHost[] {
    const hosts = new Set([...this.byHost.keys(), ...parked.keys()]);
    return [...hosts].map((host) => ({
      host,
      handedOut: this.byHost.get(host)?.handedOut ?? 0,
      parked: parked.get(host) ?? 0,
      nextDueAt: this.byHost.get(host)?.nextDueAt ?? 0,
    }));
  }

  private of(host: string): Counters {
    let counters = this.byHost.get(host);
    if (!counters) {
      counters = { handedOut: 0, nextDueAt: 0 };
      this.byHost.set(host, counters);
    }
    return counters;
  }
}
