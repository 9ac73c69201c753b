/**
 * The demo crawl (`npm run demo` without the printing): CheerioCrawler + withPoliteness over the demo
 * web, in one process and in fleet mode on Redis. Its own expectations must hold, and the key ones are
 * also read straight from the server logs (what was requested) and the wire (when: the kernel's time of
 * each request line, with no slack) here, so the test does not only trust the demo's judge.
 */
import { createKeyv } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import type { CrawlProgress } from '../../examples/demo/crawl.js';
import { quietInMemoryCrawlee } from '../../examples/demo/crawlee-env.js';
import { type DemoReport, runDemo } from '../../examples/demo/run-demo.js';
import { type DemoWeb, startDemoWeb } from '../../examples/demo-web/index.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';

quietInMemoryCrawlee('off');
const redisUp = await requireRedis('demo crawl in fleet mode');

let web: DemoWeb | undefined;
afterEach(async () => {
  await web?.close();
  web = undefined;
});

const pathsSeen = (web: DemoWeb, key: Parameters<DemoWeb['host']>[0]) =>
  web.host(key).log.map((request) => request.path);

/** What the demo's log prints a line for: each skip and each stopped redirect, by host. */
function loggedSkips(web: DemoWeb, progress: readonly CrawlProgress[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of progress) {
    if (event.type !== 'skipped' && event.type !== 'redirect-stopped') continue;
    const key = web.hostOf(event.url)?.key ?? '?';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function expectPoliteCrawl(web: DemoWeb, report: DemoReport, progress: readonly CrawlProgress[]): void {
  const problems = report.rows.flatMap((row) => row.problems.map((problem) => `${row.key}: ${problem}`));
  expect(problems).toEqual([]);
  expect(report.ok).toBe(true);

  expect(pathsSeen(web, 'robots-503')).toEqual(['/robots.txt']);
  expect(pathsSeen(web, 'private-section').filter((path) => path.startsWith('/private/'))).toEqual([]);
  expect(pathsSeen(web, 'redirect-trap')).toContain('/old-admin');
  expect(pathsSeen(web, 'redirect-trap')).not.toContain('/private/admin');
  expect(pathsSeen(web, 'robots-redirect').filter((path) => path.endsWith('robots.txt'))).toEqual([
    '/robots.txt',
    '/policies/robots.txt',
  ]);
  expect(pathsSeen(web, 'fast').filter((path) => path.startsWith('/p/'))).toHaveLength(20);

  const crawlDelayHost = web.host('crawl-delay');
  expect(crawlDelayHost.log.filter((request) => request.path !== '/robots.txt')).toHaveLength(5);
  const crawlDelay = report.wire.filter(
    (request) => request.ip === crawlDelayHost.hostname && request.path !== '/robots.txt',
  );
  expect(crawlDelay).toHaveLength(5);
  for (let i = 1; i < crawlDelay.length; i++) {
    const gap = (crawlDelay[i]?.at ?? 0) - (crawlDelay[i - 1]?.at ?? 0);
    expect(gap, `gap ${i} on the Crawl-delay host`).toBeGreaterThanOrEqual(500);
  }
  expect(report.outcome.skipped.get(web.host('robots-503').url('/catalog'))).toBe('unreachable');
  expect(report.outcome.skipped.get(web.host('private-section').url('/private/admin'))).toBe('disallowed');

  // The table says what the log said: the redirect trap's stopped request is a skip in both.
  expect(report.rows.find((row) => row.key === 'redirect-trap')?.skipped).toEqual({ redirect: 1 });
  const tabled = Object.fromEntries(
    report.rows
      .map((row) => [row.key, Object.values(row.skipped).reduce((sum, n) => sum + n, 0)] as const)
      .filter(([, count]) => count > 0),
  );
  expect(tabled).toEqual(loggedSkips(web, progress));
}

describe('demo crawl', () => {
  it('keeps every expectation in one process', async () => {
    web = await startDemoWeb();
    const progress: CrawlProgress[] = [];
    const report = await runDemo({ web, onProgress: (event) => progress.push(event) });
    expect(report.outcome.scheduler).toBe('memory');
    expectPoliteCrawl(web, report, progress);
  }, 60_000);

  describe.skipIf(!redisUp)('fleet mode', () => {
    it('keeps every expectation with the robots.txt cache and pacing in Redis', async () => {
      const store = createKeyv(REDIS_URL, { namespace: uniquePrefix('demo') });
      try {
        web = await startDemoWeb({ firstOctet: 121 });
        const progress: CrawlProgress[] = [];
        const report = await runDemo({ web, store, onProgress: (event) => progress.push(event) });
        expect(report.outcome.scheduler).toBe('redis');
        expectPoliteCrawl(web, report, progress);
      } finally {
        await store.clear();
        await store.disconnect();
      }
    }, 60_000);
  });
});
