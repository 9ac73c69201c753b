/**
 * Pausing a Playwright page's requests. On Chromium the page has a CDP session and the Fetch domain
 * pauses every redirect hop (intercept-cdp.ts); on Firefox and WebKit (no CDP) it is `page.route`,
 * which is not called for redirect hops, so those are judged from the response's chain after the
 * browser fetched them (`PageGuard.blockedNavigation(page, response)`, redirect-chain.ts).
 */
import type { BrowserGuard, Verdict } from './browser-guard.js';
import { type CdpSession, interceptWithCdp, type Watched } from './intercept-cdp.js';
import {
  isMainFrameNavigation,
  type LibraryPage,
  type LibraryRequest,
  type LibraryResponse,
  watchOutcomes,
} from './library-page.js';
import { BLOCKED_PAGE, type Paused, settle } from './paused-request.js';

interface PlaywrightRequest extends LibraryRequest {
  resourceType?(): string;
  /** ms offsets from `startTime` (epoch ms); -1 when not available. */
  timing?(): { readonly startTime?: number; readonly requestStart?: number; readonly responseStart?: number };
}

interface PlaywrightRoute {
  request(): PlaywrightRequest;
  continue(options?: { headers?: Record<string, string> }): Promise<void>;
  fulfill(options: { status: number; contentType: string; body: string }): Promise<void>;
  abort(errorCode?: string): Promise<void>;
}

export interface PlaywrightPage extends LibraryPage {
  route(url: string, handler: (route: PlaywrightRoute) => unknown): Promise<void>;
  context(): { newCDPSession?(page: unknown): Promise<CdpSession> };
}

export function isPlaywrightPage(page: object): page is PlaywrightPage {
  const candidate = page as Partial<PlaywrightPage>;
  return typeof candidate.route === 'function' && typeof candidate.context === 'function';
}

/** Resolves once requests are paused, with how, and how to block the page's requests (CDP only). */
export async function interceptPlaywright(
  page: PlaywrightPage,
  guard: BrowserGuard,
  closed: Promise<Verdict>,
): Promise<{ mode: 'cdp' | 'route'; blockAll?: Watched['blockAll'] }> {
  watchOutcomes(page, guard, (response: LibraryResponse<PlaywrightRequest>) => {
    const timing = response.request().timing?.();
    return [timing?.requestStart, timing?.responseStart, timing?.startTime];
  });
  const session = await page
    .context()
    .newCDPSession?.(page)
    .catch(() => undefined);
  if (session) {
    const { blockAll } = await interceptWithCdp(page, session, guard, closed);
    return { mode: 'cdp', blockAll };
  }
  await page.route('**/*', async (route) => {
    const request = route.request();
    const paused: Paused = {
      url: request.url(),
      navigation: isMainFrameNavigation(page, request),
      resourceType: request.resourceType?.() ?? '',
      headers: () => request.headers(),
      proceed: (headers) => route.continue(headers ? { headers } : {}),
      showBlockedPage: () => route.fulfill({ status: 200, contentType: 'text/html', body: BLOCKED_PAGE }),
      abort: (reason) => route.abort(reason),
    };
    await settle(page, paused, guard, closed, () => {}).catch(() => {
      // The page closed meanwhile.
    });
  });
  return { mode: 'route' };
}
