/**
 * A request leaves the queue unreserved, because its host is due, and takes its slot when the HTTP
 * client or the browser sends it. Until then its host is held: no other request of the host waits in
 * a concurrency slot behind it. The hold ends when a request to the host has gone out and its real
 * send time is recorded, or when the crawler is done with the request. One that never went out
 * through the client (BasicCrawler fetching by its own means, a failure before sending) may have gone
 * out some other way: its host then waits a full delay from that moment. Crawlee always ends a
 * request (its handler and navigation have timeouts), so a hold needs no deadline of its own.
 */
import type { Request } from '@crawlee/core';
import type { Decision } from '@politely/core';

interface Hold {
  readonly request: Request;
  readonly decision: Decision;
}

export class HostHolds {
  private readonly byHost = new Map<string, Hold>();

  get size(): number {
    return this.byHost.size;
  }

  hold(host: string, request: Request, decision: Decision): void {
    this.byHost.set(host, { request, decision });
  }

  holds(host: string): boolean {
    return this.byHost.has(host);
  }

  sent(host: string): void {
    this.byHost.delete(host);
  }

  /** The crawler is done with a request; the decision to mark as sent now if it still held its host. */
  finished(request: Request): Decision | undefined {
    for (const [host, hold] of this.byHost) {
      if (hold.request === request || (request.id !== undefined && hold.request.id === request.id)) {
        this.byHost.delete(host);
        return hold.decision;
      }
    }
    return undefined;
  }
}
