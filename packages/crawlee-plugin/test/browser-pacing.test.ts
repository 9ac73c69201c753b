/**
 * Browser crawlers' navigations paced at the wire: the kernel's time of each page request's line
 * (test/helpers/wire.ts), the asked delay as the floor with no tolerance, two CPU burners beside the
 * crawl. The slot is taken when the browser sends the navigation, so the time a page takes to open
 * (or a loaded machine) cannot bring two navigations closer than asked. Every start URL redirects
 * to a page of the same host, a hop the browser would follow at once: it waits for its own slot.
 * Every request the browser sends to the host counts, whatever it is.
 */
import { describe, expect, it } from 'vitest';
import { BROWSER_KINDS, type BrowserKind, browserUnavailable } from '../../../test/helpers/browser.js';
import { startHost, text } from '../../../test/helpers/hosts.js';
import { burnCpu, judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { browserCrawl, browserTestHosts } from './browser-harness.js';

const unavailable = browserUnavailable();
const opened = browserTestHosts({ oneChromium: true });

async function pacedCrawl(kind: BrowserKind, ip: string, delayMs: number, pages: number) {
  const site = opened(
    await startHost({
      ip,
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: (req, res) => {
        if (req.url?.startsWith('/r/')) {
          res.writeHead(302, { location: req.url.replace('/r/', '/p/') }).end();
        } else {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
        }
      },
    }),
  );
  const urls = Array.from({ length: pages }, (_, i) => site.url(`/r/${i}`));
  const burners = burnCpu(2);
  const capture = await startWireCapture([site]);
  let handled: string[] = [];
  try {
    handled = await browserCrawl(kind, urls, {
      crawler: { maxConcurrency: 4 },
      politeness: { pacing: { minDelayMs: delayMs } },
    });
  } finally {
    burners.stop();
  }
  // Every request the browser sent to the host but robots.txt (fetched by the facade, paced apart):
  // navigations, their hops, and anything else Chromium would send by itself (its /favicon.ico is
  // blocked before the first navigation, so a page Crawlee closes at once cannot let it out).
  const seen = (await capture.stop()).filter((request) => request.path !== '/robots.txt');
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
