/**
 * Following a redirect by hand, one hop at a time, so each hop is checked and paced before it goes
 * out. What the redirect does to the method, the body and the headers is core's rule
 * (`redirectChange`, got's and the Fetch standard's, which Crawlee's got-scraping client applies
 * when it follows redirects itself); this file fits it to Crawlee's request shape and lets Crawlee's redirect handler
 * have its say (it sets the session's cookies for the new URL).
 */
import type { BaseHttpResponseData, HttpRequest, RedirectHandler, ResponseTypes } from '@crawlee/core';
import { isRedirectStatus, redirectChange } from '@politely/core/adapter';

type AnyRequest = HttpRequest<keyof ResponseTypes>;

/** The next hop's absolute URL when the response is a redirect the caller wants followed. */
export function redirectTarget(request: AnyRequest, response: BaseHttpResponseData): URL | undefined {
  if (!isRedirectStatus(response.statusCode)) return undefined;
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
  const change = redirectChange(
    response.statusCode,
    String(request.method ?? 'GET'),
    new URL(String(request.url)),
    target,
  );
  const headers = { ...request.headers };
  // Host always goes: the client sets it from each hop's URL.
  const drop = ['host', ...change.droppedHeaders];
  for (const name of Object.keys(headers)) {
    if (drop.includes(name.toLowerCase())) delete headers[name];
  }
  const updated: { url?: string | URL; headers: Record<string, string | string[] | undefined> } = {
    url: target,
    headers,
  };
  onRedirect?.(response, updated);
  const next: T = { ...request, url: String(updated.url ?? target), headers: updated.headers };
  if (change.dropsBody) {
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
