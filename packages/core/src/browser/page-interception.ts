/**
 * Puts a BrowserGuard between a page and the network (installed before the page navigates: by hand,
 * or by a crawler's page-creation hook). Pages are told apart by shape; neither library is imported.
 * One handler settles every paused request, over a small adapter per way of pausing:
 * - Puppeteer: `setRequestInterception`, cooperative (priority 0, so a user's handlers coexist);
 *   every redirect hop is a new intercepted request.
 * - Playwright on Chromium: the page's CDP session and the Fetch domain, because `page.route` is not
 *   called for redirect hops (Playwright's docs; seen with 1.65 and Chromium 156). A user's routes
 *   chain with it.
 * - Playwright on Firefox/WebKit (no CDP): `page.route`; redirect hops are judged from the response's
 *   chain after the browser fetched them (`PageGuard.blockedNavigation(page, response)`, redirect-chain.ts).
 * A disallowed navigation gets an empty page, so `page.goto` resolves and the request is skipped
 * rather than failed; a disallowed subresource is aborted. Every library reports a navigation's
 * response and its network failure as page events, which reach the guard the same way.
 */
import type { SendPass } from '../send-pass.js';
import type { BrowserGuard, Verdict } from './browser-guard.js';

export type InterceptionMode = 'puppeteer' | 'cdp' | 'route';

/** The page a skipped navigation shows: nothing to parse, nothing more to load. */
export const BLOCKED_PAGE = '<!doctype html><title>politely: disallowed by robots.txt</title>';

/**
 * Pages intercepted, by any guard (one page is never intercepted twice): how, and the promise that
 * fails their paused requests on closing.
 */
interface Installed {
  mode?: InterceptionMode;
  readonly guard: BrowserGuard;
  readonly closed: Promise<Verdict>;
  close(): void;
}
const installed = new WeakMap<object, Installed>();
const CLOSED: Verdict = { kind: 'fail', error: new Error('the page is closing') };

/** How `guard` intercepts a page, or undefined when it does not. */
export function interceptionOf(page: object, guard: BrowserGuard): InterceptionMode | undefined {
  const entry = installed.get(page);
  return entry?.guard === guard ? entry.mode : undefined;
}

/**
 * Before a page `guard` intercepts closes: fails every request of the page still waiting for a
 * verdict (Chromium lets requests still paused when the interception goes away through unjudged), and
 * gives those failures a moment to reach the browser before the page closes.
 */
export async function pageClosing(page: unknown, guard: BrowserGuard): Promise<void> {
  const entry = page !== null && typeof page === 'object' ? installed.get(page) : undefined;
  if (entry?.guard !== guard) return;
  entry.close();
  entry.guard.pageClosed(page as object);
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Installs the guard on a Playwright or Puppeteer page; resolves once requests are paused, with how
 * (undefined while another call for the same page is still installing). A second call is a no-op.
 */
export async function interceptPage(
  page: unknown,
  guard: BrowserGuard,
): Promise<InterceptionMode | undefined> {
  if (page === null || typeof page !== 'object' || !(isPuppeteerPage(page) || isPlaywrightPage(page))) {
    throw new TypeError(
      'Expected a Playwright or Puppeteer page (with route() and context(), or setRequestInterception())',
    );
  }
  const existing = installed.get(page);
  if (existing) {
    if (existing.guard !== guard)
      throw new TypeError('This page is already intercepted by another page guard');
    return existing.mode;
  }
  let close = () => {};
  const closed = new Promise<Verdict>((resolve) => {
    close = () => resolve(CLOSED);
  });
  const entry: Installed = { guard, closed, close };
  installed.set(page, entry);
  entry.mode = isPuppeteerPage(page)
    ? await interceptPuppeteer(page, guard)
    : await interceptPlaywright(page as PlaywrightPage, guard);
  return entry.mode;
}

// ---- one handler for every library ------------------------------------------------------------

/** A request paused by any of the three interceptions: what the guard reads, and the three answers. */
interface Paused {
  readonly url: string;
  readonly navigation: boolean;
  /** The Network domain's id, when the page's network stack reports the real send (CDP). */
  readonly networkId?: string | undefined;
  headers(): Record<string, string>;
  proceed(headers: Record<string, string> | undefined): Promise<unknown>;
  showBlockedPage(): Promise<unknown>;
  abort(blocked: boolean): Promise<unknown>;
}

type OnWire = (networkId: string | undefined, pass: SendPass | undefined) => void;

async function settle(page: object, paused: Paused, guard: BrowserGuard, onWire: OnWire): Promise<void> {
  const judged = paused.navigation ? guard.navigation(page, paused.url) : guard.subresource(paused.url);
  const closed = installed.get(page)?.closed;
  const verdict = await (closed ? Promise.race([judged, closed]) : judged);
  if (verdict.kind === 'continue') {
    onWire(paused.networkId, verdict.paced);
    const ua = guard.userAgent;
    await paused.proceed(ua ? withUserAgent(paused.headers(), ua) : undefined);
  } else if (verdict.kind === 'block' && paused.navigation) {
    await paused.showBlockedPage();
  } else {
    await paused.abort(verdict.kind === 'block');
  }
}

interface LibraryRequest {
  url(): string;
  isNavigationRequest(): boolean;
  frame(): unknown;
  headers(): Record<string, string>;
  /** Why the request failed, once it has (`requestfailed`), as the browser names it. */
  failure?(): { readonly errorText: string } | null;
}

interface LibraryResponse<R extends LibraryRequest> {
  url(): string;
  status(): number;
  headers(): Record<string, string>;
  request(): R;
}

interface LibraryPage {
  mainFrame(): unknown;
  on(event: 'response' | 'requestfailed', listener: (response: never) => void): unknown;
}

function isMainFrameNavigation(page: LibraryPage, request: LibraryRequest): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    return false; // a service worker's request has no frame
  }
}

