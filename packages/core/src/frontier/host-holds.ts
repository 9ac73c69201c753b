/**
 * An item leaves the frontier unreserved, because its host is due, and takes its slot when the HTTP
 * client or the browser sends it. Until then its host is held: no other item of the host waits in a
 * worker behind it. The hold ends when a request to the host has gone out and its real send time is
 * recorded (`sent`), or when the caller is done with the item (`finished`). One that never went out
 * through a paced client (fetched by other means, a failure before sending) may have gone out some
 * other way: its host then waits a full delay from that moment. The caller must finish every item it
 * was handed (Crawlee does: its handlers and navigations have timeouts), so a hold needs no deadline.
 */
import type { Decision } from '../kernel/decision.js';
import type { FrontierItem } from './frontier-item.js';

interface Hold<T extends FrontierItem> {
  readonly item: T;
  readonly decision: Decision;
}

export class HostHolds<T extends FrontierItem> {
  private readonly byHost = new Map<string, Hold<T>>();

  get size(): number {
    return this.byHost.size;
  }

  hold(host: string, item: T, decision: Decision): void {
    this.byHost.set(host, { item, decision });
  }

  holds(host: string): boolean {
    return this.byHost.has(host);
  }

  sent(host: string): void {
    this.byHost.delete(host);
  }

  /** The caller is done with an item; the decision to mark as sent now if it still held its host. */
  finished(item: T): Decision | undefined {
    for (const [host, hold] of this.byHost) {
      if (hold.item === item || (item.id !== undefined && hold.item.id === item.id)) {
        this.byHost.delete(host);
        return hold.decision;
      }
    }
    return undefined;
  }
}
