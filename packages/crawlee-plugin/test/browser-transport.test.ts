/**
 * A robots.txt that gets no answer at all (its connection reset) fails a browser crawler's navigation
 * as it fails an HTTP crawler's request: with the transport's error and code, the refusal its cause,
 * retried by Crawlee as it retries that failure (errorHandler, then failedRequestHandler), never a
 * skip (issue 40.7). Each case runs the HTTP crawler and the browser crawler on the same site, in the
 * same test, and compares what the user sees. Debian's Chromium, through Playwright and Puppeteer.
 */
import type { HttpCrawlerOptions } from '@crawlee/http';
import { HttpCrawler } from '@crawlee/http';
import { getDisallowedDecision, withPoliteness } from '@politely/crawlee';
import { describe, expect, it } from 'vitest';
import { BROWSER_KINDS, browserUnavailable, newBrowserCrawler } from '../../../test/helpers/browser.js';
import { html, startHost } from '../../../test/helpers/hosts.js';
import { browserTestHosts } from './browser-harness.js';
import { crawleeTestEnv } from './harness.js';

const unavailable = browserUnavailable();
const opened = browserTestHosts();
const POLITE = { userAgent: 'BrowserBot/1.0 (+http://127.0.0.1/bot)', pacing: { minDelayMs: 0 } };

/** What the user sees of one crawl of one page whose robots.txt never answers. */
interface Seen {
  errors: number;
  failed: { code: unknown; refusedFor: string | undefined }[];
  skipped: number;
  handled: number;
}

function recording(seen: Seen) {
  return {
    maxRequestRetries: 1,
    requestHandler: () => void seen.handled++,
    errorHandler: () => void seen.errors++,
    failedRequestHandler: (_context: unknown, error: Error) =>
      void seen.failed.push({
        code: (error as { code?: unknown }).code,
        refusedFor: getDisallowedDecision(error)?.reason,
      }),
    onSkippedRequest: () => void seen.skipped++,
  };
}

const empty = (): Seen => ({ errors: 0, failed: [], skipped: 0, handled: 0 });

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s crawler, robots.txt with no answer',
  (kind, index) => {
    it('fails the navigation with the transport code and retries it, as the HTTP crawler does; never a skip', async () => {
      const site = opened(
        await startHost({
          ip: `127.0.0.${241 + index}`,
          routes: { '/robots.txt': (req) => void req.socket.destroy() },
          fallback: html('<p>page</p>'),
        }),
      );
      const url = site.url('/page');

      const http = empty();
      const httpEnv = await crawleeTestEnv(`transport-http-${kind}`);
      await new HttpCrawler(
        withPoliteness<HttpCrawlerOptions>(
          { requestQueue: httpEnv.requestQueue, log: httpEnv.log, ...recording(http) },
          POLITE,
        ),
        httpEnv.config,
      ).run([url]);

      const browser = empty();
      const env = await crawleeTestEnv(`transport-${kind}`);
      const crawler = newBrowserCrawler(
        kind,
        withPoliteness(
          {
            requestQueue: env.requestQueue,
            log: env.log,
            navigationTimeoutSecs: 30,
            ...recording(browser),
          },
          POLITE,
        ),
        env.config,
      );
      try {
        await crawler.run([url]);
      } finally {
        await crawler.teardown();
        await env.requestQueue.drop();
      }

      expect(http).toEqual({
        errors: 1,
        // robots.txt goes out through Node's fetch here (no proxy): its code for a reset socket.
        failed: [{ code: expect.stringMatching(/^(ECONNRESET|UND_ERR_SOCKET)$/), refusedFor: 'unreachable' }],
        skipped: 0,
        handled: 0,
      });
      expect(browser).toEqual(http);
      // No page went out: robots.txt never answered (RFC 9309 2.3.1.4).
      expect(site.requests('/page')).toEqual([]);
    }, 120_000);
  },
);
