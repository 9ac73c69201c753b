/**
 * Browser crawlers behind a proxy, paced as the site sees it. A proxy in front of the browser (Crawlee's
 * `proxyConfiguration`) can hold a navigation before passing it on; the browser's connection to the
 * proxy completes at once, so neither the browser nor the plugin sees the hold. Only the response's
 * arrival proves the site had the request, so by default (`spacing: 'response'`) the host's next
 * navigation counts its delay from there. Every start URL redirects to a page of the same host, and
 * the redirect hop is paced like a navigation. Judged at the wire (the kernel's time of each request
 * line the proxy sends on), the asked delay as the floor, with two CPU burners beside the crawl.
 */
import { ProxyConfiguration } from '@crawlee/core';
import { describe, expect, it } from 'vitest';
import { startDelayingProxy } from '../../../examples/shared/delaying-proxy.js';
import { BROWSER_KINDS, browserUnavailable } from '../../../test/helpers/browser.js';
import { startHost, text } from '../../../test/helpers/hosts.js';
import { burnCpu, judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { browserCrawl, browserTestHosts } from './browser-harness.js';

const unavailable = browserUnavailable();
const opened = browserTestHosts();
const DELAY_MS = 500;
const PAGES = 4;

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s crawler through a proxy that holds each request 0-300 ms',
  (kind, index) => {
    it(`${DELAY_MS} ms asked: no two navigations closer than that at the site`, async () => {
      const site = opened(
        await startHost({
          ip: `127.0.0.${195 + index}`,
          routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
          fallback: (req, res) => {
            // Every start URL redirects to a page of the same host: the hop is paced like a navigation.
            if (req.url?.startsWith('/r/'))
              res.writeHead(302, { location: req.url.replace('/r/', '/p/') }).end();
            else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
          },
        }),
      );
      const proxy = await startDelayingProxy({ ip: `127.0.0.${197 + index}` });
      const burners = burnCpu(2);
      const capture = await startWireCapture([site]);
      let handled: string[] = [];
      try {
        handled = await browserCrawl(
          kind,
          Array.from({ length: PAGES }, (_, page) => site.url(`/r/${page}`)),
          {
            crawler: {
              maxConcurrency: 4,
              proxyConfiguration: new ProxyConfiguration({ proxyUrls: [proxy.url] }),
            },
            politeness: { pacing: { minDelayMs: DELAY_MS } },
            // Chromium sends loopback requests past any proxy unless told not to.
            chromiumArgs: ['--proxy-bypass-list=<-loopback>'],
          },
        );
      } finally {
        burners.stop();
        await proxy.close();
      }
      const seen = (await capture.stop()).filter((request) => /^\/[rp]\//.test(request.path));
      expect(handled).toHaveLength(PAGES);
      expect(proxy.holds.length).toBeGreaterThanOrEqual(PAGES); // the pages went through the proxy
      const judged = judgePacing(seen, DELAY_MS).get(site.ip);
      console.info(
        `[wire] ${kind} through a proxy, ${DELAY_MS} ms: smallest gap ${judged?.smallestGapMs?.toFixed(1)} ms`,
      );
      expect(judged?.times).toHaveLength(2 * PAGES);
      expect(judged?.violations).toEqual([]);
    }, 120_000);
  },
);
