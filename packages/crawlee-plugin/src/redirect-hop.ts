/**
 * Following a redirect by hand, one hop at a time, so each hop is checked and paced before it goes
 * out. The rules are got's (which Crawlee's got-scraping client used to apply itself): 303 turns the
 * request into a GET (HEAD stays HEAD), 301/302 turn a POST into a GET as browsers and impit do, a
 * body is dropped with the method, and credentials and cookies are not carried to another origin
 * (Crawlee's redirect handler sets the session's cookies for the new URL).
 */
import type { BaseHttpResponseData, HttpRequest, RedirectHandler, ResponseTypes } from '@crawlee/core';

type AnyRequest = HttpRequest<keyof ResponseTypes>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const BODY_HEADERS = ['content-length', 'content-type', 'transfer-encoding'];
const CROSS_ORIGIN_HEADERS = ['authorization', 'cookie'];

/** The next hop's absolute URL when the response is a redirect the caller wants followed. */
export function redirectTarget(request: AnyRequest, response: BaseHttpResponseData): URL | undefined {
  if (!REDIRECT_STATUSES.has(response.statusCode)) return undefined;
  const location = headerValue(response.headers, 'location');
  if (!location) return undefined;
  const follow = request.followRedirect;
  if (follow === false || (typeof follow === 'function' && !follow(response))) return undefined;
  try {
    return new URL(location, response.url || String(request.url));
  } catch {
    return undefined;
  }
}

/** The request for the next hop, after Crawlee's redirect handler had its say (cookies). */
export function nextHop<T extends AnyRequest>(
  request: T,
  response: BaseHttpResponseData,
  target: URL,
  onRedirect: RedirectHandler | undefined,
): T {
  const method = String(request.method ?? 'GET').toUpperCase();
  const toGet =
    (response.statusCode === 303 && method !== 'GET' && method !== 'HEAD') ||
    ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST');
  const headers = { ...request.headers };
  const drop = [
    'host',
    ...(toGet ? BODY_HEADERS : []),
    ...(new URL(String(request.url)).origin !== target.origin ? CROSS_ORIGIN_HEADERS : []),
  ];
  for (const name of Object.keys(headers)) {
    if (drop.includes(name.toLowerCase())) delete headers[name];
  }
  const updated: { url?: string | URL; headers: Record<string, string | string[] | undefined> } = {
    url: target,
    headers,
  };
  onRedirect?.(response, updated);
  const next: T = { ...request, url: String(updated.url ?? target), headers: updated.headers };
  if (toGet) {
    next.method = 'GET';
    delete next.body;
  }
  return next;
}

export function headerValue(
  headers: Record<string, string | string[] | undefined> | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
