/**
 * Browser crawlers' navigations paced at the wire: the kernel's time of each page request's line
 * (test/helpers/wire.ts), the asked delay as the floor with no tolerance, two CPU burners beside the
 * crawl. The slot is taken when the browser sends the navigation, so the time a page takes to open
 * (or a loaded machine) cannot bring two navigations closer than asked. Every start URL redirects
 * to a page of the same host, a hop the browser would follow at once: it waits for its own slot.
 */
import type { Configuration } from '@crawlee/core';
import { withPoliteness } from '@politely/crawlee';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BROWSER_KINDS,
  type BrowserKind,
  browserUnavailable,
  newBrowserCrawler,
  removeProfiles,
} from '../../../test/helpers/browser.js';
import { startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { burnCpu, judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { crawleeTestEnv } from './harness.js';

const USER_AGENT = 'BrowserBot/1.0 (+http://127.0.0.1/bot)';
const unavailable = browserUnavailable();

const hosts: TestHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  removeProfiles();
});

async function pacedCrawl(kind: BrowserKind, ip: string, delayMs: number, pages: number) {
  const site = await startHost({
    ip,
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
    fallback: (req, res) => {
      if (req.url?.startsWith('/r/')) {
        res.writeHead(302, { location: req.url.replace('/r/', '/p/') }).end();
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
      }
    },
  });
  hosts.push(site);
  const env = await crawleeTestEnv(`browser-pacing-${kind}`);
  const handled: string[] = [];
  const options = withPoliteness(
    {
      requestQueue: env.requestQueue,
      log: env.log,
      maxRequestRetries: 0,
      maxConcurrency: 4,
      navigationTimeoutSecs: 30,
      requestHandlerTimeoutSecs: 60,
      requestHandler: async ({ request }: { request: { url: string } }) => void handled.push(request.url),
    },
    { userAgent: USER_AGENT, minDelayMs: delayMs },
  );
  const crawler = newBrowserCrawler(kind, options, env.config as Configuration);
  const urls = Array.from({ length: pages }, (_, i) => site.url(`/r/${i}`));
  const burners = burnCpu(2);
  const capture = await startWireCapture([site]);
  try {
    await crawler.run(urls);
  } finally {
    burners.stop();
    await crawler.teardown();
    await env.requestQueue.drop();
  }
  // Favicons are not pages: like every subresource they are checked, not paced.
  const seen = (await capture.stop()).filter((request) => /^\/[rp]\//.test(request.path));
  return { handled, seen, judged: judgePacing(seen, delayMs).get(site.ip) };
}

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s crawler: navigations paced at the wire, with two CPU burners beside it',
  (kind, index) => {
    it.each([
      [200, 6],
      [1000, 3],
    ])(
      '%i ms asked: no two navigations or redirect hops closer than that',
      async (delayMs, pages) => {
        const ip = `127.0.0.${170 + index * 10 + (delayMs === 200 ? 0 : 1)}`;
        const { handled, seen, judged } = await pacedCrawl(kind, ip, delayMs, pages);
        expect(handled).toHaveLength(pages);
        expect(seen).toHaveLength(2 * pages);
        console.info(
          `[wire] ${kind} ${delayMs} ms: smallest gap ${judged?.smallestGapMs?.toFixed(1)} ms, ` +
            `efficiency ${judged?.efficiency?.toFixed(2)}`,
        );
        expect(judged?.violations).toEqual([]);
      },
      120_000,
    );
  },
);
