/**
 * The behaviour-table drivers for @politely/crawlee's browser side: one PlaywrightCrawler or
 * PuppeteerCrawler per scenario on Debian's Chromium (with `shared`, each in a fresh context of the
 * file's one Chromium: helpers/browser.ts, sharedChromium), made polite with `withPoliteness`. A URL is
 * `fetched` when the request handler ran (any status), `skipped` when the plugin kept it from being
 * fetched: at dequeue, or in the browser at a redirect hop (Crawlee's `onSkippedRequest`, with the
 * reason of the `skip` event reported just before it), or when its robots.txt got no answer at all
 * (the navigation then fails with the transport's error, the refusal its cause, as over HTTP); any
 * other failure fails the row.
 */
import type { Configuration } from '@crawlee/core';
import { getDisallowedDecision, pageDirectives, politenessOf, withPoliteness } from '@politely/crawlee';
import { crawleeTestEnv } from '../../packages/crawlee-plugin/test/harness.js';
import { type BrowserKind, newBrowserCrawler, type SharedChromium } from '../helpers/browser.js';
import { type BehaviourDriver, directiveNames } from './driver.js';
import type { Outcome, SkipReason } from './table.js';

/** Browser pages are heavy on two shared cores: a few at a time still makes the requests concurrent. */
const MAX_PAGES_AT_ONCE = 4;

export function browserDriver(kind: BrowserKind, shared?: SharedChromium): BehaviourDriver {
  return {
    name: `@politely/crawlee (${kind === 'playwright' ? 'PlaywrightCrawler' : 'PuppeteerCrawler'})`,
    async run({ scenario, options, urls, order }) {
      const env = await crawleeTestEnv(`behaviour-${kind}`);
      const pagesAtOnce = order === 'sequential' ? 1 : Math.min(urls.length, MAX_PAGES_AT_ONCE);
      const outcomes = new Map<string, Outcome>();
      const failures: unknown[] = [];
      // The plugin reports a skip's event, then calls onSkippedRequest for it, with nothing between.
      let lastReason: SkipReason | undefined;
      const crawlerOptions = withPoliteness(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          maxRequestRetries: 0,
          // No session pool: a 429 page is then handled like any page, not retired and failed.
          useSessionPool: false,
          persistCookiesPerSession: false,
          maxConcurrency: pagesAtOnce,
          // From the start, however busy the machine looks to Crawlee's pool (which otherwise starts at
          // one page and seldom scales up on two loaded cores): a concurrent row's pages go out side
          // by side, as it asks (its 20 pages took 14 s one at a time).
          minConcurrency: pagesAtOnce,
          navigationTimeoutSecs: 20,
          requestHandler: async (context: {
            request: { url: string };
            enqueueLinks: () => Promise<unknown>;
          }) => {
            const { request } = context;
            if (!scenario.pageRules) {
              outcomes.set(request.url, { url: request.url, result: 'fetched' });
              return;
            }
            const directives = directiveNames(await pageDirectives(context));
            outcomes.set(request.url, { url: request.url, result: 'fetched', directives });
            await context.enqueueLinks();
          },
          failedRequestHandler: async (context: { request: { url: string } }, error: unknown) => {
            // The transport's own error (its code not a refusal's), the refusal of a robots.txt with
            // no answer its cause: the page was kept from being fetched.
            const own = (error as { code?: unknown }).code === 'ERR_ROBOTS_DISALLOWED';
            const decision = own ? undefined : getDisallowedDecision(error);
            const url = context.request.url;
            if (decision?.reason === 'unreachable' && decision.robots?.status === 0)
              outcomes.set(url, { url, result: 'skipped', reason: decision.reason });
            else failures.push(error);
          },
          onSkippedRequest: ({ url }: { url: string }) => {
            outcomes.set(url, { url, result: 'skipped', ...(lastReason ? { reason: lastReason } : {}) });
          },
        },
        {
          ...options,
          onEvent: (event) => {
            if (event.type === 'skip' && event.stage !== 'subresource') lastReason = event.decision.reason;
          },
        },
      );
      const crawler = newBrowserCrawler(kind, crawlerOptions, env.config as Configuration, [], shared);
      try {
        await crawler.run([...urls]);
      } finally {
        await crawler.teardown();
        await politenessOf(crawlerOptions).close();
        await env.requestQueue.drop();
      }
      if (failures.length > 0) throw failures[0];
      return [...outcomes.values()];
    },
  };
}
