/**
 * `@politely/core/browser` as a script without Crawlee uses it: playwright-core and puppeteer-core on
 * Debian's Chromium, one page guard per browser, pages installed by hand before they navigate. What
 * is asserted is what the loopback servers logged: which paths reached them, when, and with which
 * User-Agent. Timing checks use the asked delay as a floor only.
 */
import { createPoliteness, type PolitelyEvent, type Politeness } from '@politely/core';
import { createPageGuard, type PageGuard } from '@politely/core/browser';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSER_KINDS,
  type BrowserKind,
  browserUnavailable,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
} from '../../../../test/helpers/chromium.js';
import {
  html,
  type Route,
  redirect,
  startHost,
  type TestHost,
  text,
} from '../../../../test/helpers/hosts.js';

const USER_AGENT = 'HandBot/1.0 (+http://127.0.0.1/bot)';
const TEST_MS = 60_000;
const unavailable = browserUnavailable();

/** What the tests do with a page, whichever library opened it. */
interface OpenPage {
  readonly page: object;
  goto(url: string): Promise<void>;
  close(): Promise<void>;
}

interface OpenBrowser {
  newPage(): Promise<OpenPage>;
  close(): Promise<void>;
}

/** The part of a Playwright or Puppeteer browser the tests use; both libraries fit it. */
interface LibraryBrowser {
  newPage(): Promise<{
    goto(url: string, options: { timeout: number }): Promise<unknown>;
    close(): Promise<void>;
  }>;
  close(): Promise<void>;
}

