/**
 * core's sitemap follower outside Crawlee: a worker pool of your own on the frontier and a polite
 * fetch, over a loopback site whose robots.txt lists a gzipped sitemap index. The files go out through
 * politeFetch like the pages (checked, paced, with the bot's name), the pages they list are crawled,
 * and what robots.txt refuses or another host holds never reaches a server: judged by the servers' logs.
 */
import { gzipSync } from 'node:zlib';
import { createPoliteness, type Politeness } from '@politely/core';
import { createSitemapFollower } from '@politely/core/fetch';
import { createFrontier } from '@politely/core/frontier';
import { politeFetch } from '@politely/fetch';
import { afterEach, expect, it } from 'vitest';
import { smallestGapMs, startHost, type TestHost, text } from '../helpers/hosts.js';

const USER_AGENT = 'SitemapPoolBot/1.0 (+https://example.test)';
const DELAY_MS = 300;
const hosts: TestHost[] = [];
const instances: Politeness[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

const urlset = (locs: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;

it('crawls the pages of the sitemaps robots.txt lists, fetched politely through politeFetch', async () => {
  const other = await startHost({ ip: '127.0.0.232', fallback: text('other') });
  const site = await startHost({ ip: '127.0.0.231', fallback: text('page') });
  hosts.push(other, site);
  site.route(
    '/robots.txt',
    text(`User-agent: *\nDisallow: /private\nSitemap: ${site.url('/index.xml.gz')}\n`),
  );
  const index = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[
    '/pages.xml',
    '/private/more.xml',
  ]
    .map((path) => `<sitemap><loc>${site.url(path)}</loc></sitemap>`)
    .join('')}</sitemapindex>`;
  site.route('/index.xml.gz', {
    status: 200,
    headers: { 'content-type': 'application/gzip' },
    body: gzipSync(index),
  });
  site.route('/pages.xml', text(urlset([site.url('/a'), site.url('/b'), other.url('/c')])));

  const politeness = createPoliteness({
    userAgent: USER_AGENT,
    pacing: { minDelayMs: DELAY_MS },
    logger: false,
  });
  instances.push(politeness);
  const fetchPolitely = politeFetch(politeness);
  const frontier = createFrontier<{ url: string }>(politeness, { logger: false });
  const todo = [{ url: site.url('/') }];
  const sitemaps = createSitemapFollower(politeness, {
    download: async (url) => {
      const response = await fetchPolitely(url);
      return response.ok ? new Uint8Array(await response.arrayBuffer()) : undefined;
    },
    // A toy reader: the XML parser is the caller's choice (Crawlee's in the plugin), not under test here.
    parseXml: function* ({ content }) {
      for (const [, tag, loc] of content.matchAll(/<(url|sitemap)><loc>([^<]*)<\/loc>/g)) {
        yield { loc: loc as string, isSitemap: tag === 'sitemap' };
      }
    },
    onPages: ({ urls }) => {
      todo.push(...urls.map((url) => ({ url })));
      frontier.wake();
    },
    logger: false,
  });

  const following = new Set<Promise<void>>();
  const fetched: string[] = [];
  const worker = async () => {
    for (;;) {
      const item = await frontier.next(() => todo.shift());
      if (!item) {
        if (frontier.idle && todo.length === 0 && following.size === 0) return;
        await frontier.nap(100);
        continue;
      }
      const task = sitemaps.meet(item.url);
      if (task) {
        following.add(task);
        void task.finally(() => following.delete(task));
      }
      try {
        await (await fetchPolitely(item.url)).text();
        fetched.push(new URL(item.url).pathname);
      } finally {
        frontier.finished(item);
      }
    }
  };
  await Promise.all([worker(), worker()]);

  expect(fetched.sort()).toEqual(['/', '/a', '/b']);
  expect(site.requests('/private/more.xml')).toHaveLength(0);
  expect(other.log).toHaveLength(0);
  for (const path of ['/index.xml.gz', '/pages.xml']) {
    expect(site.requests(path).map((request) => request.headers['user-agent'])).toEqual([USER_AGENT]);
  }
  // Sitemap files and pages share the host's pace (a floor: the machine may be slower, never faster).
  const sent = site.log.filter((request) => request.path !== '/robots.txt');
  expect(sent).toHaveLength(5);
  expect(smallestGapMs(sent)).toBeGreaterThanOrEqual(DELAY_MS);
});
