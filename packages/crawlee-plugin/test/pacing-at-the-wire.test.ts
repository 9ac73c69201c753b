/**
 * CheerioCrawler's pacing as the sites see it: request lines timed by the kernel (tcpdump on lo),
 * every gap between two page requests to one host at or above the asked delay, with no tolerance,
 * while two CPU-burning processes run beside the crawl. And 429/503 with Retry-After: the host's
 * next request waits at least that long.
 */
import type { CheerioCrawlerOptions } from '@crawlee/cheerio';
import { ProxyConfiguration } from '@crawlee/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startDelayingProxy } from '../../../examples/shared/delaying-proxy.js';
import {
  FILE_SITE_CRAWL_DELAY_SECS,
  FILE_SITE_PATHS,
  judgeFileSite,
  serveFileSite,
} from '../../../test/helpers/file-site.js';
import { type Handler, html, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { burnCpu, judgePacing, skipWithoutWire, startWireCapture } from '../../../test/helpers/wire.js';
import { politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'WireBot/1.0 (+http://127.0.0.1/bot)';
const open: TestHost[] = [];
let burners: { stop(): void } | undefined;
afterEach(async () => {
  burners?.stop();
  burners = undefined;
  await Promise.all(open.splice(0).map((started) => started.close()));
});

async function hosts(ips: readonly string[], routes: Record<string, Handler | ReturnType<typeof text>> = {}) {
  const started = await Promise.all(
    ips.map((ip) =>
      startHost({
        ip,
        fallback: html('<p>page</p>'),
        routes: { '/robots.txt': text('User-agent: *\nAllow: /\n'), ...routes },
      }),
    ),
  );
  open.push(...started);
  return started;
}

async function crawl(
  sites: readonly TestHost[],
  pages: number,
  minDelayMs: number,
  label: string,
  extra: Partial<CheerioCrawlerOptions> = {},
) {
  const crawler = await politeCheerioCrawler(
    label,
    {
      maxConcurrency: 10,
      maxRequestRetries: 2,
      useSessionPool: false,
      // Without a session pool Crawlee hands a 429 to the handler; have it retried like a 503.
      additionalHttpErrorStatusCodes: [429],
      requestHandler: async () => {},
      ...extra,
    },
    { userAgent: USER_AGENT, pacing: { minDelayMs } },
  );
  const urls = sites.flatMap((site) => Array.from({ length: pages }, (_, index) => site.url(`/p${index}`)));
  const capture = await startWireCapture(sites);
  const stats = await crawler.run(urls);
  return { wire: await capture.stop(), stats };
}

/** How long the pre-navigation hook below holds the crawler's even pages (/p0, /p2, ...). */
const SLOW_HOOK_MS = 150;

/**
 * A pre-navigation hook that takes SLOW_HOOK_MS on even pages only. The crawler hands a request out as
 * early as its pipeline took to reach the client (hand-out-lead.ts): the slow pages teach it a lead of
 * about SLOW_HOOK_MS, so the odd pages reach the client that much before their host is due, and only
 * the client's binding reservation keeps them from the wire until then. Without the hook the lead is
 * the pipeline's own few ms, the hand-out alone spaces the pages, and a reservation paced at half the
 * delay went unseen (the 1000 ms row stayed green with the facade's pace halved).
 */
const slowEvenPages = async ({ request }: { request: { url: string } }) => {
  const index = Number(/\/p(\d+)$/.exec(request.url)?.[1]);
  if (index % 2 === 0) await new Promise((resolve) => setTimeout(resolve, SLOW_HOOK_MS));
};

describe('CheerioCrawler at the wire, two CPU burners beside it', () => {
  it.each([
    [100, 8],
    [200, 6],
    [1000, 3],
  ])(
    '%i ms asked, requests handed out early (a slow pre-navigation hook): no gap under it on any host',
    async (delayMs, pages) => {
      const sites = await hosts(['127.0.0.81', '127.0.0.82']);
      burners = burnCpu(2);
      const { wire } = await crawl(sites, pages, delayMs, `wire-${delayMs}`, {
        preNavigationHooks: [slowEvenPages],
      });
      burners.stop();
      const judged = judgePacing(wire, delayMs);
      for (const site of sites) {
        expect(judged.get(site.ip)?.times).toHaveLength(pages);
        expect(judged.get(site.ip)?.violations).toEqual([]);
      }
    },
    60_000,
  );

  it('through a proxy that holds each request 0-300 ms (proxyConfiguration), 1000 ms asked: no gap under it', async () => {
    // The client's connection to the proxy completes at once: only the response's arrival shows
    // when the site had the request, so the next one counts from there (spacing 'response').
    const sites = await hosts(['127.0.0.84', '127.0.0.85']);
    const proxy = await startDelayingProxy();
    try {
      burners = burnCpu(2);
      const proxyConfiguration = new ProxyConfiguration({ proxyUrls: [proxy.url] });
      const { wire } = await crawl(sites, 4, 1000, 'wire-proxy', { proxyConfiguration });
      burners.stop();
      expect(proxy.holds.length).toBeGreaterThanOrEqual(8); // the pages went through the proxy
      const judged = judgePacing(wire, 1000);
      for (const site of sites) {
        expect(judged.get(site.ip)?.times).toHaveLength(4);
        expect(judged.get(site.ip)?.violations).toEqual([]);
      }
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it.each([429, 503])(
    '%i with Retry-After: 1 holds the host at least 1 s, and the request is retried',
    async (status) => {
      let refused = false;
      const busyOnce: Handler = (_req, res) => {
        if (refused) {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok now</p>');
          return;
        }
        refused = true;
        res.writeHead(status, { 'retry-after': '1', 'content-type': 'text/html' }).end('<p>busy</p>');
      };
      const [site] = (await hosts(['127.0.0.83'], { '/p1': busyOnce })) as [TestHost];
      burners = burnCpu(2);
      const { wire, stats } = await crawl([site], 4, 100, `retry-after-${status}`);
      burners.stop();
      const pages = wire.filter((request) => request.ip === site.ip && request.path !== '/robots.txt');
      const refusedAt = pages.find((request) => request.path === '/p1')?.at ?? Number.NaN;
      const after = pages.filter((request) => request.at > refusedAt);
      expect(after.length).toBeGreaterThan(0);
      for (const request of after) expect(request.at - refusedAt).toBeGreaterThanOrEqual(1000);
      expect(pages.filter((request) => request.path === '/p1')).toHaveLength(2);
      expect(stats.requestsFinished).toBe(4);
      expect(judgePacing(wire, 100).get(site.ip)?.violations).toEqual([]);
    },
    60_000,
  );
});

describe.skipIf(skipWithoutWire("the Crawlee quick start's file pacing"))(
  'files are paced as pages (issue 41.3)',
  () => {
    it('the quick start on Crawlee defaults, Crawl-delay: 1.5: no two requests closer than 1.5 s, robots.txt, tdmrep.json and the sitemap included', async () => {
      const site = await startHost({ ip: '127.0.0.86' });
      open.push(site);
      serveFileSite(site, FILE_SITE_CRAWL_DELAY_SECS);
      // The README's quick start (default pacing), with a TDM purpose and the sitemaps robots.txt lists.
      const crawler = await politeCheerioCrawler(
        'wire-files',
        {
          requestHandler: async ({ enqueueLinks }) => {
            await enqueueLinks();
          },
          maxRequestsPerCrawl: 20,
        },
        { userAgent: USER_AGENT, purpose: 'ai-train' },
        { enqueueSitemaps: true },
      );
      const capture = await startWireCapture([site]);
      const stats = await crawler.run([site.url('/')]);
      const wire = await capture.stop();

      expect(stats.requestsFinished).toBe(3);
      expect(wire.map((request) => request.path).sort()).toEqual([...FILE_SITE_PATHS]);
      expect(
        judgeFileSite(wire, site, FILE_SITE_CRAWL_DELAY_SECS * 1000, 'crawlee quick start')?.violations,
      ).toEqual([]);
    }, 60_000);
  },
);
