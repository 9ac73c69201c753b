/**
 * How `withPoliteness` reaches the pages of PlaywrightCrawler and PuppeteerCrawler without being told
 * which crawler it is: the browser pool's `postPageCreateHooks` install the core's page guard on every
 * new page before the crawler navigates it, and the request handler is skipped for a page whose
 * navigation (or a redirect hop of it) was refused: the page shows an empty document, not the one
 * asked for. Crawlee 3 has no way for a hook to skip a request once its task started (a thrown error
 * is a failure, retried), so the skip happens before your handler: the request is marked SKIPPED and
 * not retried, and reported as a `skip` event (stage `navigation`) and to Crawlee's `onSkippedRequest`
 * with reason `robotsTxt`. Crawlee still counts it among finished requests, as it does for its own
 * skips after navigation (a redirect out of the enqueue strategy).
 *
 * `browserPoolOptions` is an option only browser crawlers accept (BasicCrawler and the HTTP crawlers
 * reject unknown options). When your options already show a browser crawler (`launchContext`,
 * `browserPoolOptions`, `headless`) it is added as usual; otherwise it is added as a non-enumerable
 * property: the crawlers' strict option check lists keys with Object.keys and does not see it, while
 * PlaywrightCrawler and PuppeteerCrawler read `options.browserPoolOptions` by name. If your options
 * lose it on the way (spread into a new object), the first page that reaches a handler without
 * interception installs it on the crawler's browser pool for every later page, with a warning.
 */
import type { Log } from '@crawlee/core';
import type { Decision, Politeness } from '@politely/core';
import type { Spacing } from '@politely/core/adapter';
import { createPageGuard, type PageGuard, type SubresourcePolicy } from '@politely/core/browser';
import type { Reporter } from './reporter.js';

type PageHook = (page: unknown, ...rest: unknown[]) => unknown;

interface PoolHooks {
  postPageCreateHooks?: PageHook[];
  prePageCloseHooks?: PageHook[];
}

export interface BrowserSeenOptions {
  browserPoolOptions?: PoolHooks & { [key: string]: unknown };
  launchContext?: unknown;
  headless?: unknown;
}

export interface BrowserWiringOptions {
  readonly politeness: Politeness;
  readonly reporter: Reporter;
  readonly onSent: (decision: Decision, at: number) => void;
  readonly subresources: SubresourcePolicy;
  readonly spacing: Spacing;
  readonly log: Log;
  /** How long before its host is due the request manager may hand a request out (see HAND_OUT_LEAD_MS). */
  readonly setHandOutLead: (ms: number) => void;
}

/**
 * A browser crawler opens a page (and runs its hooks) between taking a request and navigating, which
 * a request handed out only once its host is due would add to every gap. Handed out this much
 * earlier, the page opens while the host is not yet due, and its `goto` waits for the slot before
 * navigating (never earlier, so pacing is unchanged); at most one page per host waits so (the host is
 * held until its request goes out). Longer would keep Crawlee's few concurrency slots (one at first,
 * by its autoscaling) waiting instead of working for other hosts.
 */
export const HAND_OUT_LEAD_MS = 400;

/** What a browser crawler hands its request handler, as far as the skip reads it. */
export interface HandlerContext {
  readonly page?: unknown;
  /** What `page.goto` resolved with: its redirect chain, for hops the page's interception could not see. */
  readonly response?: unknown;
  readonly request: { url: string };
  readonly crawler?: { browserPool?: PoolHooks };
}

/**
 * The page's `goto` first waits for its host's place in flight and pacing slot
 * (`guard.beforeNavigation`), then navigates at once: the wait is not counted in the navigation's
 * timeout (`navigationTimeoutSecs`), only in the request's whole one (navigationTimeoutSecs +
 * requestHandlerTimeoutSecs + 10 s): waiting inside the navigation, a page behind a slow page of its
 * host would time out and be lost, sent (Playwright) or not (Puppeteer). It wraps the
 * page's own method, not a pre-navigation hook: PlaywrightCrawler and PuppeteerCrawler copy their
 * options with a spread, which drops a hook added out of sight of the crawlers' strict option check,
 * and the page is ours from its creation hook on. A handler's own `page.goto` waits the same way.
 * A navigation whose robots.txt got no answer is failed by the guard with the transport's failure, not
 * skipped, and `goto` rejects with the transport's error, as the HTTP path fails it.
 */
