/**
 * The fetch layer's contract: how robots.txt is requested, and what an HTTP outcome becomes.
 */

/** The subset of a WHATWG `Response` the fetcher reads. Node's fetch, undici and most wrappers fit. */
export interface FetchLikeResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  /** A WHATWG ReadableStream or any async iterable of bytes; read incrementally and cut at the byte limit. */
  readonly body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
}

/** A fetch-compatible function. It is always called with `redirect: 'manual'` so each hop is counted. */
export type FetchLike = (
  url: string,
  init: {
    method: 'GET';
    headers: Record<string, string>;
    redirect: 'manual';
    signal: AbortSignal;
  },
) => Promise<FetchLikeResponse>;

/**
 * What fetching robots.txt led to, in RFC 9309 terms (2.3.1):
 * - `ok`: 2xx, the body is parsed;
 * - `unavailable`: 4xx (and 401/403 unless configured otherwise), too many redirects: allow all;
 * - `unreachable`: 429, 5xx, network error, timeout: disallow all, retry with backoff.
 */
export type FetchOutcome = 'ok' | 'unavailable' | 'unreachable';

/**
 * What a conditional robots.txt request is made from: the validators of the cached 2xx response and
 * the URL that response came from (the last hop of its redirect chain, RFC 9110 13.1: a validator
 * belongs to the resource that sent it).
 */
export interface RobotsValidators {
  readonly url: string;
  /** Sent as If-None-Match (weak ETags too: If-None-Match compares weakly, RFC 9110 13.1.2). */
  readonly etag?: string;
  /** Sent as If-Modified-Since (RFC 9110 13.1.3). */
  readonly lastModified?: string;
}

/** The raw result of one robots.txt fetch (all redirect hops followed). */
export interface RobotsFetchResult {
  readonly robotsUrl: string;
  /** The URL the body finally came from (after redirects). */
  readonly finalUrl: string;
  /** HTTP status of the last hop; 0 for network error / timeout / too many redirects. */
  readonly status: number;
  readonly redirects: number;
  /** The body bytes (already cut at the byte limit), only for 2xx. */
  readonly body?: Uint8Array;
  /** True when the body was cut at the byte limit. */
  readonly truncated: boolean;
  readonly contentType?: string;
  /** Cache-Control / Expires / Retry-After as sent, for the freshness policy. */
  readonly cacheControl?: string;
  readonly expires?: string;
  readonly retryAfter?: string;
  /** The last hop's validators as sent (RFC 9110 8.8), for a later conditional request. */
  readonly etag?: string;
  readonly lastModified?: string;
  /**
   * True when the last hop carried the conditions of `FetchRobotsOptions.validators` (If-None-Match,
   * If-Modified-Since): only then is a 304 an answer to something we asked.
   */
  readonly conditional?: boolean;
  /** A 304 that came with content, which RFC 9110 15.4.5 says it cannot have: not a usable answer. */
  readonly notModifiedWithBody?: boolean;
  /** Why the fetch failed, for unreachable outcomes. */
  readonly error?: string;
  /**
   * What went wrong when no usable HTTP status came back (status 0), so the policy can tell a
   * redirect chain that ran out of hops (unavailable, 2.3.1.2) from a network failure (unreachable).
   */
  readonly failure?: 'network' | 'timeout' | 'too-many-redirects';
  /**
   * The transport's error code when the fetch failed before any answer (`ECONNREFUSED`, `ENOTFOUND`,
   * `CERT_HAS_EXPIRED`, `ETIMEDOUT` for a timeout), so an adapter can fail as its client would.
   */
  readonly code?: string;
  readonly elapsedMs: number;
}