/**
 * Each main-frame navigation response reaches the guard with its latency, read from the browser's
 * own timing by `timing` as [request sent, response headers in] in ms from one origin; each network
 * failure of one reaches it with the browser's error text.
 */
function watchOutcomes<R extends LibraryRequest, S extends LibraryResponse<R>>(
  page: LibraryPage,
  guard: BrowserGuard,
  timing: (response: S) => readonly [number | undefined, number | undefined] | undefined,
): void {
  page.on('response', ((response: S) => {
    if (!isMainFrameNavigation(page, response.request())) return;
    let latencyMs: number | undefined;
    try {
      const [sent, answered] = timing(response) ?? [];
      if (typeof sent === 'number' && typeof answered === 'number' && sent >= 0 && answered >= sent)
        latencyMs = answered - sent;
    } catch {
      // No timing: the guard counts from letting the request go.
    }
    void guard.navigationResponse(
      page,
      response.url(),
      response.status(),
      response.headers()['retry-after'],
      latencyMs,
    );
  }) as (response: never) => void);
  // Both libraries report a request's network failure here; the guard judges whose it was.
  page.on('requestfailed', ((request: R) => {
    if (!isMainFrameNavigation(page, request)) return;
    void guard.navigationFailed(page, request.url(), request.failure?.()?.errorText ?? '');
  }) as (request: never) => void);
}

// ---- Puppeteer ---------------------------------------------------------------------------------

interface PuppeteerRequest extends LibraryRequest {
  /** The Network domain's request id. */
  readonly id?: string;
  isInterceptResolutionHandled?(): boolean;
  continue(overrides?: { headers?: Record<string, string> }, priority?: number): Promise<void>;
  respond(response: { status: number; contentType: string; body: string }, priority?: number): Promise<void>;
  abort(errorCode?: string, priority?: number): Promise<void>;
}

interface PuppeteerResponse extends LibraryResponse<PuppeteerRequest> {
  /** CDP's ResourceTiming: ms offsets from `requestTime`. */
  timing?(): { readonly sendEnd?: number; readonly receiveHeadersEnd?: number } | null;
}

interface PuppeteerPage extends LibraryPage {
  setRequestInterception(enabled: boolean): Promise<void>;
  createCDPSession?(): Promise<CdpSession>;
  on(event: 'request', listener: (request: PuppeteerRequest) => Promise<void>): unknown;
  on(event: 'response' | 'requestfailed', listener: (response: never) => void): unknown;
}

function isPuppeteerPage(page: object): page is PuppeteerPage {
  return typeof (page as Partial<PuppeteerPage>).setRequestInterception === 'function';
}

/** Cooperative interception: every handler states a priority, the highest resolution wins. */
const PRIORITY = 0;

async function interceptPuppeteer(page: PuppeteerPage, guard: BrowserGuard): Promise<InterceptionMode> {
  const session = await page.createCDPSession?.().catch(() => undefined);
  const onWire = session ? await watchSends(session, guard) : () => {};
  // Puppeteer queues what a request listener returns (enqueueInterceptAction) and settles the request
  // once that promise resolves, so the verdict can be awaited here.
  page.on('request', async (request) => {
    if (request.isInterceptResolutionHandled?.()) return;
    const paused: Paused = {
      url: request.url(),
      navigation: isMainFrameNavigation(page, request),
      networkId: request.id,
      headers: () => request.headers(),
      proceed: (headers) => request.continue(headers ? { headers } : {}, PRIORITY),
      showBlockedPage: () =>
        request.respond({ status: 200, contentType: 'text/html', body: BLOCKED_PAGE }, PRIORITY),
      abort: (blocked) => request.abort(blocked ? 'blockedbyclient' : 'failed', PRIORITY),
    };
    await settle(page, paused, guard, onWire).catch(() => {
      // The page closed meanwhile; nothing left to answer.
    });
  });
  watchOutcomes(page, guard, (response: PuppeteerResponse) => {
    const timing = response.timing?.();
    return [timing?.sendEnd, timing?.receiveHeadersEnd];
  });
  await page.setRequestInterception(true);
  return 'puppeteer';
}

// ---- Playwright --------------------------------------------------------------------------------

interface CdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  on(event: 'Fetch.requestPaused', listener: (event: PausedEvent) => void): unknown;
  on(event: 'Network.requestWillBeSentExtraInfo', listener: (event: { requestId: string }) => void): unknown;
}

