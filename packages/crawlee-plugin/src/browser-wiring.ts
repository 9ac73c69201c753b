/**
 * How `withPoliteness` reaches the pages of PlaywrightCrawler and PuppeteerCrawler without being told
 * which crawler it is: the browser pool's `postPageCreateHooks` install the interception on every new
 * page before the crawler navigates it, and the request handler is wrapped to skip a page whose
 * navigation was refused.
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
import type { Decision, Politeness, Spacing } from '@politely/core';
import { createPageGuard, type SubresourcePolicy } from '@politely/core/browser';
import type { Reporter } from './reporter.js';
import { skipBlockedNavigation } from './skip-blocked-navigation.js';

type PageHook = (page: unknown, ...rest: unknown[]) => unknown;

export interface BrowserSeenOptions {
  requestHandler?: unknown;
  browserPoolOptions?: {
    postPageCreateHooks?: PageHook[];
    prePageCloseHooks?: PageHook[];
    [key: string]: unknown;
  };
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
}

/** Adds the browser wiring to the options `withPoliteness` returns (a no-op for other crawlers). */
export function wireBrowserCrawlers<T extends object>(
  result: T,
  seen: BrowserSeenOptions,
  options: BrowserWiringOptions,
): T {
  const guard = createPageGuard(options.politeness, {
    subresources: options.subresources,
    spacing: options.spacing,
    onNavigationSent: options.onSent,
    // A refused navigation is reported when its handler is skipped (skip-blocked-navigation.ts), as
    // the crawl's request; the reporter counts each URL once.
    onSkip: (skip) => (skip.stage === 'subresource' ? options.reporter.skipped(skip) : undefined),
    logger: {
      debug: (message, data) => options.log.debug(message, data),
      warn: (message, data) => options.log.warning(message, data),
    },
  });
  const install: PageHook = async (page) => {
    await guard.install(page as object);
  };
  const pageClosing: PageHook = (page) => guard.pageClosing(page as object);
  let warned = false;
  const out = result as T & BrowserSeenOptions;
  if (typeof seen.requestHandler === 'function') {
    out.requestHandler = skipBlockedNavigation(seen.requestHandler as () => unknown, {
      guard,
      politeness: options.politeness,
      reporter: options.reporter,
      uninterceptedPage: (context) => {
        const pool = (context as { crawler?: { browserPool?: { postPageCreateHooks?: PageHook[] } } }).crawler
          ?.browserPool;
        if (warned || !pool?.postPageCreateHooks) return;
        warned = true;
        pool.postPageCreateHooks.push(install);
        (pool as { prePageCloseHooks?: PageHook[] }).prePageCloseHooks?.push(pageClosing);
        options.log.warning(
          'politely: a page reached the request handler without robots.txt interception (were the options ' +
            'withPoliteness returned copied into a new object?); installed it for the pages after this one',
        );
      },
    });
  }
  const browserPoolOptions = {
    ...seen.browserPoolOptions,
    postPageCreateHooks: [...(seen.browserPoolOptions?.postPageCreateHooks ?? []), install],
    prePageCloseHooks: [...(seen.browserPoolOptions?.prePageCloseHooks ?? []), pageClosing],
  };
  const evident =
    seen.browserPoolOptions !== undefined || seen.launchContext !== undefined || seen.headless !== undefined;
  Object.defineProperty(out, 'browserPoolOptions', {
    value: browserPoolOptions,
    enumerable: evident,
    writable: true,
    configurable: true,
  });
  return out;
}
