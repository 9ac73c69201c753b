/**
 * Pausing a Puppeteer page's requests with `setRequestInterception`, cooperatively (priority 0, so a
 * user's own request handlers coexist with ours). Every redirect hop is a new intercepted request, so
 * each hop is judged before it is sent. When the page offers a CDP session, its Network domain tells
 * when a navigation really leaves (intercept-cdp.ts).
 */
import type { BrowserGuard, Verdict } from './browser-guard.js';
import { type CdpSession, type Watched, watchSends } from './intercept-cdp.js';
import {
  isMainFrameNavigation,
  type LibraryPage,
  type LibraryRequest,
  type LibraryResponse,
  watchOutcomes,
} from './library-page.js';
import { BLOCKED_PAGE, type Paused, settle } from './paused-request.js';

interface PuppeteerRequest extends LibraryRequest {
  /** The Network domain's request id. */
  readonly id?: string;
  resourceType?(): string;
  isInterceptResolutionHandled?(): boolean;
  continue(overrides?: { headers?: Record<string, string> }, priority?: number): Promise<void>;
  respond(response: { status: number; contentType: string; body: string }, priority?: number): Promise<void>;
  abort(errorCode?: string, priority?: number): Promise<void>;
}

interface PuppeteerResponse extends LibraryResponse<PuppeteerRequest> {
  /** CDP's ResourceTiming: ms offsets from `requestTime` (the browser's monotonic clock, in s). */
  timing?(): {
    readonly requestTime?: number;
    readonly sendEnd?: number;
    readonly receiveHeadersEnd?: number;
  } | null;
}

export interface PuppeteerPage extends LibraryPage {
  setRequestInterception(enabled: boolean): Promise<void>;
  createCDPSession?(): Promise<CdpSession>;
  on(event: 'request', listener: (request: PuppeteerRequest) => Promise<void>): unknown;
  on(event: 'response' | 'requestfailed', listener: (response: never) => void): unknown;
}

export function isPuppeteerPage(page: object): page is PuppeteerPage {
  return typeof (page as Partial<PuppeteerPage>).setRequestInterception === 'function';
}

/** Cooperative interception: every handler states a priority, the highest resolution wins. */
const PRIORITY = 0;

export async function interceptPuppeteer(
  page: PuppeteerPage,
  guard: BrowserGuard,
  closed: Promise<Verdict>,
): Promise<Watched['blockAll'] | undefined> {
  const session = await page.createCDPSession?.().catch(() => undefined);
  const watched = session ? await watchSends(session, guard) : undefined;
  const onWire = watched?.onWire ?? (() => {});
  // The browser's monotonic clock on the wall clock (epoch ms minus monotonic ms), from any request's
  // pair of times: it places a response's timing, which Puppeteer gives on the monotonic clock only.
  let wallMinusMonotonicMs: number | undefined;
  session?.on('Network.requestWillBeSent', ({ timestamp, wallTime }) => {
    if (typeof timestamp === 'number' && typeof wallTime === 'number')
      wallMinusMonotonicMs = (wallTime - timestamp) * 1000;
  });
  // Puppeteer queues what a request listener returns (enqueueInterceptAction) and settles the request
  // once that promise resolves, so the verdict can be awaited here.
  page.on('request', async (request) => {
    if (request.isInterceptResolutionHandled?.()) return;
    const paused: Paused = {
      url: request.url(),
      navigation: isMainFrameNavigation(page, request),
      resourceType: request.resourceType?.() ?? '',
      networkId: request.id,
      headers: () => request.headers(),
      proceed: (headers) => request.continue(headers ? { headers } : {}, PRIORITY),
      showBlockedPage: () =>
        request.respond({ status: 200, contentType: 'text/html', body: BLOCKED_PAGE }, PRIORITY),
      abort: (reason) => request.abort(reason, PRIORITY),
    };
    await settle(page, paused, guard, closed, onWire).catch(() => {
      // The page closed meanwhile; nothing left to answer.
    });
  });
  watchOutcomes(page, guard, (response: PuppeteerResponse) => {
    const timing = response.timing?.();
    const origin =
      timing?.requestTime !== undefined && wallMinusMonotonicMs !== undefined
        ? timing.requestTime * 1000 + wallMinusMonotonicMs
        : undefined;
    return [timing?.sendEnd, timing?.receiveHeadersEnd, origin];
  });
  await page.setRequestInterception(true);
  return watched?.blockAll;
}
