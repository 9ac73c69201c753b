/**
 * `createPageGuard(politeness, options)`: robots.txt and per-host pacing for the pages of a Playwright
 * or Puppeteer script, request by request as the browser sends them (browser-guard.ts judges,
 * page-interception.ts pauses). One guard serves every page of a browser or a crawl; each page is
 * installed before it navigates and told before it closes.
 *
 * The guard does not fetch robots.txt: the Politeness it is handed does, with its `fetch` option. That
 * is Node's fetch unless one was given, which knows nothing of the browser's proxy, DNS or
 * certificates; `pageRequestFetch(context.request)` sends it the way a Playwright context's pages go.
 */

import { adapterKit } from '../adapter/kit.js';
import { attachPoliteness } from '../adapter/owner.js';
import { SPACING_OPTION, type SpacingOptions } from '../adapter/spacing.js';
import type { Logger, Politeness } from '../facade/types.js';
import type { FetchLike, FetchLikeResponse } from '../fetch/types.js';
import type { Decision, DisallowedDecision } from '../kernel/decision.js';
import {
  assertPoliteness,
  checkOptions,
  functionOption,
  loggerOption,
  type OptionTable,
  oneOf,
} from '../kernel/option-table.js';
import { BrowserGuard, type PageSkip, type SubresourcePolicy } from './browser-guard.js';
import { type InterceptionMode, interceptionOf, interceptPage, pageClosing } from './page-interception.js';
import { redirectChain } from './redirect-chain.js';

export interface PageGuardOptions extends SpacingOptions {
  /**
   * `'check'` (default): every subresource (image, script, style, XHR, frame) is checked against its
   * own origin's robots.txt and a disallowed one is aborted, unpaced. `'allow'`: only navigations are
   * checked.
   */
  readonly subresources?: SubresourcePolicy;
  /**
   * A main-frame navigation (first request or redirect hop) took its host's slot and was let go,
   * later (Chromium) reached the wire, and (spacing `'response'`) got its response or failed, each at `at`
   * (epoch ms). For a scheduler of your own that counts the host's next start from there.
   */
  readonly onNavigationSent?: (decision: Decision, at: number) => void;
  /**
   * A request robots.txt refused, when it is refused. Default: the kit's `reportSkip`, so it is a
   * `skip` event and counted in `stats().skipped`. Its result is not awaited and its errors ignored.
   */
  readonly onSkip?: (skip: PageSkip) => unknown;
  /**
   * Where the guard says why it failed a navigation (debug), and, once, at its first install, which
   * way robots.txt goes (info, else debug). Default: silent.
   */
  readonly logger?: Logger | false;
}

/**
 * Said once per guard, at its first install: robots.txt does not go through the browser unless the
 * Politeness was told so, and a proxy that only the browser uses would otherwise make every page
 * "unreachable".
 */
export const ROBOTS_ROUTE_NOTICE =
  "politely: robots.txt is fetched with the Politeness's `robots.fetch` option (Node's fetch unless you gave one), " +
  "not by the browser: the browser's proxy, DNS and certificates do not apply to it. To send it the way " +
  'the pages go, create the Politeness with `robots: { fetch: pageRequestFetch(context.request) }` (Playwright), ' +
  'or a fetch through the same proxy.';

export interface PageGuard {
  /**
   * Intercepts a Playwright page (Chromium: CDP's Fetch domain, which sees redirect hops; Firefox,
   * WebKit: `page.route`, which does not) or a Puppeteer page (cooperative `setRequestInterception`).
   * Call it before the page navigates; resolves with how, once requests are paused. TypeError for
   * anything else, or a page another guard intercepts.
   */
  install(page: object): Promise<InterceptionMode | undefined>;
  /** How this guard intercepts `page`, or undefined when it does not. */
  interception(page: object): InterceptionMode | undefined;
  /**
   * The decision that refused the page's last navigation (or one of its redirect hops), once: the
   * page then shows an empty document, not the one asked for; or, with the `purpose` option, whose
   * response's Content-Usage header refuses it (`reason: 'usage-refused'`): the page came, and its
   * content is not to be used. Undefined when nothing was refused.
   * Given the navigation's response (what `page.goto` resolved with), it also checks the hops this
   * guard could not see (a page intercepted with `page.route`, on Firefox or WebKit, or not by this
   * guard): each URL of the response's redirect chain after the first. Such a hop reached the server
   * already; what the page shows must not be taken for the page asked for. Its refusal goes to `onSkip`.
   */
  blockedNavigation(page: object, response?: object | null): Promise<DisallowedDecision | undefined>;
  /**
   * What a failed `page.goto` should be seen as: for a navigation the guard failed because its
   * robots.txt got no answer at all (refused, reset, timed out: the browser shows
   * net::ERR_CONNECTION_REFUSED and the like), the transport's own error, with its `code` and the
   * refusal as its `cause`, as @politely/got and @politely/fetch fail such a page, so a crawler
   * retries it as it retries that failure; `error` as given for any other. Once per failure.
   */
  navigationError(page: object, error: unknown): unknown;
  /**
   * Before `page.goto(url)` on an installed page: waits until the host of `url` has a place among its
   * requests in flight and its pacing slot has come, and keeps both for the page's next navigation to
   * that host, which then goes out at once. The wait is yours, outside the navigation's timeout (a
   * navigation that waits for its host itself counts the wait in its timeout). Resolves at once for
   * a URL robots.txt refuses (its navigation is refused as it goes out) or that is not http(s).
   * Rejects with WaitTooLongError (the `maxWaitMs` option), ClosedError, or an AbortError when the
   * page closes meanwhile; nothing is held after a rejection. What is kept is given back when the
   * page closes or first navigates to another host.
   */
  beforeNavigation(page: object, url: string): Promise<void>;
  /**
   * Before `page.close()`: blocks the page's further requests in the renderer (Chromium: its icon,
   * asked for after the load event, would otherwise leave as the interception goes), fails the
   * page's requests still waiting for their host's slot and frees the in-flight place its
   * navigation held. A page closed without it is noticed by its `close` event: its waits end and its
   * place is freed all the same.
   */
  pageClosing(page: object): Promise<void>;
}

