/**
 * The Fetch standard's HTTP-redirect fetch (https://fetch.spec.whatwg.org/#http-redirect-fetch) as one
 * pure step: given the request that got a redirect response, the request for the next hop, or why
 * there is none. No I/O, so the rules are tested on their own.
 */
import { type HopRequest, isReplayableBody } from './request.js';

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Headers that describe a body, dropped with it (Fetch: request-body-header name). */
const BODY_HEADERS = [
  'content-encoding',
  'content-language',
  'content-location',
  'content-type',
  'content-length',
];

/**
 * Credentials that must not follow a redirect to another origin. The standard names Authorization;
 * undici's fetch also drops these others (lib/web/fetch/index.js, httpRedirectFetch), and so do we.
 */
const CROSS_ORIGIN_DROPPED = ['authorization', 'proxy-authorization', 'cookie', 'host'];

export type NextHop =
  /** Not a redirect, or a redirect without Location: the response is the answer. */
  | { readonly kind: 'final' }
  | { readonly kind: 'follow'; readonly request: HopRequest }
  /** The standard's "network error": fetch rejects with a TypeError. */
  | { readonly kind: 'error'; readonly message: string };

/**
 * What to do with `status` / `location` received for `request`, after `redirectsSoFar` hops, with at
 * most `maxRedirects` allowed. The caller's `redirect: 'manual' | 'error'` is handled before this.
 */
export function nextHop(
  request: HopRequest,
  status: number,
  location: string | null,
  redirectsSoFar: number,
  maxRedirects: number,
): NextHop {
  if (!REDIRECT_STATUSES.has(status) || location === null) return { kind: 'final' };
  let target: URL;
  try {
    target = new URL(location, request.url);
  } catch {
    return {
      kind: 'error',
      message: `invalid Location ${JSON.stringify(location)} from ${request.url.href}`,
    };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return { kind: 'error', message: `redirect from ${request.url.href} to a ${target.protocol} URL` };
  }
  if (redirectsSoFar >= maxRedirects) {
    return { kind: 'error', message: `redirect count exceeded (${maxRedirects}) at ${request.url.href}` };
  }
  // A Location without a fragment keeps the request's fragment.
  if (target.hash === '' && request.url.hash !== '') target.hash = request.url.hash;

  const hasBody = request.body !== undefined && request.body !== null;
  if (status !== 303 && hasBody && !isReplayableBody(request.body)) {
    return { kind: 'error', message: `cannot send a stream body again to follow a ${status} redirect` };
  }

  const headers = new Map(request.headers);
  let method = request.method;
  let body = request.body;
  if (
    ((status === 301 || status === 302) && method === 'POST') ||
    (status === 303 && method !== 'GET' && method !== 'HEAD')
  ) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) headers.delete(name);
  }
  if (target.origin !== request.url.origin) {
    for (const name of CROSS_ORIGIN_DROPPED) headers.delete(name);
  }
  return { kind: 'follow', request: { ...request, url: target, method, headers, body } };
}
