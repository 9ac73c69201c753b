/**
 * The Fetch standard's HTTP-redirect fetch (https://fetch.spec.whatwg.org/#http-redirect-fetch) as one
 * pure step: given the request that got a redirect response, the request for the next hop, or why
 * there is none. What the redirect does to the method, the body and the headers is core's rule
 * (`redirectChange`, shared with the Crawlee plugin); this file adds fetch's own limits. No I/O, so
 * the rules are tested on their own.
 */
import { isRedirectStatus, redirectChange } from '@politely/core/adapter';
import { type HopRequest, isReplayableBody } from './request.js';

export type NextHop =
  /** Not a redirect, or a redirect without Location: the response is the answer. */
  | { readonly kind: 'final' }
  | { readonly kind: 'follow'; readonly request: HopRequest }
  /** The standard's "network error": fetch rejects with `TypeError('fetch failed')` and this cause. */
  | { readonly kind: 'error'; readonly cause: Error };

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
  if (!isRedirectStatus(status) || location === null) return { kind: 'final' };
  let target: URL;
  try {
    target = new URL(location, request.url);
  } catch (error) {
    return { kind: 'error', cause: error as Error };
  }
  // The causes carry undici's own messages, so code that matches fetch's errors matches ours.
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return { kind: 'error', cause: new Error('URL scheme must be a HTTP(S) scheme') };
  }
  if (redirectsSoFar >= maxRedirects) return { kind: 'error', cause: new Error('redirect count exceeded') };
  if (request.rest.mode === 'same-origin' && target.origin !== request.url.origin) {
    return { kind: 'error', cause: new Error('request mode cannot be "same-origin"') };
  }
  // A Location without a fragment keeps the request's fragment.
  if (target.hash === '' && request.url.hash !== '') target.hash = request.url.hash;

  const hasBody = request.body !== undefined && request.body !== null;
  if (status !== 303 && hasBody && !isReplayableBody(request.body)) {
    // undici's cause has no message here.
    return { kind: 'error', cause: new Error('') };
  }

  const change = redirectChange(status, request.method, request.url, target);
  const headers = new Headers(request.headers);
  for (const name of change.droppedHeaders) headers.delete(name);
  const body = change.dropsBody ? undefined : request.body;
  return { kind: 'follow', request: { ...request, url: target, method: change.method, headers, body } };
}
