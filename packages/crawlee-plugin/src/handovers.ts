/**
 * Where the binding pacing slot is taken, and the requests handed out that have not gone out yet.
 *
 * - `send`: the HTTP client's got hooks reserve each hop's slot when it really goes out (HTTP
 *   crawlers). The request manager only checks that a host is due (`nextStart`, nothing reserved)
 *   and hands out one request per host until that one has started, so no other request of the host
 *   sits in a slot waiting behind it.
 * - `dequeue`: the request manager reserves (`tryReserve`) when it hands a request out; for crawlers
 *   whose requests do not go through the got client (BasicCrawler doing its own fetching, browsers).
 * - `undecided` (the default, `auto`): one request at a time is handed out, unreserved, until the
 *   crawler shows what it is. A navigation through the HTTP client (`stream`, only HTTP crawlers
 *   call it) means `send`; that first request finishing without one means `dequeue`.
 */
import type { Request } from '@crawlee/core';

export type ReserveAt = 'send' | 'dequeue';
export type PacingMode = ReserveAt | 'undecided';

/**
 * A request handed out unreserved that never reached a send hook is let go after this long (a hook
 * of the user's that hangs, a client that is not got-based), so its host is not held forever; the
 * send-time reservation still keeps the pace if it does go out later.
 */
export const HANDOVER_TIMEOUT_MS = 30_000;

interface Handover {
  readonly request: Request;
  readonly host: string;
  /** The request's URL as got will see it (WHATWG href), to recognise its first hop. */
  readonly href: string | undefined;
  readonly delayMs: number;
  readonly at: number;
  started: boolean;
}

/** What the manager must do once a request handed out unreserved is finished. */
export interface Finished {
  /** The request went out (or may have) without any reservation: push the host's next start. */
  readonly penalize?: { readonly host: string; readonly ms: number };
}

export class Handovers {
  private current: PacingMode;
  /** Unstarted handovers, one per host at most. */
  private readonly unstarted = new Map<string, Handover>();
  /** The one request out while undecided. */
  private probe: Handover | undefined;

  constructor(reserveAt: ReserveAt | 'auto') {
    this.current = reserveAt === 'auto' ? 'undecided' : reserveAt;
  }

  get mode(): PacingMode {
    return this.current;
  }

  /** True when the request manager takes the binding slot itself (tryReserve at dequeue). */
  get reservesAtDequeue(): boolean {
    return this.current === 'dequeue';
  }

  /** False while the undecided mode's one request is out (it has a deadline, then `dequeue`). */
  canHandOut(now: number): boolean {
    if (this.current !== 'undecided' || this.probe === undefined) return true;
    if (now - this.probe.at < HANDOVER_TIMEOUT_MS) return false;
    // No navigation through the HTTP client in all that time: not an HTTP crawler.
    this.decide('dequeue');
    return true;
  }

  /** The host has a request out that has not started yet (and has not timed out). */
  holds(host: string, now: number): boolean {
    const handover = this.unstarted.get(host);
    if (handover === undefined) return false;
    if (now - handover.at < HANDOVER_TIMEOUT_MS) return true;
    this.unstarted.delete(host);
    return false;
  }

  /** Records a request handed out without a reservation (send or undecided mode). */
  handedOut(request: Request, host: string, delayMs: number, now: number): void {
    const handover: Handover = { request, host, href: hrefOf(request.url), delayMs, at: now, started: false };
    this.unstarted.set(host, handover);
    if (this.current === 'undecided') this.probe = handover;
  }

  /** An HTTP crawler navigates through the client: from now on the client's hooks reserve. */
  navigationSeen(): void {
    if (this.current === 'undecided') this.decide('send');
  }

  /**
   * A send hook took the binding slot for `host`. `href` names the URL it was for: only the host's
   * handover for that very URL counts as started (a handler's own request to the host does not);
   * navigation passes undefined, since it only ever sends the requests handed out.
   */
  started(host: string, href: string | undefined): void {
    const handover = this.unstarted.get(host);
    if (handover === undefined) return;
    if (href !== undefined && handover.href !== href) return;
    handover.started = true;
    this.unstarted.delete(host);
  }

  /**
   * The crawler is done with a request (handled, or given back to the queue). One that never reached
   * a send hook may have gone out by other means, unreserved (BasicCrawler fetching by itself, or a
   * failure before sending): its host then keeps a full delay from now, erring on the polite side.
   */
  finished(request: Request): Finished {
    let handover: Handover | undefined;
    for (const candidate of this.unstarted.values()) {
      if (sameRequest(candidate.request, request)) handover = candidate;
    }
    if (handover) this.unstarted.delete(handover.host);
    const probe = this.probe;
    if (probe !== undefined && sameRequest(probe.request, request)) {
      this.probe = undefined;
      // Finished without a navigation through the HTTP client: not an HTTP crawler.
      if (this.current === 'undecided') this.decide('dequeue');
    }
    if (!handover || handover.started || handover.delayMs <= 0) return {};
    return { penalize: { host: handover.host, ms: handover.delayMs } };
  }

  /**
   * The HTTP client sent a request without running the send hooks (it is not got-based): nothing
   * can be reserved at send time, so the slot is taken at dequeue from now on.
   */
  hooksIgnored(): void {
    this.decide('dequeue');
    this.unstarted.clear();
  }

  private decide(mode: ReserveAt): void {
    this.current = mode;
    this.probe = undefined;
  }
}

function sameRequest(a: Request, b: Request): boolean {
  return a === b || (a.id !== undefined && a.id === b.id);
}

function hrefOf(url: string): string | undefined {
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
}
