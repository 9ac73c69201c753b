/**
 * Puts a BrowserGuard between a page and the network, for Playwright and Puppeteer pages (told apart
 * by shape; neither library is imported). Installed by the browser pool's postPageCreateHooks, so it
 * is in place before the crawler navigates.
 *
 * - Puppeteer: `page.setRequestInterception(true)` pauses every request, redirect hops included
 *   (each hop is a new intercepted request). Cooperative mode (priority 0), so a user's own handlers
 *   can coexist.
 * - Playwright on Chromium: `page.route` is not called for redirect hops ("the handler will only be
 *   called for the first url if the response is a redirect", Playwright's docs; verified with 1.65 and
 *   Chromium 156: `/go` -> 301 `/hop2` -> 302 `/private/x` showed one route call and the server saw all
 *   three). So the interception uses the page's own CDP session and the Fetch domain, which pauses
 *   every hop. Playwright's routes, if the user has any, chain with it.
 * - Playwright on Firefox/WebKit (no CDP): `page.route`, which cannot see redirect hops; those are
 *   judged from the response chain before the handler runs (skip-blocked-navigation.ts), after the
 *   browser fetched them.
 *
 * A disallowed navigation is answered in the browser with an empty page, so `page.goto` resolves and
 * the request can be skipped rather than failed; a disallowed subresource is aborted.
 */
import type { Decision } from '@politely/core';
import type { BrowserGuard, Verdict } from './browser-guard.js';

export type InterceptionMode = 'puppeteer' | 'cdp' | 'route';

/** The page a skipped navigation shows: nothing to parse, nothing more to load. */
export const BLOCKED_PAGE = '<!doctype html><title>politely: disallowed by robots.txt</title>';

const modes = new WeakMap<object, InterceptionMode>();

/** How a page is intercepted, or undefined when it is not (not a page this plugin installed on). */
export function interceptionOf(page: object): InterceptionMode | undefined {
  return modes.get(page);
}

const closing = new WeakMap<
  object,
  { readonly closed: Promise<Verdict>; readonly guard: BrowserGuard; close(): void }
>();
const CLOSED: Verdict = { kind: 'fail', error: new Error('the page is closing') };

/**
 * The verdict for a paused request, or a failure as soon as its page starts closing: Chromium lets
 * requests still paused when the interception goes away through unjudged, so none may be left.
 */
function verdictFor(page: object, navigation: boolean, url: string, guard: BrowserGuard): Promise<Verdict> {
  const judged = navigation ? guard.navigation(page, url) : guard.subresource(url);
  const closed = closing.get(page)?.closed;
  return closed ? Promise.race([judged, closed]) : judged;
}

/**
 * For the browser pool's prePageCloseHooks: fails every request of the page still waiting for a
 * verdict, and gives those failures a moment to reach the browser before the page closes.
 */