interface PausedEvent {
  readonly requestId: string;
  /** The Network domain's id of the request (kept across its redirect hops). */
  readonly networkId?: string;
  readonly request: { readonly url: string; readonly headers: Record<string, string> };
  readonly resourceType: string;
  readonly frameId: string;
}

interface PlaywrightRequest extends LibraryRequest {
  /** ms offsets from `startTime`; -1 when not available. */
  timing?(): { readonly requestStart?: number; readonly responseStart?: number };
}

interface PlaywrightRoute {
  request(): PlaywrightRequest;
  continue(options?: { headers?: Record<string, string> }): Promise<void>;
  fulfill(options: { status: number; contentType: string; body: string }): Promise<void>;
  abort(errorCode?: string): Promise<void>;
}

interface PlaywrightPage extends LibraryPage {
  route(url: string, handler: (route: PlaywrightRoute) => unknown): Promise<void>;
  context(): { newCDPSession?(page: unknown): Promise<CdpSession> };
}

function isPlaywrightPage(page: object): page is PlaywrightPage {
  const candidate = page as Partial<PlaywrightPage>;
  return typeof candidate.route === 'function' && typeof candidate.context === 'function';
}

async function interceptPlaywright(page: PlaywrightPage, guard: BrowserGuard): Promise<InterceptionMode> {
  watchOutcomes(page, guard, (response: LibraryResponse<PlaywrightRequest>) => {
    const timing = response.request().timing?.();
    return [timing?.requestStart, timing?.responseStart];
  });
  const session = await page
    .context()
    .newCDPSession?.(page)
    .catch(() => undefined);
  if (session) {
    await interceptWithCdp(page, session, guard);
    return 'cdp';
  }
  await page.route('**/*', async (route) => {
    const request = route.request();
    const paused: Paused = {
      url: request.url(),
      navigation: isMainFrameNavigation(page, request),
      headers: () => request.headers(),
      proceed: (headers) => route.continue(headers ? { headers } : {}),
      showBlockedPage: () => route.fulfill({ status: 200, contentType: 'text/html', body: BLOCKED_PAGE }),
      abort: (blocked) => route.abort(blocked ? 'blockedbyclient' : 'failed'),
    };
    await settle(page, paused, guard, () => {}).catch(() => {
      // The page closed meanwhile.
    });
  });
  return 'route';
}

async function interceptWithCdp(page: object, session: CdpSession, guard: BrowserGuard): Promise<void> {
  const tree = (await session.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const mainFrameId = tree.frameTree.frame.id;
  const onWire = await watchSends(session, guard);
  session.on('Fetch.requestPaused', (event) => {
    const { requestId, request } = event;
    const paused: Paused = {
      url: request.url,
      // Redirect hops of the main frame's navigation are paused here too, each as a Document request.
      navigation: event.resourceType === 'Document' && event.frameId === mainFrameId,
      networkId: event.networkId,
      headers: () => request.headers,
      proceed: (headers) =>
        session.send('Fetch.continueRequest', {
          requestId,
          ...(headers ? { headers: Object.entries(headers).map(([name, value]) => ({ name, value })) } : {}),
        }),
      showBlockedPage: () =>
        session.send('Fetch.fulfillRequest', {
          requestId,
          responseCode: 200,
          responseHeaders: [{ name: 'content-type', value: 'text/html' }],
          body: Buffer.from(BLOCKED_PAGE).toString('base64'),
        }),
      abort: (blocked) =>
        session.send('Fetch.failRequest', { requestId, errorReason: blocked ? 'BlockedByClient' : 'Failed' }),
    };
    void settle(page, paused, guard, onWire).catch(() => {
      // The page or its session closed meanwhile.
    });
  });
  await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
}

/**
 * Paced navigations let go, by Network request id, until the network stack reports sending them
 * (`requestWillBeSentExtraInfo` comes with the headers really sent): then their host's next slot
 * counts from that moment. Also sets the page's User-Agent.
 */
async function watchSends(session: CdpSession, guard: BrowserGuard): Promise<OnWire> {
  const letGo = new Map<string, SendPass>();
  session.on('Network.requestWillBeSentExtraInfo', ({ requestId }) => {
    const pass = letGo.get(requestId);
    if (pass === undefined) return;
    letGo.delete(requestId);
    void guard.navigationOnWire(pass);
  });
  await session.send('Network.enable');
  // Requests the browser makes on its own behalf (a favicon) may not be paused, so the header rewrite
  // cannot reach them; the page-level override does, and `navigator.userAgent` agrees with it.
  if (guard.userAgent !== undefined) {
    await session.send('Network.setUserAgentOverride', { userAgent: guard.userAgent }).catch(() => {});
  }
  return (networkId, pass) => {
    if (networkId !== undefined && pass !== undefined) letGo.set(networkId, pass);
  };
}

function withUserAgent(headers: Record<string, string>, userAgent: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'user-agent') result[name] = value;
  }
  result['user-agent'] = userAgent;
  return result;
}