async function launch(kind: BrowserKind): Promise<OpenBrowser> {
  const launchOptions = { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true };
  const browser: LibraryBrowser =
    kind === 'playwright' ? await chromium.launch(launchOptions) : await puppeteer.launch(launchOptions);
  return {
    newPage: async () => {
      const page = await browser.newPage();
      return {
        page,
        goto: async (url) => void (await page.goto(url, { timeout: 30_000 })),
        close: () => page.close(),
      };
    },
    close: () => browser.close(),
  };
}

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s by hand: createPageGuard on a page',
  (kind, index) => {
    const ip = (n: number) => `127.0.0.${60 + index * 10 + n}`;
    const hosts: TestHost[] = [];
    const skips: PolitelyEvent[] = [];
    /** The hosts whose pace errors slowed (`pace-changed`, reason 'errors'). */
    const slowedByErrors: string[] = [];
    let browser: OpenBrowser | undefined;
    let politeness: Politeness;
    let guard: PageGuard;

    beforeAll(async () => {
      politeness = createPoliteness({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 }, logger: false });
      politeness.subscribe((event) => event.type === 'skip' && skips.push(event));
      politeness.subscribe(
        (event) =>
          event.type === 'pace-changed' && event.reason === 'errors' && slowedByErrors.push(event.host),
      );
      guard = createPageGuard(politeness);
      browser = await launch(kind);
    }, TEST_MS);

    afterAll(async () => {
      await browser?.close();
      await politeness?.close();
      await Promise.all(hosts.splice(0).map((host) => host.close()));
    }, TEST_MS);

    async function site(n: number, robots: string, routes: Record<string, Route> = {}) {
      const host = await startHost({
        ip: ip(n),
        routes: { '/robots.txt': text(robots), ...routes },
        fallback: html('<!doctype html><title>page</title><p>page</p>'),
      });
      hosts.push(host);
      return host;
    }

    /** Opens a page with the guard installed, runs `use`, and closes it the way the guard asks. */
    async function withPage(use: (page: OpenPage) => Promise<void>): Promise<void> {
      if (!browser) throw new Error('the browser did not start');
      const page = await browser.newPage();
      try {
        expect(await guard.install(page.page)).toBe(kind === 'playwright' ? 'cdp' : 'puppeteer');
        await use(page);
      } finally {
        await guard.pageClosing(page.page);
        await page.close();
      }
    }

    const paths = (host: TestHost) => host.log.map((request) => request.path);

    it(
      'a disallowed navigation never reaches the server, and blockedNavigation reports it once',
      async () => {
        const host = await site(1, 'User-agent: *\nDisallow: /private\n');
        await withPage(async (page) => {
          await page.goto(host.url('/private/x'));
          expect(await guard.blockedNavigation(page.page)).toMatchObject({
            allowed: false,
            reason: 'disallowed',
            url: host.url('/private/x'),
            rule: { directive: 'disallow', pattern: '/private' },
          });
          expect(await guard.blockedNavigation(page.page)).toBeUndefined();
          await page.goto(host.url('/public'));
          expect(await guard.blockedNavigation(page.page)).toBeUndefined();
        });
        expect(paths(host)).toEqual(['/robots.txt', '/public']);
        expect(skips).toContainEqual(
          expect.objectContaining({ type: 'skip', stage: 'navigation', url: host.url('/private/x') }),
        );
      },
      TEST_MS,
    );

    it(
      'a redirect hop into a disallowed path never reaches the server',
      async () => {
        const host = await site(2, 'User-agent: *\nDisallow: /private\n', {
          '/go': redirect('/private/y', 302),
        });
        await withPage(async (page) => {
          await page.goto(host.url('/go'));
          expect(await guard.blockedNavigation(page.page)).toMatchObject({
            reason: 'disallowed',
            url: host.url('/private/y'),
          });
        });
        expect(paths(host)).toContain('/go');
        expect(paths(host).filter((path) => path.startsWith('/private'))).toEqual([]);
      },
      TEST_MS,
    );

    it(
      'a disallowed image is not fetched, an allowed one is, each checked against its own robots.txt',
      async () => {
        const images = await site(3, 'User-agent: *\nDisallow: /private\n', {
          '/private/a.png': text('png', 200, { 'content-type': 'image/png' }),
          '/pub/b.png': text('png', 200, { 'content-type': 'image/png' }),
        });
        const pages = await site(4, 'User-agent: *\nAllow: /\n', {
          '/page': html(
            `<!doctype html><img src="${images.url('/private/a.png')}"><img src="${images.url('/pub/b.png')}">`,
          ),
        });
        await withPage(async (page) => {
          await page.goto(pages.url('/page'));
        });
        expect(paths(images)).toContain('/pub/b.png');
        expect(paths(images)).not.toContain('/private/a.png');
        expect(paths(pages)).toContain('/page');
        expect(skips).toContainEqual(
          expect.objectContaining({ stage: 'subresource', url: images.url('/private/a.png') }),
        );
      },
      TEST_MS,
    );

    it(
      'two navigations to a host with Crawl-delay 1 reach it at least 1000 ms apart',
      async () => {
        const host = await site(5, 'User-agent: *\nCrawl-delay: 1\n');
        await withPage(async (page) => {
          await page.goto(host.url('/a'));
          await page.goto(host.url('/b'));
        });
        const [first, second] = ['/a', '/b'].map((path) => host.requests(path));
        expect(first).toHaveLength(1);
        expect(second).toHaveLength(1);
        const gapMs = (second?.[0]?.at ?? 0) - (first?.[0]?.at ?? 0);
        expect(gapMs).toBeGreaterThanOrEqual(1000);
      },
      TEST_MS,
    );

    it(
      'a navigation the host resets slows its next one past the Crawl-delay, as a failed HTTP request does',
      async () => {
        const host = await site(7, 'User-agent: *\nCrawl-delay: 1\n', {
          // A TCP reset before any answer: Chromium's net::ERR_CONNECTION_RESET.
          '/reset': (_req, res) => void res.socket?.resetAndDestroy(),
        });
        await withPage(async (page) => {
          await expect(page.goto(host.url('/reset'))).rejects.toThrow(/ERR_CONNECTION_RESET/);
        });
        // A fresh page, as a crawler takes: the failed one goes on to show Chromium's error page.
        await withPage(async (page) => {
          await page.goto(host.url('/after'));
        });
        const [reset, after] = ['/reset', '/after'].map((path) => host.requests(path)[0]?.at ?? Number.NaN);
        // No answer counts as a 5xx: the host's delay doubles, 2 x the 1000 ms asked.
        expect((after ?? 0) - (reset ?? 0)).toBeGreaterThanOrEqual(2000);
        expect(slowedByErrors).toContain(host.ip);
      },
      TEST_MS,
    );

    it(
      'a navigation we abort ourselves does not slow its host: refused by robots.txt, or its page closed',
      async () => {
        // A long delay, so the page below surely closes while /b still waits for its slot, however
        // slow a loaded machine is between the two (the test then waits it out once, for /c).
        const host = await site(8, 'User-agent: *\nCrawl-delay: 5\nDisallow: /private\n');
        await withPage(async (page) => {
          await page.goto(host.url('/private/x'));
          expect(await guard.blockedNavigation(page.page)).toMatchObject({ reason: 'disallowed' });
          await page.goto(host.url('/a'));
        });
        // The next navigation waits for its slot (5 s after /a) when its page closes.
        if (!browser) throw new Error('the browser did not start');
        const closing = await browser.newPage();
        await guard.install(closing.page);
        const decided = new Promise<void>((resolve) => {
          const stop = politeness.subscribe((event) => {
            if (event.type !== 'decision' || event.decision.url !== host.url('/b')) return;
            stop();
            resolve();
          });
        });
        const waiting = closing.goto(host.url('/b')).catch((error: Error) => error);
        // Closed once the guard holds /b (judged, waiting for its slot), not after a fixed sleep: on a
        // loaded machine (the matrix, load 30) the browser had not yet handed /b over 100 ms in.
        await decided;
        await guard.pageClosing(closing.page);
        await closing.close();
        expect(await waiting).toBeInstanceOf(Error);
        await withPage(async (page) => {
          await page.goto(host.url('/c'));
        });
        expect(paths(host)).toEqual(['/robots.txt', '/a', '/c']);
        expect(slowedByErrors).not.toContain(host.ip);
      },
      TEST_MS,
    );

    it(
      "the server sees the bot's User-Agent on the page and its subresources",
      async () => {
        const host = await site(6, 'User-agent: *\nAllow: /\n', {
          '/ua': html('<!doctype html><img src="/pic.png">'),
          '/pic.png': text('png', 200, { 'content-type': 'image/png' }),
        });
        await withPage(async (page) => {
          await page.goto(host.url('/ua'));
        });
        for (const path of ['/robots.txt', '/ua', '/pic.png']) {
          expect(host.requests(path).map((request) => request.headers['user-agent'])).toEqual([USER_AGENT]);
        }
      },
      TEST_MS,
    );
  },
);

describe('createPageGuard options', () => {
  const politeness = createPoliteness({ userAgent: USER_AGENT, logger: false });
  afterAll(() => politeness.close());

  it('names the key of a bad or unknown option', () => {
    expect(() => createPageGuard(politeness, { subresources: 'skip' as never })).toThrow(
      /Expected option `subresources` to be 'check' or 'allow', got `"skip"` \(string\)/,
    );
    expect(() => createPageGuard(politeness, { onSkip: 1 as never })).toThrow(/`onSkip` to be a function/);
    expect(() => createPageGuard(politeness, { subresource: 'allow' } as never)).toThrow(
      /Unknown page guard option `subresource`/,
    );
    expect(() => createPageGuard({} as never)).toThrow(/Expected a Politeness from createPoliteness\(\)/);
  });

  it('refuses what is not a Playwright or Puppeteer page', async () => {
    const guard = createPageGuard(politeness);
    await expect(guard.install({})).rejects.toThrow(/Expected a Playwright or Puppeteer page/);
    expect(guard.interception({})).toBeUndefined();
    expect(await guard.blockedNavigation({})).toBeUndefined();
  });
});
