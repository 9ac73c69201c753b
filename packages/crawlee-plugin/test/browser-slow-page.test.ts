/**
 * A browser crawler's page that waits for its host behind a slow page is not lost (issue 35.2).
 * PlaywrightCrawler and PuppeteerCrawler, maxConcurrency 4, `navigationTimeoutSecs: 5`, no retries:
 * the host answers /slow SLOW_MS after it arrives, and /next, handed out once /slow went out, must
 * wait for the host's only place (maxConcurrentPerHost 1) and then for its slot (the latency pace, 3 x
 * a 2 s answer, and the Crawl-delay when there is one): longer than its navigation may take. That
 * wait must come before its navigation starts, not inside page.goto's 5 s. What is asserted is that
 * every page was handled and reached the server once, and (from the server's log) that /next arrived
 * only after /slow was answered, and no sooner than the Crawl-delay after it.
 * On the code before the fix /next timed out in its navigation (Playwright: after the server had
 * it; Puppeteer: never sent) and was lost.
 */
import { describe, expect, it } from 'vitest';
import { BROWSER_KINDS, type BrowserKind, browserUnavailable } from '../../../test/helpers/browser.js';
import { startHost, text } from '../../../test/helpers/hosts.js';
import { browserCrawl, browserTestHosts } from './browser-harness.js';

/**
 * /slow's headers come this long after its request: inside its own 5 s (3 s to spare for a loaded
 * machine), not inside /next's too; and 1 s after the Crawl-delay, so that /next is handed out (its
 * host due) while /slow is still in flight, as in the issue.
 */
const SLOW_MS = 2_000;
const unavailable = browserUnavailable();
const opened = browserTestHosts({ oneChromium: true });

const nowMs = () => performance.timeOrigin + performance.now();

async function crawl(kind: BrowserKind, ip: string, crawlDelaySecs: number | undefined) {
  let answeredAt = Number.NaN;
  const site = opened(
    await startHost({
      ip,
      routes: {
        '/robots.txt': text(
          `User-agent: *\nAllow: /\n${crawlDelaySecs === undefined ? '' : `Crawl-delay: ${crawlDelaySecs}\n`}`,
        ),
        '/slow': (_req, res) =>
          void setTimeout(() => {
            answeredAt = nowMs();
            res.writeHead(200, { 'content-type': 'text/html' }).end('<p>slow</p>');
          }, SLOW_MS),
      },
      fallback: (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>'),
    }),
  );
  const urls = [site.url('/slow'), site.url('/next')];
  const handled = await browserCrawl(kind, urls, {
    crawler: {
      maxConcurrency: 4,
      // Two tasks at least, however busy the machine looks to Crawlee's pool: /next is taken while
      // /slow is in flight, as in the issue, not after /slow's task ended.
      minConcurrency: 2,
      navigationTimeoutSecs: 5,
      maxRequestRetries: 0,
      // The browser pool retires a browser idle for 1 s and launches another on the same profile
      // directory (the test's), which Chromium refuses while the first is still closing.
      browserPoolOptions: { retireInactiveBrowserAfterSecs: 60 },
    },
    // The latency pace (3 x a 2 s answer) makes /next's wait longer than its 5 s navigation, however
    // long a loaded machine takes to open its page: waited inside page.goto, it fails the page.
    politeness: { pacing: { latencyFactor: 3 } },
  });
  const pages = site.log.filter((request) => request.path !== '/robots.txt');
  return { urls, handled, pages, answeredAt };
}

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s crawler: a page waiting behind a slow page of its host',
  (kind, index) => {
    // Side by side (a browser each, hosts of their own): most of a case is waiting on /slow and the pace.
    it.concurrent.each([
      ['no Crawl-delay', undefined, 0],
      ['Crawl-delay 1', 1, 1],
    ] as const)(
      '%s: waits before its navigation, and is handled',
      async (_name, crawlDelaySecs, variant) => {
        const ip = `127.35.2.${10 + index * 2 + variant}`;
        const { urls, handled, pages, answeredAt } = await crawl(kind, ip, crawlDelaySecs);
        expect([...handled].sort()).toEqual([...urls].sort());
        expect(pages.map((request) => request.path)).toEqual(['/slow', '/next']);
        const next = pages[1]?.at ?? Number.NaN;
        // One place in flight: /next reached the host only once /slow was answered, and the
        // Crawl-delay after that (spacing 'response').
        expect(next).toBeGreaterThanOrEqual(answeredAt + (crawlDelaySecs ?? 0) * 1000);
      },
      150_000,
    );
  },
);
