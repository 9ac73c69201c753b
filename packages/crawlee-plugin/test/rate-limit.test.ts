/**
 * Issue 35, defect 6: one host's RateLimit header asking for 10 minutes between requests used to
 * hold a Crawlee crawl's requests to it parked, with no warning. Under withPoliteness the host's
 * remaining requests are now skipped as Crawlee skips (rateLimitAboveMax defaults to 'skip' there),
 * the operator is warned once, and the crawl ends as soon as the other host is done. Judged from
 * Crawlee's statistics and callbacks and the servers' own request logs.
 */
import { crawlStats } from '@politely/crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { html, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'QuotaBot/1.0 (+http://127.0.0.1/bot)';
const open: TestHost[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
});

const PAGES = 4;
const pagesRequested = (target: TestHost) => target.log.filter((request) => request.path !== '/robots.txt');

describe('a host whose RateLimit header asks for 10 minutes between requests', () => {
  it('is skipped with one warning, and the crawl finishes with the other host', async () => {
    const limited = await startHost({
      ip: '127.0.0.213',
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      // None left for 600 s: the next request is 10 minutes away (maxBackoffMs).
      fallback: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', ratelimit: '"default";r=0;t=600' });
        res.end('<p>limited</p>');
      },
    });
    const other = await startHost({
      ip: '127.0.0.214',
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: html('<p>page</p>'),
    });
    open.push(limited, other);
    const warnings: string[] = [];
    const crawleeSkips: { url: string; reason: string }[] = [];
    const handled: string[] = [];
    const skipStages: string[] = [];
    const crawler = await politeCheerioCrawler(
      'rate-limit-skip',
      {
        maxConcurrency: 2,
        maxRequestRetries: 0,
        onSkippedRequest: (skip) => void crawleeSkips.push(skip),
        requestHandler: async ({ request }) => {
          handled.push(request.url);
        },
      },
      {
        userAgent: USER_AGENT,
        pacing: { minDelayMs: 100 },
        logger: { warn: (message: string) => warnings.push(message) },
        onEvent: (event) => {
          if (event.type === 'skip') skipStages.push(event.stage);
        },
      },
    );
    const urls = Array.from({ length: PAGES }, (_, i) => [limited.url(`/a${i}`), other.url(`/b${i}`)]).flat();
    const startedAt = Date.now();
    const stats = await crawler.run(urls);
    const tookMs = Date.now() - startedAt;

    // The limited host answered one page; its other requests were never sent, and ended as skips.
    expect(pagesRequested(limited)).toHaveLength(1);
    expect(pagesRequested(other)).toHaveLength(PAGES);
    expect(crawleeSkips).toHaveLength(PAGES - 1);
    for (const skip of crawleeSkips) expect(skip.url.startsWith(limited.origin)).toBe(true);
    expect(stats.requestsFailed).toBe(0);
    // A request skipped when its task had already begun (the header came back while Crawlee was handing
    // it out) is counted among finished requests by Crawlee, as its own skips after navigation are; one
    // skipped before that (at dequeue) is neither finished nor failed, as Crawlee's robots.txt skips.
    // Which of the two happens depends on timing; the sum does not.
    expect(skipStages).toHaveLength(PAGES - 1);
    const skippedInTask = skipStages.filter((stage) => stage !== 'dequeue').length;
    expect(stats.requestsFinished).toBe(PAGES + 1 + skippedInTask);
    expect(handled).toHaveLength(PAGES + 1);
    expect(crawlStats(crawler).skipped['rate-limited']).toBe(PAGES - 1);
    // Said once, naming the host and the limit.
    const aboutLimit = warnings.filter((message) => message.includes('maxRateLimitDelayMs'));
    expect(aboutLimit).toHaveLength(1);
    expect(aboutLimit[0]).toContain('127.0.0.213');
    console.info(
      `rate-limit skip: crawl of ${urls.length} URLs took ${tookMs} ms; ${aboutLimit.length} warning; ${crawleeSkips.length} skipped (stages: ${skipStages.join(', ')})`,
    );
  }, 60_000);
});
