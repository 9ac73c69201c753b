/**
 * What a browser crawler's navigation tells the host's pacing, on a loopback host that answers its
 * pages 300 ms (1500 ms with the cap raised) after they arrive:
 * - maxConcurrentPerHost: a navigation holds its host's in-flight place from its request to its
 *   response; the host counts the pages it is answering at once, and that count is judged. With the
 *   cap raised to 2 the host holds its pages until two have been in flight at once (each at most
 *   PAIR_WAIT_MS): how soon a loaded machine opens the second tab must not decide whether two overlap
 *   (a fixed 1.5 s answer did, and failed beside other test files).
 * - latency: each navigation's response reports its latency, so with `minDelayMs: 0` the host's
 *   navigations still go out at least latencyFactor (2) x 300 ms apart once it is known, judged at
 *   the wire.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BROWSER_KINDS, type BrowserKind, browserUnavailable } from '../../../test/helpers/browser.js';
import { startHost, text } from '../../../test/helpers/hosts.js';
import { startWireCapture } from '../../../test/helpers/wire.js';
import { browserCrawl, browserTestHosts } from './browser-harness.js';

const ANSWER_MS = 300;
const PAGES = 6;
/** With the cap raised: pages slow enough that a browser opening its next page overlaps them. */
const SLOW_ANSWER_MS = 1500;
/**
 * The longest the host holds a page waiting for a second one in flight. A bound, well inside the 30 s
 * navigation timeout: Crawlee 3.18's pool asks for a request only when a task ends or during a short
 * nap of the plugin, so the first page of a host usually goes out alone and waits this long.
 */
const PAIR_WAIT_MS = 8_000;
const unavailable = browserUnavailable();
const opened = browserTestHosts({ oneChromium: true });

async function crawl(kind: BrowserKind, ip: string, answerMs: number, maxConcurrentPerHost?: number) {
  const counter = { now: 0, most: 0 };
  // Raised cap: pages wait (from their arrival, at most PAIR_WAIT_MS) until two have been in flight at
  // once, then answer answerMs later; a third page in flight meanwhile still counts.
  const paired: Array<() => void> = [];
  const waitForPair = (): Promise<void> =>
    !maxConcurrentPerHost || counter.most >= 2
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(resolve, PAIR_WAIT_MS);
          paired.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
  const site = await startHost({
    ip,
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
    fallback: (req, res: ServerResponse) => {
      if (!req.url?.startsWith('/p/')) {
        res.writeHead(404).end();
        return;
      }
      counter.now++;
      counter.most = Math.max(counter.most, counter.now);
      if (counter.most >= 2) for (const release of paired.splice(0)) release();
      void waitForPair().then(() =>
        setTimeout(() => {
          counter.now--;
          res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
        }, answerMs),
      );
    },
  });
  opened(site);
  const capture = await startWireCapture([site]);
  const handled = await browserCrawl(
    kind,
    Array.from({ length: PAGES }, (_, i) => site.url(`/p/${i}`)),
    {
      // Crawlee's pool scales up only while the machine looks idle; on a busy one it may stay at one
      // task, and the cap would never be the limit judged.
      crawler: { maxConcurrency: PAGES, minConcurrency: 2 },
      // Raised, the cap is what is judged: latency pacing (pages 2 x 300 ms apart) would keep them apart.
      politeness: maxConcurrentPerHost ? { pacing: { maxConcurrentPerHost, latencyFactor: 0 } } : {},
    },
  );
  const pages = (await capture.stop())
    .filter((request) => request.path.startsWith('/p/'))
    .map((request) => request.at)
    .sort((a, b) => a - b);
  const gaps = pages.slice(1).map((at, i) => at - (pages[i] ?? at));
  return { handled, most: counter.most, gaps };
}

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s crawler: navigations in flight per host',
  (kind, index) => {
    it('one page at the server at a time by default; from the third on, 2 x its latency apart', async () => {
      const { handled, most, gaps } = await crawl(kind, `127.0.0.${170 + index * 2}`, ANSWER_MS);
      expect(handled).toHaveLength(PAGES);
      expect(most).toBe(1);
      expect(gaps).toHaveLength(PAGES - 1);
      for (const gap of gaps.slice(1)) expect(gap).toBeGreaterThanOrEqual(2 * ANSWER_MS);
    }, 120_000);

    it('two with maxConcurrentPerHost: 2', async () => {
      const { handled, most } = await crawl(kind, `127.0.0.${171 + index * 2}`, SLOW_ANSWER_MS, 2);
      expect(handled).toHaveLength(PAGES);
      expect(most).toBe(2);
    }, 120_000);
  },
);
