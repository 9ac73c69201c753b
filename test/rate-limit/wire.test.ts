/**
 * Issue 22's "done when" for rate-limit headers, judged at the wire (the kernel's capture time of each
 * request line): a host that answers `RateLimit: "default";r=5;t=3` sees at most 5 more page requests
 * before those 3 s are over, however many are queued; and no answer's quota is ever overrun, so the
 * host never has to refuse one (429). Through politeFetch, with minDelayMs far below the quota's pace.
 */
import { politeFetch, politenessOf } from '@politely/fetch';
import { afterEach, describe, expect, it } from 'vitest';
import { judgeQuota, startQuotaHost } from '../helpers/quota-host.js';
import { startWireCapture } from '../helpers/wire.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// 6 per 3 s window: the first answer says r=5;t=3. Small, so the whole crawl takes a few seconds.
const QUOTA = 6;
const WINDOW_MS = 3000;
const PAGES = 10;

describe('rate-limit headers at the wire', () => {
  it('a host answering r=5;t=3 sees at most 5 more requests in those 3 s, and never has to refuse one', async () => {
    const { host, answers } = await startQuotaHost('127.0.0.161', QUOTA, WINDOW_MS);
    cleanups.push(() => host.close());
    const fetch = politeFetch({
      userAgent: 'QuotaBot/1.0 (+http://127.0.0.1/bot)',
      pacing: { minDelayMs: 20 },
    });
    cleanups.push(() => politenessOf(fetch).close());
    const capture = await startWireCapture([host]);
    // Every page queued at once: only the quota's pace holds them back.
    const statuses = await Promise.all(
      Array.from({ length: PAGES }, async (_, i) => {
        const response = await fetch(host.url(`/page-${i}`));
        await response.arrayBuffer();
        return response.status;
      }),
    );
    const wire = await capture.stop();

    expect(statuses).toEqual(Array(PAGES).fill(200));
    const first = answers[0];
    expect(first).toMatchObject({ remaining: 5, resetSeconds: 3 });
    const pages = wire.filter((request) => request.ip === host.ip && request.path !== '/robots.txt');
    expect(pages).toHaveLength(PAGES);
    const soon = pages.filter((request) => first && request.at > first.at && request.at < first.at + 3000);
    expect(soon.length).toBeLessThanOrEqual(5);
    expect(judgeQuota(wire, host.ip, answers)).toEqual([]);
    expect(answers.filter((answer) => answer.status === 429)).toEqual([]);
    console.info(
      `rate-limit wire (${capture.source}): ${soon.length} requests in the 3 s after r=5;t=3, ${PAGES} pages in ${((pages.at(-1)?.at ?? 0) - (pages[0]?.at ?? 0)).toFixed(0)} ms`,
    );
  }, 60_000);
});
