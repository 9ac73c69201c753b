/**
 * PlaywrightCrawler and PuppeteerCrawler with `withPoliteness`, on Debian's Chromium: every request
 * a page makes is judged as the browser sends it. Asserted from what the servers saw.
 */
import type { PolitelyEvent } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { BROWSER_KINDS, type BrowserKind, browserUnavailable } from '../../../test/helpers/browser.js';
import { html, redirect, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { browserCrawl, browserTestHosts, BROWSER_USER_AGENT as USER_AGENT } from './browser-harness.js';

const ROBOTS = 'User-agent: *\nDisallow: /private\n';
const unavailable = browserUnavailable();
const opened = browserTestHosts({ oneChromium: true });

/** Host a: a redirect chain into /private, and a page whose subresources reach /private and host b. */
async function site(ipA: string, ipB: string) {
  const b = await startHost({
    ip: ipB,
    routes: { '/robots.txt': text('User-agent: *\nDisallow: /blocked\n') },
    fallback: text('b'),
  });
  const a = await startHost({
    ip: ipA,
    routes: {
      '/robots.txt': text(ROBOTS),
      '/go': redirect('/hop'),
      '/hop': redirect('/private/x', 302),
      '/page': html(
        `<img src="/private/pixel.png"><img src="${b.url('/blocked.png')}"><img src="${b.url('/ok.png')}">` +
          '<script src="/s.js"></script><p>page</p>',
      ),
    },
    fallback: html('<p>ok</p>'),
  });
  return { a: opened(a), b: opened(b) };
}

interface Crawl {
  readonly handled: string[];
  readonly skips: PolitelyEvent[];
  readonly crawleeSkips: { url: string; reason: string }[];
  readonly failed: string[];
}

async function crawl(
  kind: BrowserKind,
  urls: string[],
  plugin: { subresources?: 'check' | 'allow' } = {},
  sendUserAgent = true,
  copyOptions = false,
): Promise<Crawl> {
  const pathOf = (url: string) => new URL(url).pathname;
  const result: Crawl = { handled: [], skips: [], crawleeSkips: [], failed: [] };
  const handled = await browserCrawl(kind, urls, {
    crawler: {
      maxConcurrency: 1,
      navigationTimeoutSecs: 20,
      requestHandlerTimeoutSecs: 30,
      onSkippedRequest: ({ url, reason }: { url: string; reason: string }) => {
        result.crawleeSkips.push({ url, reason });
      },
      failedRequestHandler: async ({ request }: { request: { url: string } }) => {
        result.failed.push(pathOf(request.url));
      },
    },
    politeness: {
      sendUserAgent,
      onEvent: (event) => {
        if (event.type === 'skip') result.skips.push(event);
      },
    },
    plugin,
    copyOptions,
  });
  result.handled.push(...handled.map(pathOf));
  return result;
}

const paths = (host: TestHost) => host.log.map((request) => request.path);

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s crawler with withPoliteness',
  (kind, index) => {
    it('never sends a redirect hop into a disallowed path, skips the request, and never handles it', async () => {
      const { a } = await site(`127.0.0.${140 + index * 10}`, `127.0.0.${141 + index * 10}`);
      const result = await crawl(kind, [a.url('/go'), a.url('/open')]);
      expect(paths(a)).toContain('/hop');
      expect(paths(a)).not.toContain('/private/x');
      expect(result.handled).toEqual(['/open']);
      expect(result.failed).toEqual([]);
      expect(result.crawleeSkips).toEqual([{ url: a.url('/go'), reason: 'robotsTxt' }]);
      // The skip event names the hop robots.txt refused; Crawlee's skip names the request.
      expect(result.skips).toMatchObject([
        { type: 'skip', url: a.url('/private/x'), stage: 'navigation', decision: { reason: 'disallowed' } },
      ]);
    }, 60_000);

    it("checks subresources against their own host's robots.txt, and sends the politeness User-Agent", async () => {
      const { a, b } = await site(`127.0.0.${142 + index * 10}`, `127.0.0.${143 + index * 10}`);
      const result = await crawl(kind, [a.url('/page')]);
      expect(result.handled).toEqual(['/page']);
      expect(paths(a)).toContain('/s.js');
      expect(paths(a)).not.toContain('/private/pixel.png');
      expect(paths(b)).toContain('/ok.png');
      expect(paths(b)).not.toContain('/blocked.png');
      expect(result.skips.map((skip) => skip.type === 'skip' && [skip.url, skip.stage]).sort()).toEqual([
        [a.url('/private/pixel.png'), 'subresource'],
        [b.url('/blocked.png'), 'subresource'],
      ]);
      // Every request the browser sent (Chromium's own /favicon.ico never reaches a host: it is
      // blocked before the first navigation) carries the politeness User-Agent.
      const pageRequests = [...a.log, ...b.log].filter((request) => request.path !== '/robots.txt');
      expect(pageRequests.length).toBeGreaterThanOrEqual(3);
      for (const request of pageRequests)
        expect(request.headers['user-agent'], request.path).toBe(USER_AGENT);
    }, 60_000);

    it('options copied into a new object: the first page goes unguarded, every later one is guarded', async () => {
      const { a } = await site(`127.0.0.${146 + index * 10}`, `127.0.0.${147 + index * 10}`);
      const result = await crawl(kind, [a.url('/open'), a.url('/go')], {}, true, true);
      expect(result.handled).toEqual(['/open']);
      expect(paths(a)).not.toContain('/private/x');
      expect(result.crawleeSkips).toEqual([{ url: a.url('/go'), reason: 'robotsTxt' }]);
    }, 60_000);

    it("subresources: 'allow' lets them through; sendUserAgent: false keeps the browser's User-Agent", async () => {
      const { a, b } = await site(`127.0.0.${144 + index * 10}`, `127.0.0.${145 + index * 10}`);
      const result = await crawl(kind, [a.url('/page')], { subresources: 'allow' }, false);
      expect(result.handled).toEqual(['/page']);
      expect(paths(a)).toContain('/private/pixel.png');
      expect(paths(b)).toContain('/blocked.png');
      const page = a.requests('/page')[0];
      expect(page?.headers['user-agent']).toMatch(/Mozilla\/5\.0/);
      expect(page?.headers['user-agent']).not.toContain('BrowserBot');
    }, 60_000);
  },
);
