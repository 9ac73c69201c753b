/**
 * Types of the facade, `createPoliteness(options)`: what a crawler sees (adapters see the kit too).
 */

import type { Decision } from '../kernel/decision.js';
import type { PolitelyEvent, SkipStage } from '../kernel/events.js';
import type { ResponseHeaders } from '../signals/rate-limit-headers.js';

export type {
  AllowedDecision,
  Decision,
  DecisionReason,
  DisallowedDecision,
  RulesSource,
} from '../kernel/decision.js';
export type { PolitelyEvent, SkipStage } from '../kernel/events.js';
export type { ResponseHeaders };

/** What an adapter measured about one response (`observeResponse`). */
export interface ResponseDetails {
  /** ms from the request really going out to the response headers. */
  readonly latencyMs?: number | undefined;
  /**
   * The response's headers (a Fetch `Headers`, or a record of lower-case names as Node and the
   * browsers give them): their RateLimit / RateLimit-Policy / X-RateLimit-* fields pace the host.
   */
  readonly headers?: ResponseHeaders | undefined;
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
    /** Refused while the host's rate-limit headers held it above maxRateLimitDelayMs (rateLimitAboveMax: 'skip'). */
    readonly rateLimited: number;
    /** Refused because the URL's usage preferences say no for the `purpose` option. */
    readonly usageRefused: number;
    /** Refused before the fetch: the origin's tdmrep.json reserves TDM rights (TDMRep, a TDM `purpose`). */
    readonly tdmReserved: number;
  };
  /**
   * robots.txt fetches by outcome; `notModified`: a conditional refresh answered 304, which renewed
   * the cached rules without a body.
   */
  readonly robotsFetches: {
    readonly ok: number;
    readonly unavailable: number;
    readonly unreachable: number;
    readonly notModified: number;
  };
  readonly cache: {
    readonly memoryHits: number;
    readonly storeHits: number;
    readonly misses: number;
    readonly storeErrors: number;
    /** Stored records rejected on read (tampered, foreign, from the future): each was refetched. */
    readonly storeRejects: number;
  };
  /**
   * TDMRep, with a TDM `purpose` ('ai-train', 'ai-input'; zeros otherwise): fetches of
   * /.well-known/tdmrep.json by outcome, and responses withheld because their `tdm-reservation`
   * header or meta tag reserves TDM rights (also counted in `skipped.response`).
   */
  readonly tdmrep: {
    readonly fetches: {
      readonly ok: number;
      readonly absent: number;
      readonly malformed: number;
      readonly unreachable: number;
    };
    readonly reservedAfterResponse: number;
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
export interface AdmitOptions {
  /** Stops the wait (robots.txt and pacing) with the signal's reason; nothing is reserved after. */
  readonly signal?: AbortSignal;
  /**
   * Longest wait for the pacing slot: a slot further away rejects at once with WaitTooLongError
   * (nothing reserved). Default: the `maxWaitMs` option.
   */
  readonly maxWaitMs?: number;
  /**
   * The request's own time limit, in ms, for robots.txt and pacing together: a slot further away than
   * what is left rejects at once with WaitTooLongError (nothing reserved); running out while waiting
   * rejects with DeadlineExceededError.
   */
  readonly timeoutMs?: number;
}

/**
 * What `createPoliteness(options)` returns: what a crawler calls. Every member is total: it rejects
 * (or throws) only as its documentation says. What adapters, frontiers and page guards need beyond
 * this is the instance's adapter kit (`adapterKit(politeness)` from `@politely/core/adapter`).
 */
export interface Politeness {
  /** The product token rules are matched with. */
  readonly productToken: string;
  /** The User-Agent the crawler identifies with (adapters send it unless the caller set one). */
  readonly userAgent: string;
  /**
   * The decision for a URL, fetching robots.txt for its origin once if needed (single-flight, cached).
   * Never rejects for HTTP or store trouble (those are policies); TypeError for a non-http(s) URL,
   * DeadlineExceededError past `timeoutMs`, WaitTooLongError when robots.txt must be fetched and its
   * host's next slot is further than `pacing.maxWaitMs` (nothing fetched), ClosedError after `close`,
   * or the signal's reason.
   */
  check(url: string | URL, options?: CheckOptions): Promise<Decision>;
  /**
   * check + the host's pacing slot, blocking: resolves with the decision once the slot starts.
   * Rejects with RobotsDisallowedError, WaitTooLongError, DeadlineExceededError, ClosedError, the
   * signal's reason, or (as `check`) TypeError for a non-http(s) URL.
   */
  admit(url: string | URL, options?: AdmitOptions): Promise<Decision>;
  /**
   * Feeds a response back: a Retry-After on any status (seconds or HTTP date; a 429 without one gets
   * a default) pushes the host's next slot out, for the process or the fleet. Returns the backoff in ms.
   * With `details.latencyMs` (request sent to response headers) the host's pace follows its latency
   * (option `latencyFactor`); 5xx, 429 and status 0 (no response: a timeout or a failed connection)
   * slow it, and good responses relax it again. With `details.headers`, rate-limit headers spread
   * what remains of the host's quota over the time to its reset (option `rateLimitHeaders`), beside
   * any Retry-After: the longer wait holds the host. A spacing above `maxRateLimitDelayMs` is what
   * `rateLimitAboveMax` decides about.
   * Never rejects for scheduler or Redis trouble (the
   * backoff is then not set: undefined); TypeError for a non-http(s) URL.
   */
  observeResponse(
    url: string | URL,
    status: number,
    retryAfter?: string | null,
    details?: ResponseDetails,
  ): Promise<number | undefined>;
  /**
   * The Sitemap URLs of the origin's robots.txt (absolute http(s) URLs, in file order, each once), from
   * the cache; fetches robots.txt once if it is not cached (single-flight, as `check`). Empty when the
   * origin has no usable robots.txt. Never rejects for HTTP or store trouble; TypeError for a
   * non-http(s) URL.
   */
  sitemaps(url: string | URL): Promise<string[]>;
  /**
   * Drops what is cached about the robots.txt of the URL's origin, in process memory and in the store,
   * so the next check fetches it again (after a site changed its rules, or to retry an unreachable
   * one at once). A fetch already under way is not kept. Pacing state is untouched. Never rejects for
   * store trouble (reported as a `store-error` event); TypeError for a non-http(s) URL.
   */
  forget(url: string | URL): Promise<void>;
  /** The counters so far; never throws. */
  stats(): PolitenessStats;
  /** Subscribes to events; returns an unsubscribe function. A listener that throws never breaks a crawl. */
  subscribe(listener: (event: PolitelyEvent) => void): () => void;
  /**
   * Stops timers and closes connections politely opened itself; every wait still running rejects with
   * ClosedError, and so does every later wait. Resolves once what is owed to Redis and the store
   * (slots given back, places in flight released, pace records, cache writes) is sent or given up,
   * each within its time limit; nothing is sent after it (close the store's own connection then).
   * Idempotent. Rejects only when a scheduler the caller handed in (option `scheduler`) fails to close.
   */
  close(): Promise<void>;
}
