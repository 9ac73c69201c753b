/**
 * The page's icon, which Chromium fetches by itself after each navigation (`/favicon.ico`, or the
 * page's `<link rel="icon">`): a crawler has no use for it, and it would reach the host inside the
 * delay asked between two requests (85-490 ms after each navigation, seen at the wire).
 *
 * Two locks, because one is not enough. The paused-request interception refuses it (Chromium classes
 * it as 'Other' yet asks for an image, `Accept: image/...`, which no other request of a page does: an
 * <img> is 'Image', a beacon 'Ping', fetch() 'Fetch'); but Chromium starts it after the load event,
 * and a page closed right after (as Crawlee does once the handler is done) loses its interception
 * first: the request then leaves unjudged (seen with Puppeteer, 200 ms after the navigation, two CPU
 * burners). So `/favicon.ico`, the one Chromium asks for when a page names no icon, is also blocked in
 * the renderer before the page's first navigation (`Network.setBlockedURLs` on the page's own CDP
 * session), which refuses it before it is a network request at all: with Chromium 156 no
 * `/favicon.ico` reached the host, closing pages right after `goto` or not, where every page sent one
 * without the block. An icon the page names itself cannot be told apart by its URL: it is refused by
 * the interception while the page lives, and by blocking every request in the renderer before the
 * page closes (`blockEverything`).
 */

import { raceAbort } from '../kernel/abort.js';

/** A page's devtools protocol session, as far as blocking reads it. */
interface CdpSender {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
}

/** Whether a paused request is the browser fetching the page's icon. */
export function isFaviconRequest(url: string, resourceType: string, accept: string | undefined): boolean {
  if (resourceType.toLowerCase() !== 'other') return false;
  if (accept?.trimStart().toLowerCase().startsWith('image/')) return true;
  try {
    return new URL(url).pathname === '/favicon.ico';
  } catch {
    return false;
  }
}

/**
 * Blocks `/favicon.ico` for the page of `session` (its Network domain enabled). `urlPatterns` (URL
 * Pattern syntax, the port a wildcard so 127.0.0.1:8080 matches too) is what Chromium reads today;
 * `urls` (deprecated, a plain wildcard, so also any path ending in /favicon.ico) is what older ones
 * read. A browser that knows neither leaves the interception as the only lock.
 */
export function blockDefaultIcon(session: CdpSender): Promise<void> {
  return blockInRenderer(session, '/favicon.ico');
}

/**
 * Blocks every further request of the page of `session`, before the page closes. Chromium starts a
 * page's named icon (`<link rel="icon">`) after the load event; a page closed right after loses its
 * interception while that request may just be starting, and it then leaves unjudged (seen with
 * Puppeteer: 11 icons of 20 pages reached the host under two CPU burners). Blocked in the renderer
 * first, it never becomes a network request. Bounded: a renderer that does not answer within
 * `timeoutMs` is closing anyway.
 */
export function blockEverything(session: CdpSender, timeoutMs = 1000): Promise<void> {
  return raceAbort(blockInRenderer(session, '/*'), AbortSignal.timeout(timeoutMs)).catch(() => {});
}

function blockInRenderer(session: CdpSender, path: string): Promise<void> {
  return session
    .send('Network.setBlockedURLs', {
      urlPatterns: [{ urlPattern: `*://*:*${path}`, block: true }],
      urls: [`*${path}`],
    })
    .then(
      () => {},
      () => {},
    );
}
