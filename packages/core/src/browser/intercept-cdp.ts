/**
 * Pausing a Chromium page's requests through its devtools protocol session (the Fetch domain), used
 * for Playwright on Chromium because `page.route` is not called for redirect hops (Playwright's docs;
 * seen with 1.65 and Chromium 156), while Fetch pauses every hop. A user's routes chain with it.
 * The Network domain, watched here for Puppeteer too, tells when a navigation let go really leaves,
 * so its host's next slot counts from the send, not from our verdict.
 */
import type { Hop } from '../adapter/hop.js';
import type { BrowserGuard, Verdict } from './browser-guard.js';
import { blockDefaultIcon, blockEverything } from './favicon.js';
import type { AbortReason } from './network-error.js';
import { BLOCKED_PAGE, type OnWire, type Paused, settle } from './paused-request.js';

/** The abort reasons as CDP's `Network.ErrorReason` spells them. */
const CDP_REASONS: Readonly<Record<AbortReason, string>> = {
  blockedbyclient: 'BlockedByClient',
  failed: 'Failed',
  connectionrefused: 'ConnectionRefused',
  connectionreset: 'ConnectionReset',
  connectionaborted: 'ConnectionAborted',
  timedout: 'TimedOut',
  namenotresolved: 'NameNotResolved',
  addressunreachable: 'AddressUnreachable',
};

export interface CdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  on(event: 'Fetch.requestPaused', listener: (event: PausedEvent) => void): unknown;
  on(event: 'Network.requestWillBeSentExtraInfo', listener: (event: { requestId: string }) => void): unknown;
  on(
    event: 'Network.requestWillBeSent',
    listener: (event: { timestamp?: number; wallTime?: number }) => void,
  ): unknown;
}

interface PausedEvent {
  readonly requestId: string;
  /** The Network domain's id of the request (kept across its redirect hops). */
  readonly networkId?: string;
  readonly request: { readonly url: string; readonly headers: Record<string, string> };
  readonly resourceType: string;
  readonly frameId: string;
}

export async function interceptWithCdp(
  page: object,
  session: CdpSession,
  guard: BrowserGuard,
  closed: Promise<Verdict>,
): Promise<Watched> {
  const tree = (await session.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const mainFrameId = tree.frameTree.frame.id;
  const watched = await watchSends(session, guard);
  const { onWire } = watched;
  session.on('Fetch.requestPaused', (event) => {
    const { requestId, request } = event;
    const paused: Paused = {
      url: request.url,
      // Redirect hops of the main frame's navigation are paused here too, each as a Document request.
      navigation: event.resourceType === 'Document' && event.frameId === mainFrameId,
      resourceType: event.resourceType,
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
      abort: (reason) => session.send('Fetch.failRequest', { requestId, errorReason: CDP_REASONS[reason] }),
    };
    void settle(page, paused, guard, closed, onWire).catch(() => {
      // The page or its session closed meanwhile.
    });
  });
  await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
  return watched;
}

/** What watching a page's session gives its interception. */
export interface Watched {
  readonly onWire: OnWire;
  /** Before the page closes: blocks its every further request in the renderer (favicon.ts). */
  blockAll(): Promise<void>;
}

/**
 * Paced navigations let go, by Network request id, until the network stack reports sending them
 * (`requestWillBeSentExtraInfo` comes with the headers really sent): then their host's next slot
 * counts from that moment. Also sets the page's User-Agent, and blocks the browser's own
 * `/favicon.ico` request (favicon.ts), both before the page's first navigation.
 */
export async function watchSends(session: CdpSession, guard: BrowserGuard): Promise<Watched> {
  const letGo = new Map<string, Hop>();
  session.on('Network.requestWillBeSentExtraInfo', ({ requestId }) => {
    const pass = letGo.get(requestId);
    if (pass === undefined) return;
    letGo.delete(requestId);
    void guard.navigationOnWire(pass);
  });
  await session.send('Network.enable');
  await blockDefaultIcon(session);
  // A request the interception does not pause (a service worker's) keeps its own headers; the
  // page-level override reaches it, and `navigator.userAgent` agrees with it.
  if (guard.userAgent !== undefined) {
    await session.send('Network.setUserAgentOverride', { userAgent: guard.userAgent }).catch(() => {});
  }
  return {
    onWire: (networkId, pass) => {
      if (networkId !== undefined && pass !== undefined) letGo.set(networkId, pass);
    },
    blockAll: () => blockEverything(session),
  };
}
