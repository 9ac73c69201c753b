/**
 * A Playwright browser launched behind a forward proxy (`launch({ proxy })`), for a site whose name only
 * the proxy resolves (`shop.internal`). robots.txt must go the way the pages go: the Politeness is
 * given `pageRequestFetch(context.request)`, which uses the context's (here the browser's) proxy. The
 * proxy's own log shows what went through it; the guard says once which way robots.txt goes.
 */
import { createPoliteness, type Politeness } from '@politely/core';
import { createPageGuard, pageRequestFetch } from '@politely/core/browser';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../../test/helpers/chromium.js';
import { html, startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { type ForwardProxy, startForwardProxy } from '../../../../test/helpers/proxy.js';
import { ROBOTS_ROUTE_NOTICE } from '../../src/browser/page-guard.js';

const USER_AGENT = 'HandBot/1.0 (+http://127.0.0.1/bot)';
const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('Playwright behind a proxy given at launch', () => {
  let site: TestHost;
  let proxy: ForwardProxy;
  let browser: Browser;
  const shop = (path: string) => `http://shop.internal:${site.port}${path}`;

  beforeAll(async () => {
    site = await startHost({
      ip: '127.0.0.124',
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /private\n') },
      fallback: html('<p>ok</p>'),
    });
    proxy = await startForwardProxy({ ip: '127.0.0.125', names: { 'shop.internal': site.ip } });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
      headless: true,
      proxy: { server: proxy.url },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await site?.close();
  });

  async function crawl(politeness: (request: Parameters<typeof pageRequestFetch>[0]) => Politeness) {
    const context = await browser.newContext();
    const told: string[] = [];
    const facade = politeness(context.request);
    const guard = createPageGuard(facade, { logger: { warn: () => {}, info: (m) => void told.push(m) } });
    const results: { path: string; refused?: string; body?: string; failed?: unknown }[] = [];
    try {
      for (const path of ['/a', '/b', '/private/x']) {
        const page = await context.newPage();
        await guard.install(page);
        let failed: unknown;
        const response = await page.goto(shop(path), { timeout: 30_000 }).catch((error: unknown) => {
          failed = guard.navigationError(page, error);
          return null;
        });
        const refused = await guard.blockedNavigation(page, response);
        results.push(
          failed !== undefined
            ? { path, failed }
            : refused
              ? { path, refused: refused.reason }
              : { path, body: await page.content() },
        );
        await guard.pageClosing(page);
        await page.close();
      }
    } finally {
      await facade.close();
      await context.close();
    }
    return { results, told };
  }

  it('with pageRequestFetch(context.request): /a and /b load, /private/x is refused, robots.txt once through the proxy', async () => {
    const before = site.log.length;
    const { results, told } = await crawl((request) =>
      createPoliteness({
        userAgent: USER_AGENT,
        pacing: { minDelayMs: 0 },
        robots: { fetch: pageRequestFetch(request) },
      }),
    );

    expect(results.map((r) => r.refused ?? (r.body?.includes('ok') ? 'loaded' : r.body))).toEqual([
      'loaded',
      'loaded',
      'disallowed',
    ]);
    const seen = site.log.slice(before).map((r) => r.path);
    expect(seen.filter((path) => path === '/robots.txt')).toHaveLength(1);
    expect(seen).not.toContain('/private/x');
    expect(seen).toEqual(expect.arrayContaining(['/a', '/b']));
    expect(proxy.requests('/robots.txt')).toHaveLength(1);
    expect(site.requests('/robots.txt')[0]?.headers['user-agent']).toBe(USER_AGENT);
    expect(told).toEqual([ROBOTS_ROUTE_NOTICE]);
  });

  it("with Node's fetch (the default): each navigation fails with the lookup's error, the refusal as its cause", async () => {
    const before = site.log.length;
    const { results } = await crawl(() =>
      createPoliteness({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 }, logger: false }),
    );

    // robots.txt got no answer (Node's fetch knows no shop.internal): as the browser fails a page it
    // cannot reach, and as the HTTP crawlers fail it, so a crawler retries it.
    expect(results.map((r) => (r.failed as { code?: string } | undefined)?.code)).toEqual([
      'ENOTFOUND',
      'ENOTFOUND',
      'ENOTFOUND',
    ]);
    const cause = (results[0]?.failed as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    expect(cause?.code).toBe('ERR_ROBOTS_DISALLOWED');
    expect(cause?.message).toContain('ENOTFOUND shop.internal');
    expect(site.log.slice(before).map((request) => request.path)).toEqual([]);
  });
});
