/**
 * The behaviour-table driver for @politely/crawlee: one HttpCrawler per scenario, made polite with
 * `withPoliteness`, on a given HTTP client (got-scraping, Crawlee 3's default, or impit, Crawlee 4's).
 * A URL is `fetched` when the request handler ran (any status), `skipped` when the plugin kept it from
 * being fetched: at dequeue (a `skip` event), at a redirect hop, or when its robots.txt got no answer
 * at all (the request then fails with the transport's error, the refusal its cause, as Crawlee fails
 * a page that got none). Any other failure, one caused by a refusal too, is a failure of the run: a
 * refusal Crawlee should have ended as a skip must not pass for one.
 */
import { type BaseHttpClient, GotScrapingHttpClient } from '@crawlee/core';
import { HttpCrawler, type HttpCrawlerOptions } from '@crawlee/http';
import { ImpitHttpClient } from '@crawlee/impit-client';
import { getDisallowedDecision, pageDirectives, politenessOf, withPoliteness } from '@politely/crawlee';
import { crawleeTestEnv } from '../../packages/crawlee-plugin/test/harness.js';
import { type BehaviourDriver, directiveNames, linksOf } from './driver.js';
import type { Outcome, SkipReason } from './table.js';

const CLIENTS = {
  'got-scraping': () => new GotScrapingHttpClient(),
  impit: () => new ImpitHttpClient(),
} satisfies Record<string, () => BaseHttpClient>;

export const crawleeDriver = (client: keyof typeof CLIENTS): BehaviourDriver => ({
  name: `@politely/crawlee (HttpCrawler, ${client})`,
  async run({ scenario, options, urls, order }) {
    const env = await crawleeTestEnv('behaviour');
    const outcomes = new Map<string, Outcome>();
    const failures: unknown[] = [];
    const skip = (url: string, reason: SkipReason) => outcomes.set(url, { url, result: 'skipped', reason });
    let lastReason: SkipReason = 'disallowed';
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          httpClient: CLIENTS[client](),
          maxRequestRetries: 0,
          useSessionPool: false,
          ignoreHttpErrorStatusCodes: [429, 500, 503],
          additionalMimeTypes: ['text/plain'],
          maxConcurrency: order === 'sequential' ? 1 : urls.length,
          requestHandler: async (context) => {
            const { request, body } = context;
            if (!scenario.pageRules) {
              outcomes.set(request.url, { url: request.url, result: 'fetched' });
              return;
            }
            const directives = directiveNames(await pageDirectives(context));
            outcomes.set(request.url, { url: request.url, result: 'fetched', directives });
            // HttpCrawler finds no links itself: its enqueueLinks takes them (and holds them back on nofollow).
            await context.enqueueLinks({ urls: linksOf(body.toString(), request.loadedUrl ?? request.url) });
          },
          // A robots.txt with no answer fails the request with the transport's error (Crawlee retries
          // it, as it would the page's), the refusal its cause: the page was kept from being fetched.
          failedRequestHandler: async ({ request }, error) => {
            // The transport's own error, its code (ECONNREFUSED, ETIMEDOUT) not a refusal's, whose
            // cause is the refusal of a robots.txt with no answer.
            const own = (error as { code?: unknown }).code === 'ERR_ROBOTS_DISALLOWED';
            const decision = own ? undefined : getDisallowedDecision(error);
            if (decision?.reason === 'unreachable' && decision.robots?.status === 0)
              skip(request.url, decision.reason);
            else failures.push(error);
          },
          onSkippedRequest: ({ url }) => void skip(url, lastReason),
        },
        {
          ...options,
          // Each skip event comes just before Crawlee's onSkippedRequest for the same request, which
          // names the request (a refused redirect hop's event names the hop).
          onEvent: (event) => {
            if (event.type === 'skip') lastReason = event.decision.reason;
          },
        },
      ),
      env.config,
    );
    try {
      await crawler.run([...urls]);
    } finally {
      await politenessOf(crawler).close();
      await env.requestQueue.drop();
    }
    if (failures.length > 0) throw failures[0];
    return [...outcomes.values()];
  },
});
