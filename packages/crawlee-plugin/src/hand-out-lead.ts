/**
 * How long before its host is due a request of an HTTP crawler is handed out. Between the queue
 * handing a request out and the HTTP client being asked to send it, Crawlee runs its own pipeline
 * (task start, session, navigation hooks, header generation): tens of milliseconds on a quiet
 * machine, far more on a loaded one. Handed out only when due, every request of a host went out that
 * much after its slot, and since the next slot counts from the real send, each host lost it once per
 * page. Handed out that much early instead, the request
 * reaches the client about when its slot comes, and the client's binding reservation (core's
 * `sendHop`) holds it to the slot: never early on the wire, no longer late.
 * The lead is learned from the crawl itself: the time from hand-out to the client's call, measured per
 * navigation (the wait for the slot is after it, so an early hand-out does not feed back into the lead).
 */

/** Navigations measured to learn the lead (the most recent ones). */
const SAMPLES = 32;
/** At most this much early: a concurrency slot is held while the request waits for its host's slot. */
export const MAX_HTTP_LEAD_MS = 250;
/** Hand-outs older than this with no navigation are forgotten (a handler that sends nothing). */
const FORGET_AFTER_MS = 60_000;

export class HandOutLead {
  /** When each request URL was handed out and not yet sent (by URL: the navigation's own URL). */
  private readonly handedAt = new Map<string, number>();
  private readonly samples: number[] = [];
  private next = 0;
  private lead = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The queue handed out a request for this URL. */
  handedOut(url: string): void {
    const now = this.now();
    if (this.handedAt.size >= 4096) this.prune(now);
    this.handedAt.set(url, now);
  }

  /** The HTTP client was asked to send the navigation of this URL (before waiting for its slot). */
  reachedClient(url: string): void {
    const at = this.handedAt.get(url);
    if (at === undefined) return;
    this.handedAt.delete(url);
    this.record(Math.max(0, this.now() - at));
  }

  /** The request is done (handled, reclaimed, skipped) without a navigation of ours. */
  forget(url: string): void {
    this.handedAt.delete(url);
  }

  /**
   * The lead: the 3rd-largest of the recent measurements (about the 90th percentile of 32), so most
   * requests reach the client in time, capped at `MAX_HTTP_LEAD_MS`. 0 until a navigation was measured.
   */
  get leadMs(): number {
    return this.lead;
  }

  private record(ms: number): void {
    if (this.samples.length < SAMPLES) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % SAMPLES;
    const sorted = [...this.samples].sort((a, b) => b - a);
    const high = sorted[Math.min(2, sorted.length - 1)] ?? 0;
    this.lead = Math.min(MAX_HTTP_LEAD_MS, Math.ceil(high));
  }

  private prune(now: number): void {
    for (const [url, at] of this.handedAt) if (now - at > FORGET_AFTER_MS) this.handedAt.delete(url);
  }
}
