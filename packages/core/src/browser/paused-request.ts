/**
 * One request paused by any of the three interceptions (Puppeteer, Playwright's `page.route`, CDP's
 * Fetch domain), seen through one small shape, and the one handler that settles it: the guard judges,
 * then the request goes on (with our User-Agent), gets an empty page, or is aborted. The page's icon,
 * which the browser fetches by itself, is aborted before any of that (favicon.ts). Keeping the
 * decision here means each library's adapter only translates its own way of answering.
 */
import type { Hop } from '../adapter/hop.js';
import type { BrowserGuard, Verdict } from './browser-guard.js';
import { isFaviconRequest } from './favicon.js';
import type { AbortReason } from './network-error.js';

/** The page a skipped navigation shows: nothing to parse, nothing more to load. */
// The empty icon (`data:,`) keeps Chromium from asking the host for /favicon.ico of a page it never
// saw: that request can leave after the page's interception is gone (favicon.ts).
export const BLOCKED_PAGE =
  '<!doctype html><link rel="icon" href="data:,"><title>politely: disallowed by robots.txt</title>';

/** A request paused by any of the three interceptions: what the guard reads, and the three answers. */
export interface Paused {
  readonly url: string;
  readonly navigation: boolean;
  /** How the browser classes it ('Document', 'Image', 'Other'...: CDP's names, any case). */
  readonly resourceType: string;
  /** The Network domain's id, when the page's network stack reports the real send (CDP). */
  readonly networkId?: string | undefined;
  headers(): Record<string, string>;
  proceed(headers: Record<string, string> | undefined): Promise<unknown>;
  showBlockedPage(): Promise<unknown>;
  abort(reason: AbortReason): Promise<unknown>;
}

/** Told of each request let go, so its send can be reported once the browser really makes it. */
export type OnWire = (networkId: string | undefined, pass: Hop | undefined) => void;

/**
 * Judges `paused` and answers it. `closed` settles (as a failure) when the page starts closing, so
 * a request still waiting for its host's slot is not left paused behind a page that is gone.
 */
export async function settle(
  page: object,
  paused: Paused,
  guard: BrowserGuard,
  closed: Promise<Verdict>,
  onWire: OnWire,
): Promise<void> {
  if (!paused.navigation && isFaviconRequest(paused.url, paused.resourceType, accept(paused.headers()))) {
    // Not the site's to see: answered here, not reported as a robots.txt skip (it was not one).
    await paused.abort('blockedbyclient');
    return;
  }
  const judged = paused.navigation ? guard.navigation(page, paused.url) : guard.subresource(paused.url);
  const verdict = await Promise.race([judged, closed]);
  if (verdict.kind === 'continue') {
    onWire(paused.networkId, verdict.paced);
    const ua = guard.userAgent;
    await paused.proceed(ua ? withUserAgent(paused.headers(), ua) : undefined);
  } else if (verdict.kind === 'block' && paused.navigation) {
    await paused.showBlockedPage();
  } else if (verdict.kind === 'block') {
    await paused.abort('blockedbyclient');
  } else {
    await paused.abort(verdict.reason ?? 'failed');
  }
}

function accept(headers: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === 'accept') return value;
  return undefined;
}

function withUserAgent(headers: Record<string, string>, userAgent: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'user-agent') result[name] = value;
  }
  result['user-agent'] = userAgent;
  return result;
}