export async function pageClosing(page: unknown): Promise<void> {
  if (page === null || typeof page !== 'object') return;
  const entry = closing.get(page);
  if (!entry) return;
  entry.close();
  entry.guard.pageClosed(page);
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Installs the guard on a Playwright or Puppeteer page; resolves once requests are paused. */
export async function interceptPage(
  page: unknown,
  guard: BrowserGuard,
): Promise<InterceptionMode | undefined> {
  if (page === null || typeof page !== 'object' || modes.has(page)) return undefined;
  let close = () => {};
  const closed = new Promise<Verdict>((resolve) => {
    close = () => resolve(CLOSED);
  });
  closing.set(page, { closed, guard, close });
  let mode: InterceptionMode | undefined;
  if (isPuppeteerPage(page)) mode = await interceptPuppeteer(page, guard);
  else if (isPlaywrightPage(page)) mode = await interceptPlaywright(page, guard);
  if (mode) modes.set(page, mode);
  return mode;
}

// ---- Puppeteer ---------------------------------------------------------------------------------

interface PuppeteerRequest {
  /** The Network domain's request id. */
  readonly id?: string;
  url(): string;
  isNavigationRequest(): boolean;
  frame(): unknown;
  headers(): Record<string, string>;
  isInterceptResolutionHandled?(): boolean;
  continue(overrides?: { headers?: Record<string, string> }, priority?: number): Promise<void>;
  respond(response: { status: number; contentType: string; body: string }, priority?: number): Promise<void>;
  abort(errorCode?: string, priority?: number): Promise<void>;
}

interface PuppeteerResponse {
  /** CDP's ResourceTiming: ms offsets from `requestTime`. */
  timing?(): { readonly sendEnd?: number; readonly receiveHeadersEnd?: number } | null;
  url(): string;
  status(): number;
  headers(): Record<string, string>;
  request(): PuppeteerRequest;
}

interface PuppeteerPage {
  setRequestInterception(enabled: boolean): Promise<void>;
  createCDPSession?(): Promise<CdpSession>;
  mainFrame(): unknown;
  on(event: 'request', listener: (request: PuppeteerRequest) => Promise<void>): unknown;
  on(event: 'response', listener: (response: PuppeteerResponse) => void): unknown;
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
  page.on('request', (request) =>
    settlePuppeteer(page, request, guard, onWire).catch(() => {
      // The page closed meanwhile; nothing left to answer.
    }),
  );
  page.on('response', (response) => {
    const request = response.request();
    if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return;
    const latencyMs = puppeteerLatency(response);
    void guard.navigationResponse(
      page,
      response.url(),
      response.status(),
      response.headers()['retry-after'],
      latencyMs,
    );
  });
  await page.setRequestInterception(true);
  return 'puppeteer';
}

async function settlePuppeteer(
  page: PuppeteerPage,
  request: PuppeteerRequest,
  guard: BrowserGuard,
  onWire: (networkId: string | undefined, decision: Decision | undefined) => void,
) {
  if (request.isInterceptResolutionHandled?.()) return;
  const navigation = request.isNavigationRequest() && request.frame() === page.mainFrame();
  const verdict = await verdictFor(page, navigation, request.url(), guard);
  if (verdict.kind === 'continue') {
    const ua = guard.userAgent;
    onWire(request.id, verdict.paced);
    return request.continue(ua ? { headers: withUserAgent(request.headers(), ua) } : {}, PRIORITY);
  }
  if (verdict.kind === 'block' && navigation) {
    return request.respond({ status: 200, contentType: 'text/html', body: BLOCKED_PAGE }, PRIORITY);
  }
  return request.abort(verdict.kind === 'block' ? 'blockedbyclient' : 'failed', PRIORITY);
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

interface PlaywrightRequest {
  /** ms offsets from `startTime`; -1 when not available. */
  timing?(): { readonly requestStart?: number; readonly responseStart?: number };
  url(): string;
  isNavigationRequest(): boolean;
  frame(): unknown;
  headers(): Record<string, string>;
}

interface PlaywrightRoute {
  request(): PlaywrightRequest;
  continue(options?: { headers?: Record<string, string> }): Promise<void>;
  fulfill(options: { status: number; contentType: string; body: string }): Promise<void>;
  abort(errorCode?: string): Promise<void>;
}

interface PlaywrightPage {
  route(url: string, handler: (route: PlaywrightRoute) => unknown): Promise<void>;
  mainFrame(): unknown;
  context(): { newCDPSession?(page: unknown): Promise<CdpSession> };
  on(
    event: 'response',
    listener: (response: {
      url(): string;
      status(): number;
      headers(): Record<string, string>;
      request(): PlaywrightRequest;
    }) => void,
  ): unknown;
}

function isPlaywrightPage(page: object): page is PlaywrightPage {
  const candidate = page as Partial<PlaywrightPage>;
  return typeof candidate.route === 'function' && typeof candidate.context === 'function';
}

async function interceptPlaywright(page: PlaywrightPage, guard: BrowserGuard): Promise<InterceptionMode> {
  page.on('response', (response) => {
    const request = response.request();
    if (!isMainFrameNavigation(page, request)) return;
    const latencyMs = playwrightLatency(request);
    void guard.navigationResponse(
      page,
      response.url(),
      response.status(),
      response.headers()['retry-after'],
      latencyMs,
    );
  });
  const session = await page
    .context()
    .newCDPSession?.(page)
    .catch(() => undefined);
  if (session) {
    await interceptWithCdp(page, session, guard);
    return 'cdp';
  }
  await page.route('**/*', (route) => settleRoute(page, route, guard));
  return 'route';
}

async function interceptWithCdp(page: object, session: CdpSession, guard: BrowserGuard): Promise<void> {
  const tree = (await session.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const mainFrameId = tree.frameTree.frame.id;
  const onWire = await watchSends(session, guard);
  session.on('Fetch.requestPaused', (event) => {
    void settleCdp(page, session, event, mainFrameId, guard, onWire).catch(() => {
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
async function watchSends(
  session: CdpSession,
  guard: BrowserGuard,
): Promise<(networkId: string | undefined, decision: Decision | undefined) => void> {
  const letGo = new Map<string, Decision>();
  session.on('Network.requestWillBeSentExtraInfo', ({ requestId }) => {
    const decision = letGo.get(requestId);
    if (decision === undefined) return;
    letGo.delete(requestId);
    void guard.navigationOnWire(decision);
  });
  await session.send('Network.enable');
  // Requests the browser makes on its own behalf (a favicon) may not be paused, so the header rewrite
  // cannot reach them; the page-level override does, and `navigator.userAgent` agrees with it.
  if (guard.userAgent !== undefined) {
    await session.send('Network.setUserAgentOverride', { userAgent: guard.userAgent }).catch(() => {});
  }
  return (networkId, decision) => {
    if (networkId !== undefined && decision !== undefined) letGo.set(networkId, decision);
  };
}

async function settleCdp(
  page: object,
  session: CdpSession,
  event: PausedEvent,
  mainFrameId: string,
  guard: BrowserGuard,
  onWire: (networkId: string | undefined, decision: Decision | undefined) => void,
): Promise<void> {
  const { requestId, request } = event;
  // Redirect hops of the main frame's navigation are paused here too, each as a Document request.
  const navigation = event.resourceType === 'Document' && event.frameId === mainFrameId;
  const verdict = await verdictFor(page, navigation, request.url, guard);
  if (verdict.kind === 'continue') {
    const ua = guard.userAgent;
    onWire(event.networkId, verdict.paced);
    await session.send('Fetch.continueRequest', {
      requestId,
      ...(ua ? { headers: headerEntries(withUserAgent(request.headers, ua)) } : {}),
    });
    return;
  }
  if (verdict.kind === 'block' && navigation) {
    await session.send('Fetch.fulfillRequest', {
      requestId,
      responseCode: 200,
      responseHeaders: [{ name: 'content-type', value: 'text/html' }],
      body: Buffer.from(BLOCKED_PAGE).toString('base64'),
    });
    return;
  }
  await session.send('Fetch.failRequest', { requestId, errorReason: failReason(verdict) });
}

async function settleRoute(page: PlaywrightPage, route: PlaywrightRoute, guard: BrowserGuard): Promise<void> {
  const request = route.request();
  const navigation = isMainFrameNavigation(page, request);
  const verdict = await verdictFor(page, navigation, request.url(), guard);
  try {
    if (verdict.kind === 'continue') {
      const ua = guard.userAgent;
      await route.continue(ua ? { headers: withUserAgent(request.headers(), ua) } : {});
    } else if (verdict.kind === 'block' && navigation) {
      await route.fulfill({ status: 200, contentType: 'text/html', body: BLOCKED_PAGE });
    } else {
      await route.abort(verdict.kind === 'block' ? 'blockedbyclient' : 'failed');
    }
  } catch {
    // The page closed meanwhile.
  }
}

function isMainFrameNavigation(page: { mainFrame(): unknown }, request: PlaywrightRequest): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    return false; // a service worker's request has no frame
  }
}

/** The request written (CDP's sendEnd) to the response headers received, from the browser's own timing. */
function puppeteerLatency(response: PuppeteerResponse): number | undefined {
  try {
    const timing = response.timing?.();
    return latencyBetween(timing?.sendEnd, timing?.receiveHeadersEnd);
  } catch {
    return undefined;
  }
}

/** The request sent to the response's first byte, from Playwright's resource timing. */
function playwrightLatency(request: PlaywrightRequest): number | undefined {
  try {
    const timing = request.timing?.();
    return latencyBetween(timing?.requestStart, timing?.responseStart);
  } catch {
    return undefined;
  }
}

function latencyBetween(sent: number | undefined, answered: number | undefined): number | undefined {
  if (typeof sent !== 'number' || typeof answered !== 'number' || sent < 0 || answered < sent)
    return undefined;
  return answered - sent;
}

function failReason(verdict: Verdict): string {
  return verdict.kind === 'block' ? 'BlockedByClient' : 'Failed';
}

function withUserAgent(headers: Record<string, string>, userAgent: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'user-agent') result[name] = value;
  }
  result['user-agent'] = userAgent;
  return result;
}

function headerEntries(headers: Record<string, string>): { name: string; value: string }[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}
