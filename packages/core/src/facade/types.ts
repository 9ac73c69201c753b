/**
 * Types of the facade, `createPoliteness(options)`: what both adapters see.
 */

import type { SendPass, SendPassOptions } from '../adapter/send-pass.js';
import type { Decision, DisallowedDecision } from '../kernel/decision.js';
import type { PolitelyEvent, SkipStage } from '../kernel/events.js';
import type { InFlightLease } from '../schedule/in-flight.js';

export type {
  AllowedDecision,
  Decision,
  DecisionReason,
  DisallowedDecision,
  RulesSource,
} from '../kernel/decision.js';
export type { PolitelyEvent, SkipStage } from '../kernel/events.js';
export type { InFlightLease };

/** What an adapter measured about one response (`observeResponse`). */
export interface ResponseDetails {
  /** ms from the request really going out to the response headers. */
  readonly latencyMs?: number;
}

export interface Logger {
  debug?(message: string, data?: Record<string, unknown>): void;
  info?(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
}

export interface PolitenessStats {
  readonly decisions: {
    readonly allowed: number;
    readonly disallowed: number;
    readonly unreachable: number;
    readonly crawlDelayTooLong: number;
  };
  readonly robotsFetches: { readonly ok: number; readonly unavailable: number; readonly unreachable: number };
  readonly cache: {
    readonly memoryHits: number;
    readonly storeHits: number;
    readonly misses: number;
    readonly storeErrors: number;
    /** Stored records rejected on read (tampered, foreign, from the future): each was refetched. */
    readonly storeRejects: number;
  };
  readonly reservations: {
    readonly immediate: number;
    readonly waited: number;
    readonly deferred: number;
    readonly tooLong: number;
  };
  readonly backoffs: number;
  /**
   * Requests adapters kept from being sent (`reportSkip`), by the stage that refused them; why they
   * were refused is in `decisions` (a URL is decided once and may be refused at several stages).
   */
  readonly skipped: { readonly [stage in SkipStage]: number };
}

import type { Reservation, ReserveOptions, Scheduler, TryReservation } from '../schedule/types.js';

export interface CheckCachedOptions {
  /**
   * True: this is the caller's decision about the URL (a queue handing the request out), counted in
   * `stats().decisions` and sent as a `decision` event as `check` does; false (default): a look.
   */
  readonly count?: boolean;
}

/** How long a caller is willing to wait for politely's part of one request. */
export interface CheckOptions {
  /** Stops this caller's wait with the signal's reason (the shared robots.txt fetch goes on for others). */
  readonly signal?: AbortSignal;
  /**
   * The request's own time limit, in ms: waiting for robots.txt longer rejects with
   * DeadlineExceededError (ERR_DEADLINE_EXCEEDED), never with a verdict.
   */
  readonly timeoutMs?: number;
}

/** admit: the time limit covers the robots.txt wait and the pacing wait together. */
export interface AdmitOptions extends ReserveOptions {
  /**
   * The request's own time limit, in ms, for robots.txt and pacing together: a slot further away than
   * what is left rejects at once with WaitTooLongError (nothing reserved); running out while waiting
   * rejects with DeadlineExceededError.
   */
  readonly timeoutMs?: number;
}

/** What `createPoliteness(options)` returns; both adapters are thin translators over it. */
export interface Politeness {
  /** The product token rules are matched with. */
  readonly productToken: string;
  readonly userAgent: string;
  /**
   * Whether adapters set User-Agent to `userAgent` on the requests they pace when the caller set none
   * (option `sendUserAgent`). Optional so existing Politeness look-alikes still fit: absent means true.
   */
  readonly sendUserAgent?: boolean;
  readonly scheduler: Scheduler;
  /**
   * The decision for a URL, fetching robots.txt for its origin once if needed (single-flight, cached).
   * Never rejects for HTTP or store trouble (those are policies); TypeError for a non-http(s) URL.
   */
  check(url: string | URL, options?: CheckOptions): Promise<Decision>;
  /**
   * The decision without I/O when the origin's rules are in process memory and fresh; else undefined.
   * Not counted unless `count` is set (a look, not the caller's decision).
   */
  checkCached(url: string | URL, options?: CheckCachedOptions): Decision | undefined;
  /**
   * The Sitemap URLs of the origin's robots.txt (absolute http(s) URLs, in file order, each once), from
   * the cache; fetches robots.txt once if it is not cached (single-flight, as `check`). Empty when the
   * origin has no usable robots.txt. Never rejects for HTTP or store trouble; TypeError for a
   * non-http(s) URL.
   */
  sitemaps(url: string | URL): Promise<string[]>;
  /** Starts fetching the origin's robots.txt in the background (never rejects). */
  prefetch(url: string | URL): void;
  /**
   * check + reserve, blocking: resolves with the decision once the host's slot starts. Rejects with
   * RobotsDisallowedError, WaitTooLongError, or the signal's reason.
   */
  admit(url: string | URL, options?: AdmitOptions): Promise<Decision>;
  /** Blocking slot for an allowed decision's host (spacing decision.delayMs). */
  reserve(decision: Decision, options?: ReserveOptions): Promise<Reservation>;
  /** Non-blocking slot: ok, or "not before T". */
  tryReserve(decision: Decision): Promise<TryReservation>;
  /**
   * Reserves nothing: the earliest start (epoch ms, this process's clock) a reservation for the host
   * of a decision or URL could get if asked now; at or before now means the host is due. For adapters
   * that decide what to hand out early and take the binding slot (`reserve`/`admit`) when the request
   * really goes out. Only a hint: another caller, or another process of a fleet, may take that slot
   * first, and the later reservation then waits. Never rejects for scheduler trouble (a Redis outage
   * answers from the in-process fallback); a custom scheduler without `peek` answers "due now".
   */
  nextStart(decisionOrUrl: Decision | string | URL): Promise<number>;
  /**
   * Feeds a response back: a 429 or 503 with Retry-After (seconds or HTTP date; 429 without it gets a
   * default) pushes the host's next slot out, for the process or the fleet. Returns the backoff in ms.
   * With `details.latencyMs` (request sent to response headers) the host's pace follows its latency
   * (option `latencyFactor`); 5xx, 429 and status 0 (no response: a timeout or a failed connection)
   * slow it, and good responses relax it again. Never rejects for scheduler or Redis trouble.
   */
  observeResponse(
    url: string | URL,
    status: number,
    retryAfter?: string | null,
    details?: ResponseDetails,
  ): Promise<number | undefined>;
  /**
   * Tells the scheduler a request to the host really went out at `at` (epoch ms, default now): the
   * host's next start moves to at least `at + delayMs`, for every caller (the fleet too). For adapters
   * that can observe the real send (a socket write, a browser's navigation request, a request done
   * outside the send path) so spacing counts from what happened, not from when a slot was reserved.
   * Adapters call this instead of touching the scheduler. Best effort: never rejects.
   */
  markSent(decisionOrUrl: Decision | string | URL, options?: { readonly at?: number }): Promise<void>;
  /**
   * Waits for a place among the `maxConcurrentPerHost` requests allowed in flight to the decision's
   * host (in this process and, with Redis, across the fleet). Take it before the pacing slot
   * (`reserve`), and release it when the response body ends or the request fails. Rejects like
   * `reserve`: the signal's reason, WaitTooLongError after `maxWaitMs` (default the `maxWaitMs`
   * option), RobotsDisallowedError for a disallowed decision; nothing is held after a rejection.
   */
  acquireInFlight(
    decision: Decision,
    options?: { readonly signal?: AbortSignal; readonly maxWaitMs?: number },
  ): Promise<InFlightLease>;
  /**
   * For an adapter that sends the request itself: takes an allowed decision's place among its host's
   * requests in flight, then its pacing slot, and resolves with a `SendPass` to report the real send
   * (`sent`), the response (`answered`) or the failure (`failed`), and to `release` the place when
   * the body has ended. With `sendReported` the request is paced by the delay asked, without the
   * safety margin, unless another request to the host has its slot and no reported send. Rejects like `acquireInFlight` and `reserve`; nothing is held after a rejection.
   */
  sendPass(decision: Decision, options?: SendPassOptions): Promise<SendPass>;
  /**
   * The scheduler key of a URL, without I/O. With `hostKey: 'ip'` that is the address once `check`
   * has resolved the host name (cached a minute), the host name before; decisions always carry the
   * resolved key.
   */
  hostKey(url: string | URL): string;
  /**
   * The delay, in ms, the host of a decision is paced by now: `decision.delayMs` raised by latency and
   * error signals (never lowered). What `reserve`, `tryReserve` and `markSent` use.
   */
  paceMs?(decision: Decision): number;
  /**
   * Drops what is cached about the robots.txt of the URL's origin, in process memory and in the store,
   * so the next check fetches it again (after a site changed its rules, or to retry an unreachable
   * one at once). A fetch already under way is not kept. Pacing state is untouched. Never rejects for
   * store trouble (reported as a `store-error` event); TypeError for a non-http(s) URL.
   */
  forget(url: string | URL): Promise<void>;
  /**
   * A request was kept from being sent because of `decision`; emits a `skip` event to every listener
   * and counts it in `stats().skipped`. For adapters, at the point where they refuse the request.
   */
  reportSkip(decision: DisallowedDecision, stage: SkipStage): void;
  stats(): PolitenessStats;
  /** Subscribes to events; returns an unsubscribe function. */
  subscribe(listener: (event: PolitelyEvent) => void): () => void;
  /** Stops timers and closes connections politely opened itself. */
  close(): Promise<void>;
}
