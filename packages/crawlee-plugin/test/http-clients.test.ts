import { type BaseHttpClient, GotScrapingHttpClient } from '@crawlee/core';
import { ImpitHttpClient } from '@crawlee/impit-client';
import { crawlStats } from '@politely/crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { html, type Route, redirect, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'ClientBot/1.0 (+http://127.0.0.1/bot)';
const open: TestHost[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
});

async function host(ip: string, routes: Record<string, Route>): Promise<TestHost> {
  const started = await startHost({ ip, fallback: html('<p>page</p>'), routes });
  open.push(started);
  return started;
}

const clients: ReadonlyArray<readonly [string, () => BaseHttpClient, string]> = [
  ['got-scraping', () => new GotScrapingHttpClient(), '127.0.0.71'],
  ['impit', () => new ImpitHttpClient(), '127.0.0.72'],
];

describe.each(clients)('CheerioCrawler with %s', (name, makeClient, ip) => {
  it('never requests a disallowed redirect hop, and skips the request as Crawlee skips: no failure, no error', async () => {
    const site = await host(ip, {
      '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
      '/start': html('<a href="/go">go</a> <a href="/ok">ok</a>'),
      '/go': redirect('/private/secret'),
      '/ok': redirect('/landing', 302),
    });
    const failures: unknown[] = [];
    const skipped: unknown[] = [];
    const loaded: string[] = [];
    const crawler = await politeCheerioCrawler(
      `client-${name}`,
      {
        httpClient: makeClient(),
        maxRequestRetries: 3,
        requestHandler: async ({ request, enqueueLinks }) => {
          loaded.push(request.loadedUrl ?? '');
          await enqueueLinks();
        },
        failedRequestHandler: async (_context, error) => void failures.push(error),
        onSkippedRequest: (skip) => void skipped.push(skip),
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
    );
    const capture = await startWireCapture([site]);
    const stats = await crawler.run([site.url('/start')]);
    const wire = await capture.stop();

    expect(site.requests('/private/secret')).toHaveLength(0);
    expect(wire.filter((request) => request.path.startsWith('/private'))).toEqual([]);
    expect(site.requests('/go')).toHaveLength(1);
    expect(stats.requestsFailed).toBe(0);
    expect(failures).toEqual([]);
    expect(skipped).toEqual([{ url: site.url('/go'), reason: 'robotsTxt' }]);
    expect(crawler.stats.errorTracker.total).toBe(0);
    // An allowed redirect is followed hop by hop, and the handler sees where it landed.
    expect(loaded).toEqual(expect.arrayContaining([site.url('/start'), site.url('/landing')]));
    expect(loaded).not.toContain(site.url('/go'));
    expect(crawlStats(crawler).skipped.redirect).toBe(1);
  });

  it("sends the bot's User-Agent, and context.sendRequest works with headers", async () => {
    const site = await host(ip, {
      '/robots.txt': text('User-agent: *\nAllow: /\n'),
      '/api': text('{"ok":true}', 200, { 'content-type': 'application/json', 'x-answer': '42' }),
    });
    const answers: unknown[] = [];
    const crawler = await politeCheerioCrawler(
      `ua-${name}`,
      {
        httpClient: makeClient(),
        requestHandler: async ({ sendRequest }) => {
          const response = await sendRequest({ url: site.url('/api') });
          answers.push(response.headers['x-answer'], response.body);
        },
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
    );
    await crawler.run([site.url('/page')]);
    expect(answers).toEqual(['42', '{"ok":true}']);
    const agents = site.log.map((request) => request.headers['user-agent']);
    expect(agents).toEqual([USER_AGENT, USER_AGENT, USER_AGENT]);
  });

  it('leaves the User-Agent to the client with sendUserAgent: false', async () => {
    const site = await host(ip, { '/robots.txt': text('User-agent: *\nAllow: /\n') });
    const crawler = await politeCheerioCrawler(
      `no-ua-${name}`,
      {
        httpClient: makeClient(),
        requestHandler: async () => {},
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 }, sendUserAgent: false },
    );
    await crawler.run([site.url('/page')]);
    // got-scraping generates a browser's; impit, not impersonating a browser here, sends none.
    const [page] = site.requests('/page');
    expect(site.requests('/page')).toHaveLength(1);
    expect(page?.headers['user-agent']).not.toBe(USER_AGENT);
  });

  it('paces at send: no two page requests closer than the Crawl-delay at the wire', async () => {
    const site = await host(ip, { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.2\n') });
    const crawler = await politeCheerioCrawler(
      `pace-${name}`,
      {
        httpClient: makeClient(),
        maxConcurrency: 5,
        requestHandler: async () => {},
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
    );
    const capture = await startWireCapture([site]);
    await crawler.run([1, 2, 3, 4, 5].map((index) => site.url(`/p${index}`)));
    const judged = judgePacing(await capture.stop(), 200).get(site.ip);
    expect(judged?.times).toHaveLength(5);
    expect(judged?.violations).toEqual([]);
  });
});
