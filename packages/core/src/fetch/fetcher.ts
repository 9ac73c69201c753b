/**
 * Fetches one robots.txt: manual redirects (each hop counted, any host), a byte limit on the body, and
 * one timeout over the whole exchange. Network trouble is a result (status 0), never a throw.
 */
import { raceAbort } from '../kernel/abort.js';
import { startDeadline } from '../kernel/deadline.js';
import { redactCredentials, withoutCredentials } from '../kernel/redact.js';
import { isRedirectStatus } from '../kernel/redirect-rule.js';
import { discard, readBounded } from './read-body.js';
import type { FetchLike, FetchLikeResponse, RobotsFetchResult, RobotsValidators } from './types.js';

export interface FetchRobotsOptions {
  /** Default: Node's global fetch. */
  readonly fetch?: FetchLike;
  /** Sent as the User-Agent header. */
  readonly userAgent: string;
  /** One budget for every hop and the body, in ms. */
  readonly timeoutMs: number;
  /** Body bytes read at most; the rest is cancelled. */
  readonly maxBytes: number;
  /** Redirect hops followed; one more is "too many redirects" (RFC 9309 2.3.1.2). */
  readonly maxRedirects: number;
  /** The caller's own cancellation: rejects with its reason (this is not a fetch outcome). */
  readonly signal?: AbortSignal;
  /**
   * The cached copy's validators: the hop to `validators.url` (the URL the copy came from) carries
   * If-None-Match / If-Modified-Since, so the site can answer 304 Not Modified. No other hop does.
   */
  readonly validators?: RobotsValidators;
  /** The Accept header. Default: plain text first (robots.txt); the TDMRep file asks for JSON. */
  readonly accept?: string;
}

const ACCEPT = 'text/plain, */*;q=0.1';

/** Node's fetch in the FetchLike shape. */
export const nodeFetch: FetchLike = (url, init) => fetch(url, init);

class FetchTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = 'FetchTimeout';
  }
}