/** Every option, kept in step with PageGuardOptions by the compiler. */
const OPTIONS = {
  subresources: oneOf(['check', 'allow'], { default: 'check' }),
  spacing: SPACING_OPTION,
  onNavigationSent: functionOption<PageGuardOptions['onNavigationSent']>(),
  onSkip: functionOption<PageGuardOptions['onSkip']>(),
  // Default: silent.
  logger: loggerOption<Logger>(),
} as const satisfies OptionTable<PageGuardOptions>;

/** The politeness methods a guard calls (the rest it takes from the instance's adapter kit). */
const POLITENESS_METHODS = ['check', 'observeResponse'];

export function createPageGuard(politeness: Politeness, options: PageGuardOptions = {}): PageGuard {
  assertPoliteness<Politeness>(politeness, POLITENESS_METHODS);
  const kit = adapterKit(politeness);
  const valid = checkOptions('page guard', OPTIONS, options);
  const guard = new BrowserGuard({
    politeness,
    kit,
    subresources: valid.subresources,
    spacing: valid.spacing,
    onSent: valid.onNavigationSent ?? (() => {}),
    onSkip: valid.onSkip ?? ((skip) => kit.reportSkip(skip.decision, skip.stage)),
    // The name robots.txt was read for is the one the site sees (RFC 9309 2.2.1), unless turned off.
    userAgent: kit.sendUserAgent ? politeness.userAgent : undefined,
    logger: valid.logger || undefined,
  });
  let routeTold = false;
  const pageGuard: PageGuard = {
    install: async (page) => {
      const mode = await interceptPage(page, guard);
      if (!routeTold && valid.logger) {
        routeTold = true;
        const logger = valid.logger;
        (logger.info ?? logger.debug)?.call(logger, ROBOTS_ROUTE_NOTICE);
      }
      return mode;
    },
    interception: (page) => interceptionOf(page, guard),
    blockedNavigation: async (page, response) => {
      const refused = guard.takeBlocked(page);
      if (refused || !response) return refused;
      const mode = interceptionOf(page, guard);
      // Through CDP or Puppeteer's interception every hop was judged before it went out.
      return mode === 'cdp' || mode === 'puppeteer'
        ? undefined
        : guard.disallowedHop(redirectChain(response));
    },
    navigationError: (page, error) => guard.takeTransportFailure(page) ?? error,
    beforeNavigation: async (page, url) => {
      if (interceptionOf(page, guard) === undefined)
        throw new TypeError('beforeNavigation() expects a page this guard installed (install(page) first)');
      await guard.prepare(page, url);
    },
    pageClosing: (page) => pageClosing(page, guard),
  };
  // `politenessOf(guard)` finds the Politeness it judges by.
  return attachPoliteness(pageGuard, politeness);
}

/** Playwright's APIRequestContext (`page.request`, `context.request`), by shape. */
export interface PageRequestLike {
  get(
    url: string,
    options: {
      headers: Record<string, string>;
      maxRedirects: number;
      failOnStatusCode: boolean;
      timeout: number;
    },
  ): Promise<PageResponseLike>;
}

/** Playwright's APIResponse, by shape. */
export interface PageResponseLike {
  status(): number;
  /** Header names lower-cased. */
  headers(): Record<string, string>;
  body(): Promise<Uint8Array>;
  dispose?(): Promise<void>;
}

/**
 * A `fetch` for createPoliteness that sends robots.txt through a Playwright context's own request API
 * (`context.request`, or a page's `page.request`), so it goes the way that context's pages go: its
 * proxy (or the browser's launch proxy), `ignoreHTTPSErrors`, client certificates, extra HTTP headers
 * and cookies. One hop per call (core follows redirects itself and bounds the whole fetch); Playwright
 * reads the body whole, core then keeps its byte limit. The context must outlive the crawl's checks:
 * a disposed one fails the fetch, which counts as unreachable.
 */
export function pageRequestFetch(request: PageRequestLike): FetchLike {
  if (typeof (request as Partial<PageRequestLike> | null)?.get !== 'function') {
    throw new TypeError(
      `pageRequestFetch() expects a Playwright APIRequestContext (context.request), got ${typeof request}`,
    );
  }
  return async (url, init): Promise<FetchLikeResponse> => {
    init.signal.throwIfAborted();
    // No timeout of Playwright's own: core's deadline bounds the whole fetch.
    const response = await request.get(url, {
      headers: init.headers,
      maxRedirects: 0,
      failOnStatusCode: false,
      timeout: 0,
    });
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await response.body());
    } finally {
      await response.dispose?.().catch(() => {});
    }
    const headers = response.headers();
    return {
      status: response.status(),
      headers: { get: (name) => headers[name.toLowerCase()] ?? null },
      body: (async function* () {
        yield bytes;
      })(),
    };
  };
}
