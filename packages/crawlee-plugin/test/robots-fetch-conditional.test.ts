/**
 * The Crawlee plugin's robots.txt fetch through the crawler's HTTP client and proxy passes core's
 * conditional headers on and hands the 304 back as it came (issue 34): core decides what it means.
 */
import { GotScrapingHttpClient } from '@crawlee/core';
import { fetchRobotsTxt } from '@politely/core/fetch';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../test/helpers/hosts.js';
import { type ForwardProxy, startForwardProxy } from '../../../test/helpers/proxy.js';
import { robotsFetchThroughProxy } from '../src/robots-fetch.js';

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((item) => item.close()));
});

describe('robots.txt through the crawler HTTP client and proxy, conditionally', () => {
  it('sends If-None-Match / If-Modified-Since and returns the 304', async () => {
    const site: TestHost = await startHost({
      ip: '127.0.0.140',
      routes: {
        '/robots.txt': (req, res) => {
          const unchanged = req.headers['if-none-match'] === '"r1"';
          res.writeHead(unchanged ? 304 : 200, { etag: '"r1"', 'content-type': 'text/plain' });
          res.end(unchanged ? undefined : 'User-agent: *\nDisallow: /private\n');
        },
      },
    });
    closing.push(site);
    const proxy: ForwardProxy = await startForwardProxy({
      ip: '127.0.0.141',
      names: { 'shop.internal': site.ip },
    });
    closing.push(proxy);
    const robotsUrl = `http://shop.internal:${site.port}/robots.txt`;
    const fetch = robotsFetchThroughProxy(new GotScrapingHttpClient(), { newUrl: async () => proxy.url });

    const result = await fetchRobotsTxt(robotsUrl, {
      fetch,
      userAgent: 'ProxyBot/1.0',
      timeoutMs: 5000,
      maxBytes: 10_000,
      maxRedirects: 5,
      validators: { url: robotsUrl, etag: '"r1"', lastModified: 'Sun, 01 Mar 2026 00:00:00 GMT' },
    });

    expect(result).toMatchObject({ status: 304, conditional: true, etag: '"r1"' });
    expect(result.notModifiedWithBody).toBeUndefined();
    expect(site.requests('/robots.txt').map((request) => request.headers['if-none-match'])).toEqual(['"r1"']);
    expect(site.requests('/robots.txt')[0]?.headers['if-modified-since']).toBe(
      'Sun, 01 Mar 2026 00:00:00 GMT',
    );
    expect(proxy.requests('/robots.txt')).toHaveLength(1);
  });
});