export async function fetchRobotsTxt(
  robotsUrl: string,
  options: FetchRobotsOptions,
): Promise<RobotsFetchResult> {
  const fetchImpl = options.fetch ?? nodeFetch;
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  options.signal?.throwIfAborted();

  const controller = new AbortController();
  const cancelDeadline = startDeadline(options.timeoutMs, () =>
    controller.abort(new FetchTimeout(options.timeoutMs)),
  );
  const onCallerAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const headers = { 'User-Agent': options.userAgent, Accept: options.accept ?? ACCEPT };
  const conditionalHeaders = conditionsOf(options.validators, headers);

  let url = robotsUrl;
  let redirects = 0;
  let lastHop: FetchLikeResponse | undefined;
  let conditional = false;
  const failed = (
    failure: RobotsFetchResult['failure'],
    error: string,
    status = 0,
    code?: string,
  ): RobotsFetchResult => ({
    robotsUrl,
    finalUrl: withoutCredentials(url),
    status,
    redirects,
    truncated: false,
    ...(lastHop ? headerFields(lastHop) : {}),
    // A site's Location or a fetch error may carry userinfo: never shown (kernel/redact.ts).
    error: redactCredentials(error),
    ...(failure ? { failure } : {}),
    ...(code ? { code } : {}),
    elapsedMs: elapsed(),
  });

  try {
    let response: FetchLikeResponse;
    for (;;) {
      // Conditions go only where the cached response came from: a redirect that now leads elsewhere
      // gets a plain request, and a 304 from there is one we did not ask for.
      conditional = conditionalHeaders !== undefined && withoutCredentials(url) === options.validators?.url;
      const hopHeaders = conditional && conditionalHeaders ? conditionalHeaders : headers;
      const hop = await raceAbort(
        Promise.resolve().then(() =>
          fetchImpl(url, {
            method: 'GET',
            headers: hopHeaders,
            redirect: 'manual',
            signal: controller.signal,
          }),
        ),
        controller.signal,
      );
      lastHop = hop;
      if (!isRedirectStatus(hop.status)) {
        response = hop;
        break;
      }
      discard(hop);
      const next = redirectTarget(hop, url);
      if (typeof next !== 'string') return failed(undefined, next.error, hop.status);
      if (redirects >= options.maxRedirects) {
        return failed('too-many-redirects', `too many redirects (more than ${options.maxRedirects})`);
      }
      redirects++;
      url = next;
    }

    const base = {
      robotsUrl,
      finalUrl: withoutCredentials(url),
      status: response.status,
      redirects,
      ...headerFields(response),
      ...(conditional ? { conditional } : {}),
    };
    if (response.status === 304 && conditional) {
      // One byte tells a 304 with content (a broken server or proxy) from a proper one.
      const extra = response.body ? await readBounded(response.body, 1, controller.signal) : undefined;
      const withBody = (extra?.bytes.byteLength ?? 0) > 0;
      return {
        ...base,
        truncated: false,
        ...(withBody ? { notModifiedWithBody: true } : {}),
        elapsedMs: elapsed(),
      };
    }
    if (response.status < 200 || response.status > 299 || !response.body) {
      discard(response);
      return {
        ...base,
        ...(isSuccess(response.status) ? { body: new Uint8Array() } : {}),
        truncated: false,
        elapsedMs: elapsed(),
      };
    }
    const { bytes, truncated } = await readBounded(response.body, options.maxBytes, controller.signal);
    return { ...base, body: bytes, truncated, elapsedMs: elapsed() };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (controller.signal.reason instanceof FetchTimeout)
      return failed('timeout', controller.signal.reason.message, 0, 'ETIMEDOUT');
    return failed('network', describe(error), 0, codeOf(error));
  } finally {
    cancelDeadline();
    options.signal?.removeEventListener('abort', onCallerAbort);
    // Closes whatever connection is still open (an endless or cut body, a hop in flight).
    if (!controller.signal.aborted) controller.abort();
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

function redirectTarget(response: FetchLikeResponse, from: string): string | { error: string } {
  const location = response.headers.get('location');
  if (!location) return { error: `redirect ${response.status} without a Location header` };
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    return { error: `redirect to an invalid Location "${location}"` };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return { error: `redirect to a non-http(s) URL "${target.protocol}"` };
  }
  target.hash = '';
  return target.href;
}

/** The request headers with the validators' conditions, or undefined when there are none to send. */
function conditionsOf(
  validators: RobotsValidators | undefined,
  headers: Record<string, string>,
): Record<string, string> | undefined {
  if (!validators || (validators.etag === undefined && validators.lastModified === undefined))
    return undefined;
  return {
    ...headers,
    // Both when both are known: a server evaluates If-None-Match and then ignores If-Modified-Since
    // (RFC 9110 13.2.2), and one that keeps only dates still answers the date.
    ...(validators.etag !== undefined ? { 'If-None-Match': validators.etag } : {}),
    ...(validators.lastModified !== undefined ? { 'If-Modified-Since': validators.lastModified } : {}),
  };
}

/** The result's fields filled from response headers of these names. */
const HEADER_FIELDS = {
  contentType: 'content-type',
  cacheControl: 'cache-control',
  expires: 'expires',
  retryAfter: 'retry-after',
  etag: 'etag',
  lastModified: 'last-modified',
} as const;

function headerFields(response: FetchLikeResponse) {
  const fields: { -readonly [F in keyof typeof HEADER_FIELDS]?: string } = {};
  for (const field of Object.keys(HEADER_FIELDS) as (keyof typeof HEADER_FIELDS)[]) {
    const value = response.headers.get(HEADER_FIELDS[field]);
    if (value !== null) fields[field] = value;
  }
  return fields;
}

/**
 * The transport's own error code (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`, got's `ETIMEDOUT`):
 * on the error (Node's http, got), or on its cause (undici's fetch wraps it in "fetch failed").
 */
function codeOf(error: unknown): string | undefined {
  for (
    let current = error, depth = 0;
    depth < 3 && typeof current === 'object' && current !== null;
    depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0 && code.length <= 64) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** "fetch failed: connect ECONNREFUSED 127.0.0.1:9" rather than undici's bare "fetch failed". */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.message && cause.message !== error.message) {
    return `${error.message}: ${cause.message}`;
  }
  return error.message;
}
