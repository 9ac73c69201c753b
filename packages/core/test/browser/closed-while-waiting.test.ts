/**
 * A page closed while its navigation waits for its host's place gives that place back, and takes no
 * slot (issue 35.2). Playwright on Debian's Chromium, a page guard by hand, `maxConcurrentPerHost: 1`
 * (the default): page A's navigation holds the host's only place while its server takes SLOW_MS to
 * answer; page B's navigation waits for that place and B is closed meanwhile, told to the guard first
 * or not. Then pages C and D navigate to the host and must reach it. What is asserted: both
 * navigations resolved, the server's log, and the pacing slots the instance counted (`stats()`): one
 * per request that reached the host, none for B. On the code before the fix, without
 * `pageClosing(b)` neither C nor D left the browser (B took the place once A let it go, and kept it
 * for good); with it, B still took the place and a slot when A let go, a slot no request used.
 * Latency pacing is off, so that C and D follow A at once: what is judged is the place and the slots.
 */
import { createPoliteness, type PolitelyEvent, type Politeness } from '@politely/core';
import { createPageGuard, type PageGuard } from '@politely/core/browser';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailable, CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../../test/helpers/chromium.js';
import { html, startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';

const TEST_MS = 120_000;
/** How long page A's server holds its answer: B waits behind it, and is closed 500 ms in. */
const SLOW_MS = 3_000;
/** C's and D's navigation timeout: a bound for a hang, far above what they need once A is answered. */
const GOTO_MS = 15_000;
const unavailable = browserUnavailable();

describe.skipIf(unavailable !== undefined)('playwright by hand: a page closed while it waits', () => {
  const hosts: TestHost[] = [];
  let browser: Browser | undefined;
  let politeness: Politeness;
  let guard: PageGuard;

  beforeAll(async () => {
    politeness = createPoliteness({
      userAgent: 'WaitBot/1.0',
      pacing: { minDelayMs: 0, latencyFactor: 0 },
      logger: false,
    });
    guard = createPageGuard(politeness);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  }, TEST_MS);

  afterAll(async () => {
    await browser?.close();
    await politeness?.close();
    await Promise.all(hosts.splice(0).map((host) => host.close()));
  }, TEST_MS);

  async function guardedPage(): Promise<Page> {
    if (!browser) throw new Error('the browser did not start');
    const page = await browser.newPage();
    await guard.install(page);
    return page;
  }

  function slotsTaken(): number {
    const { immediate, waited } = politeness.stats().reservations;
    return immediate + waited;
  }

  /** Resolves when the guard decided about `url` (B's navigation is then waiting for its place). */
  function decided(url: string): Promise<void> {
    return new Promise((resolve) => {
      const stop = politeness.subscribe((event: PolitelyEvent) => {
        if (event.type !== 'decision' || event.decision.url !== url) return;
        stop();
        resolve();
      });
    });
  }

  it.each([
    ['after guard.pageClosing(b)', '127.35.2.1', true],
    ['without guard.pageClosing(b)', '127.35.2.2', false],
  ] as const)(
    'closed %s: the place is given back, and the next pages to the host go out',
    async (_name, ip, told) => {
      const host = await startHost({
        ip,
        routes: {
          '/robots.txt': text('User-agent: *\nAllow: /\n'),
          '/a': { delayMs: SLOW_MS, status: 200, headers: { 'content-type': 'text/html' }, body: '<p>a</p>' },
        },
        fallback: html('<!doctype html><title>page</title><p>page</p>'),
      });
      hosts.push(host);
      const slotsBefore = slotsTaken();
      const a = await guardedPage();
      const b = await guardedPage();
      const loadingA = a.goto(host.url('/a'), { timeout: GOTO_MS });
      // B waits for the place A holds: its navigation was judged and is paused by the guard.
      const waiting = decided(host.url('/b'));
      const loadingB = b.goto(host.url('/b'), { timeout: GOTO_MS }).catch((error: Error) => error);
      await waiting;
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (told) await guard.pageClosing(b);
      await b.close();
      expect(await loadingB).toBeInstanceOf(Error);
      await loadingA;
      await guard.pageClosing(a);
      await a.close();

      const c = await guardedPage();
      const d = await guardedPage();
      const [toC, toD] = await Promise.all([
        c.goto(host.url('/c'), { timeout: GOTO_MS }).then(
          (response) => response?.status(),
          (error: Error) => error,
        ),
        d.goto(host.url('/d'), { timeout: GOTO_MS }).then(
          (response) => response?.status(),
          (error: Error) => error,
        ),
      ]);
      await guard.pageClosing(c);
      await guard.pageClosing(d);
      await Promise.all([c.close(), d.close()]);
      expect([toC, toD]).toEqual([200, 200]);
      const pages = host.log.map((request) => request.path).filter((path) => path !== '/robots.txt');
      expect([...pages].sort()).toEqual(['/a', '/c', '/d']);
      // One slot per page the host saw (robots.txt's fetch is not counted among them), none for B.
      expect(slotsTaken() - slotsBefore).toBe(pages.length);
    },
    TEST_MS,
  );
});
