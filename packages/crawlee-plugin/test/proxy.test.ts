/**
 * Crawlee crawlers behind a forward proxy (`proxyConfiguration`) for a site whose name only the proxy
 * resolves (`shop.internal`): robots.txt goes through the crawler's proxies as the pages do, so the
 * allowed pages are handled, the disallowed one never reaches the site, and robots.txt reached it
 * once, through the proxy (the proxy's own log says so).
 */
import { Log, Logger, LogLevel, ProxyConfiguration } from '@crawlee/core';
import { PlaywrightCrawler, type PlaywrightCrawlerOptions } from '@crawlee/playwright';
import { withPoliteness } from '@politely/crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { browserUnavailable, launchContext } from '../../../test/helpers/browser.js';
import { html, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { type ForwardProxy, startForwardProxy } from '../../../test/helpers/proxy.js';
import { launchProxyOf } from '../src/robots-fetch.js';
import { browserCrawl, browserTestHosts } from './browser-harness.js';
import { crawleeTestEnv, politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'ProxyBot/1.0 (+http://127.0.0.1/bot)';
const ROBOTS = 'User-agent: *\nDisallow: /private\n';

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((item) => item.close()));
});

async function shopBehindProxy(ip: number) {
  const site: TestHost = await startHost({
    ip: `127.0.0.${ip}`,
    routes: { '/robots.txt': text(ROBOTS) },
    fallback: html('<p>ok</p>'),
  });
  closing.push(site);
  const proxy: ForwardProxy = await startForwardProxy({
    ip: `127.0.0.${ip + 1}`,
    names: { 'shop.internal': site.ip },
  });
  closing.push(proxy);
  const shop = (path: string) => `http://shop.internal:${site.port}${path}`;
  return { site, proxy, shop };
}

const pathsOf = (host: { log: readonly { path: string }[] }) => host.log.map((entry) => entry.path);

describe('CheerioCrawler with proxyConfiguration', () => {
  it('handles /a and /b, never sends /private/x, robots.txt once through the proxy', async () => {
    const { site, proxy, shop } = await shopBehindProxy(126);
    const handled: string[] = [];
    const crawler = await politeCheerioCrawler(
      'forward-proxy',
      {
        maxRequestRetries: 0,
        proxyConfiguration: new ProxyConfiguration({ proxyUrls: [proxy.url] }),
        requestHandler: async ({ request }) => void handled.push(request.url),
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
    );

    await crawler.run([shop('/a'), shop('/b'), shop('/private/x')]);

    expect(handled.sort()).toEqual([shop('/a'), shop('/b')]);
    expect(site.requests('/robots.txt')).toHaveLength(1);
    expect(site.requests('/robots.txt')[0]?.headers['user-agent']).toBe(USER_AGENT);
    expect(pathsOf(site).sort()).toEqual(['/a', '/b', '/robots.txt']);
    expect(proxy.requests('/robots.txt')).toHaveLength(1);
    expect(proxy.requests('/private/x')).toHaveLength(0);
  });
});

describe('CheerioCrawler without the proxy the site needs', () => {
  it("fails the request with robots.txt's transport error, never as the site's rules", async () => {
    const { site, shop } = await shopBehindProxy(132);
    const lines: string[] = [];
    const log = new Log({
      level: LogLevel.INFO,
      logger: new (class extends Logger {
        override _log(_level: number, message: string) {
          lines.push(message);
        }
      })({}),
    });
    const crawler = await politeCheerioCrawler(
      'no-proxy',
      { maxRequestRetries: 0, log, requestHandler: async () => {} },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 }, logger: false },
    );

    await crawler.run([shop('/a')]);

    // A transport failure of robots.txt fails the request as the page's own would (issue 40.7).
    expect(lines.find((line) => line.includes('ENOTFOUND shop.internal'))).toMatch(
      /^Request failed and reached maximum retries/,
    );
    expect(lines.some((line) => line.startsWith('Skipping requests to shop.internal'))).toBe(false);
    expect(site.log).toHaveLength(0);
  });
});

const unavailable = browserUnavailable();
// Removes the browser profiles after the file.
browserTestHosts();

describe.skipIf(unavailable !== undefined)('PlaywrightCrawler with proxyConfiguration', () => {
  it('loads /a and /b, never /private/x, robots.txt once through the proxy', async () => {
    const { site, proxy, shop } = await shopBehindProxy(128);

    const handled = await browserCrawl('playwright', [shop('/a'), shop('/b'), shop('/private/x')], {
      crawler: { proxyConfiguration: new ProxyConfiguration({ proxyUrls: [proxy.url] }) },
    });

    expect(handled.sort()).toEqual([shop('/a'), shop('/b')]);
    expect(site.requests('/robots.txt')).toHaveLength(1);
    expect(site.requests('/private/x')).toHaveLength(0);
    expect(site.requests('/a')).toHaveLength(1);
    expect(site.requests('/b')).toHaveLength(1);
    expect(proxy.requests('/robots.txt')).toHaveLength(1);
  });
});

describe.skipIf(unavailable !== undefined)('PlaywrightCrawler with the proxy in its launch options', () => {
  it('loads /a and /b, never /private/x, robots.txt once through the proxy', async () => {
    const { site, proxy, shop } = await shopBehindProxy(130);
    const env = await crawleeTestEnv('launch-proxy');
    const launch = launchContext('playwright') as { launchOptions: Record<string, unknown> };
    launch.launchOptions.proxy = { server: proxy.url };
    const handled: string[] = [];
    const crawler = new PlaywrightCrawler(
      withPoliteness<PlaywrightCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          maxRequestRetries: 0,
          launchContext: launch,
          requestHandler: async ({ request }) => void handled.push(request.url),
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    try {
      await crawler.run([shop('/a'), shop('/b'), shop('/private/x')]);
    } finally {
      await crawler.teardown();
      await env.requestQueue.drop();
    }

    expect(handled.sort()).toEqual([shop('/a'), shop('/b')]);
    expect(site.requests('/robots.txt')).toHaveLength(1);
    expect(site.requests('/private/x')).toHaveLength(0);
    expect(proxy.requests('/robots.txt')).toHaveLength(1);
    expect(proxy.requests('/a')).toHaveLength(1);
  });
});

describe('the launch proxy robots.txt takes', () => {
  const urlOf = (launchContext: unknown) => launchProxyOf(launchContext)?.newUrl();

  it("reads Crawlee's proxyUrl, Playwright's proxy option and Chromium's --proxy-server switch", async () => {
    expect(await urlOf({ proxyUrl: 'http://p.internal:3128' })).toBe('http://p.internal:3128');
    expect(
      await urlOf({
        launchOptions: { proxy: { server: 'p.internal:3128', username: 'u', password: 'p w' } },
      }),
    ).toBe('http://u:p%20w@p.internal:3128');
    expect(
      await urlOf({ launchOptions: { args: ['--no-sandbox', '--proxy-server=http://p.internal:8080'] } }),
    ).toBe('http://p.internal:8080');
  });

  it('none, or a SOCKS proxy the HTTP client cannot take: no proxy for robots.txt', async () => {
    expect(launchProxyOf(undefined)).toBeUndefined();
    expect(launchProxyOf({ launchOptions: { headless: true } })).toBeUndefined();
    expect(
      launchProxyOf({ launchOptions: { proxy: { server: 'socks5://p.internal:1080' } } }),
    ).toBeUndefined();
  });
});
