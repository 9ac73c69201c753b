/**
 * `enqueueSitemaps: true` in a real CheerioCrawler against a loopback site whose robots.txt lists a
 * sitemap index and a text sitemap (and one gzipped sitemap): the pages the sitemaps list are crawled, checked and paced like any other request,
 * judged by the server's own log and at the wire.
 */
import { gzipSync } from 'node:zlib';
import { createPoliteness, type Politeness, type PolitenessOptions } from '@politely/core';
import { crawlStats, politenessOf, withPoliteness } from '@politely/crawlee';
import { afterEach, expect, it } from 'vitest';
import { html, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'SitemapBot/1.0 (+http://127.0.0.1/bot)';
const open: TestHost[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
});

const xml = (body: string) =>
  text(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`, 200, { 'content-type': 'application/xml' });
const urlset = (locs: string[]) =>
  xml(
    `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`,
  );

/** A CheerioCrawler with `enqueueSitemaps: true` that records the paths it handled. */
async function sitemapCrawler(label: string, politeness: Politeness | PolitenessOptions) {
  const handled: string[] = [];
  const crawler = await politeCheerioCrawler(
    label,
    {
      requestHandler: async ({ request }) => void handled.push(new URL(request.url).pathname),
    },
    politeness,
    { enqueueSitemaps: true },
  );
  return { crawler, handled };
}

it('enqueues the pages of the sitemaps robots.txt lists: checked, paced, and on the origin only', async () => {
  const other = await startHost({ ip: '127.0.0.92', fallback: html('<p>other</p>') });
  open.push(other);
  const site = await startHost({ ip: '127.0.0.91', fallback: html('<p>page</p>') });
  open.push(site);
  site.route(
    '/robots.txt',
    text(
      `User-agent: *\nDisallow: /private\nSitemap: ${site.url('/sitemap.xml')}\nSitemap: ${site.url('/more.txt')}\n`,
    ),
  );
  site.route(
    '/sitemap.xml',
    xml(
      `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${site.url('/pages.xml')}</loc></sitemap></sitemapindex>`,
    ),
  );
  site.route('/pages.xml', urlset([site.url('/a'), site.url('/b'), site.url('/private/x'), other.url('/c')]));
  site.route('/more.txt', text(`${site.url('/d')}\n`));

  const facade = createPoliteness({ userAgent: USER_AGENT, pacing: { minDelayMs: 200 } });
  const { crawler, handled } = await sitemapCrawler('sitemaps', facade);
  const capture = await startWireCapture([site, other]);
  const stats = await crawler.run([site.url('/')]);
  const wire = await capture.stop();
  await facade.close();

  expect(handled.sort()).toEqual(['/', '/a', '/b', '/d']);
  expect(stats.requestsFailed).toBe(0);
  // Disallowed and foreign pages never reach a server; the sitemaps went out with the bot's name.
  expect(site.requests('/private/x')).toHaveLength(0);
  expect(other.log).toHaveLength(0);
  for (const path of ['/sitemap.xml', '/pages.xml', '/more.txt']) {
    expect(site.requests(path).map((request) => request.headers['user-agent'])).toEqual([USER_AGENT]);
  }
  expect(crawlStats(crawler).skipped.disallowed).toBe(1);
  // Pages and sitemap files alike, no two requests to the site closer than the delay (robots.txt
  // is core's own fetch, paced by core).
  const judged = judgePacing(
    wire.filter((request) => request.path !== '/robots.txt'),
    200,
  ).get(site.ip);
  expect(judged?.times).toHaveLength(7);
  expect(judged?.violations).toEqual([]);
});

it('reads a gzipped sitemap served as is (sitemap.xml.gz)', async () => {
  const site = await startHost({ ip: '127.0.0.93', fallback: html('<p>page</p>') });
  open.push(site);
  site.route('/robots.txt', text(`User-agent: *\nSitemap: ${site.url('/sitemap.xml.gz')}\n`));
  const packed = gzipSync(
    `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.url('/g')}</loc></url></urlset>`,
  );
  site.route('/sitemap.xml.gz', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/gzip' });
    response.end(packed);
  });
  const { crawler, handled } = await sitemapCrawler('sitemaps-gzip', {
    userAgent: USER_AGENT,
    pacing: { minDelayMs: 0 },
  });
  await crawler.run([site.url('/')]);
  await politenessOf(crawler).close();
  expect(handled.sort()).toEqual(['/', '/g']);
});

it('rejects a non-boolean enqueueSitemaps', () => {
  expect(() => withPoliteness({}, { userAgent: USER_AGENT }, { enqueueSitemaps: 'yes' as never })).toThrow(
    /enqueueSitemaps/,
  );
});
