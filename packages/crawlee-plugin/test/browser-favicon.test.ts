/**
 * What a site sees of a polite browser crawl, judged at the wire (test/helpers/wire.ts): Crawlee's
 * PlaywrightCrawler and PuppeteerCrawler with links found by `enqueueLinks`, the host asking
 * `Crawl-delay: 1`. Every request to the host but robots.txt counts, whoever sent it: the pages, and
 * nothing else (Chromium's own icon request used to come 85-490 ms after each navigation). The delay
 * is the floor; no upper bound.
 */
import { describe, expect, it } from 'vitest';
import { BROWSER_KINDS, browserUnavailable } from '../../../test/helpers/browser.js';
import { html, startHost, text } from '../../../test/helpers/hosts.js';
import { judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { browserCrawl, browserTestHosts } from './browser-harness.js';

const unavailable = browserUnavailable();
const opened = browserTestHosts();
const DELAY_MS = 1000;

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s crawler, links found by enqueueLinks: every request the browser sends, at the wire',
  (kind, index) => {
    it('only the pages reach the host (no icon request), none closer than the asked delay', async () => {
      const site = opened(
        await startHost({
          ip: `127.0.0.${212 + index}`,
          routes: { '/robots.txt': text(`User-agent: *\nCrawl-delay: ${DELAY_MS / 1000}\n`) },
          fallback: html(
            '<!doctype html><link rel="icon" href="/icon.png"><a href="/p1">1</a> <a href="/p2">2</a>',
          ),
        }),
      );
      const capture = await startWireCapture([site]);
      await browserCrawl(kind, [site.url('/')], {
        crawler: {
          requestHandler: async ({ enqueueLinks }: { enqueueLinks: () => Promise<unknown> }) => {
            await enqueueLinks();
          },
        },
      });
      const seen = (await capture.stop()).filter((request) => request.path !== '/robots.txt');
      expect(seen.map((request) => request.path).sort()).toEqual(['/', '/p1', '/p2']);
      expect(judgePacing(seen, DELAY_MS).get(site.ip)?.violations).toEqual([]);
    }, 120_000);
  },
);
