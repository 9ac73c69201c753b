/**
 * A site whose own files are requests to pace: robots.txt asking `Crawl-delay` and listing a sitemap
 * (the text format, one URL a line), an empty tdmrep.json (fetched under a TDM purpose), and a home
 * page linking to the two pages the sitemap lists. The wire tests of issue 41.3 crawl it through
 * each adapter and judge every request to it, files included, against the Crawl-delay.
 */
import type { Politeness } from '@politely/core';
import { createSitemapFollower } from '@politely/core/fetch';
import { html, type TestHost, text } from './hosts.js';
import { type HostPacing, judgePacing, type WireRequest } from './wire.js';

export const FILE_SITE_PAGES = ['/a', '/b'] as const;

/**
 * The Crawl-delay the wire tests serve, seconds: above the default minDelayMs (1 s) and the margin a
 * page gets on it, so a crawl that paced its files by minDelayMs (issue 41.3: robots.txt -> tdmrep.json
 * -> the first page went 1,055-1,087 ms apart) still fails, and 0.5 s a gap shorter than the 2 s these
 * tests asked before (six requests: 2.5 s less a crawl).
 */
export const FILE_SITE_CRAWL_DELAY_SECS = 1.5;

/** Every path such a crawl requests once: the three files, the home page and its two pages. */
export const FILE_SITE_PATHS = [
  '/',
  '/.well-known/tdmrep.json',
  '/a',
  '/b',
  '/robots.txt',
  '/sitemap.txt',
] as const;

/** Serves the site on `host` (already started: the files name its origin), asking `crawlDelaySecs`. */
export function serveFileSite(host: TestHost, crawlDelaySecs: number): void {
  const pages = FILE_SITE_PAGES.map((path) => host.url(path));
  host.route(
    '/robots.txt',
    text(`User-agent: *\nCrawl-delay: ${crawlDelaySecs}\nSitemap: ${host.url('/sitemap.txt')}\n`),
  );
  host.route('/.well-known/tdmrep.json', text('[]', 200, { 'content-type': 'application/json' }));
  host.route('/sitemap.txt', text(`${pages.join('\n')}\n`));
  host.route('/', html(pages.map((url) => `<a href="${url}">${url}</a>`).join('\n')));
  for (const path of FILE_SITE_PAGES) host.route(path, html(`<p>${path}</p>`));
}

/**
 * What a crawler does on such a site through a polite client (`download`: its body, or undefined for
 * a non-2xx): the home page (robots.txt and, under a TDM purpose, tdmrep.json go first), the sitemaps
 * robots.txt lists, through the same client (core's sitemap follower), then every page they list at
 * once. Resolves with the pages the sitemap listed.
 */
export async function crawlFileSite(
  politeness: Politeness,
  host: TestHost,
  download: (url: string) => Promise<Uint8Array | string | undefined>,
): Promise<string[]> {
  await download(host.url('/'));
  const listed: string[] = [];
  const follower = createSitemapFollower(politeness, {
    download,
    parseXml: () => [],
    onPages: ({ urls }) => void listed.push(...urls),
    logger: false,
  });
  await follower.meet(host.url('/'));
  await Promise.all(listed.map((url) => download(url)));
  return listed;
}

/**
 * The host's pacing at the wire against `delayMs`, every request counted (robots.txt and the other
 * files too); with POLITELY_WIRE_LOG set, each request's path and the gap before it are printed.
 */
export function judgeFileSite(
  seen: readonly WireRequest[],
  host: TestHost,
  delayMs: number,
  label: string,
): HostPacing | undefined {
  const judged = judgePacing(seen, delayMs, { includeRobotsTxt: true }).get(host.ip);
  if (process.env.POLITELY_WIRE_LOG) {
    const paths = seen.filter((request) => request.ip === host.ip).map((request) => request.path);
    const gaps = judged?.gaps.map((gap) => Math.round(gap)) ?? [];
    console.log(JSON.stringify({ label, delayMs, paths, gaps }));
  }
  return judged;
}