function waitBeforeGoto(page: object, guard: PageGuard): void {
  const goto = (page as { goto?: unknown }).goto;
  if (typeof goto !== 'function') return;
  Object.defineProperty(page, 'goto', {
    configurable: true,
    writable: true,
    value: async function politeGoto(this: unknown, url: unknown, ...rest: unknown[]) {
      if (typeof url === 'string') await guard.beforeNavigation(page, url);
      try {
        return await goto.call(this, url, ...rest);
      } catch (error) {
        // A navigation failed for its robots.txt's transport failure fails with that error (its code,
        // the refusal as cause), as the HTTP crawlers' does: Crawlee retries it, rotating its proxy.
        throw guard.navigationError(page, error);
      }
    },
  });
}

/**
 * Adds the browser wiring to the options `withPoliteness` returns (a no-op for other crawlers), and
 * returns what the request handler asks of each page: whether its navigation was refused (reported,
 * then skipped by the caller).
 */
export function wireBrowserCrawlers(
  result: object,
  seen: BrowserSeenOptions,
  options: BrowserWiringOptions,
): (context: HandlerContext) => Promise<boolean> {
  const { reporter, log } = options;
  const guard = createPageGuard(options.politeness, {
    subresources: options.subresources,
    spacing: options.spacing,
    onNavigationSent: options.onSent,
    // A refused navigation is reported when its handler is skipped, as the crawl's request; the
    // reporter counts each URL once.
    onSkip: (skip) => (skip.stage === 'subresource' ? reporter.skipped(skip) : undefined),
    logger: {
      debug: (message, data) => log.debug(message, data),
      warn: (message, data) => log.warning(message, data),
    },
  });
  const install: PageHook = async (page) => {
    // A page is being opened: this is a browser crawler, whose requests may go out a little early.
    options.setHandOutLead(HAND_OUT_LEAD_MS);
    const mode = await guard.install(page as object);
    waitBeforeGoto(page as object, guard);
    return mode;
  };
  const pageClosing: PageHook = (page) => guard.pageClosing(page as object);
  let warned = false;
  const installLate = (pool: PoolHooks | undefined) => {
    if (warned || !pool?.postPageCreateHooks) return;
    warned = true;
    pool.postPageCreateHooks.push(install);
    pool.prePageCloseHooks?.push(pageClosing);
    log.warning(
      'politely: a page reached the request handler without robots.txt interception (were the options ' +
        'withPoliteness returned copied into a new object?); installed it for the pages after this one',
    );
  };

  const browserPoolOptions = {
    ...seen.browserPoolOptions,
    postPageCreateHooks: [...(seen.browserPoolOptions?.postPageCreateHooks ?? []), install],
    prePageCloseHooks: [...(seen.browserPoolOptions?.prePageCloseHooks ?? []), pageClosing],
  };
  const evident =
    seen.browserPoolOptions !== undefined || seen.launchContext !== undefined || seen.headless !== undefined;
  Object.defineProperty(result, 'browserPoolOptions', {
    value: browserPoolOptions,
    enumerable: evident,
    writable: true,
    configurable: true,
  });
  return async ({ page, request, response, crawler }) => {
    if (page === null || typeof page !== 'object') return false;
    if (guard.interception(page) === undefined) installLate(crawler?.browserPool);
    const decision = await guard.blockedNavigation(page, typeof response === 'object' ? response : undefined);
    if (decision) await reporter.skipped({ url: request.url, stage: 'navigation', decision });
    return decision !== undefined;
  };
}
