/**
 * The browser's own requests at the wire, with a page guard installed by hand (no Crawlee): Chromium
 * fetches the page's icon by itself after each navigation, which a site would see as a second request
 * inside the delay it asked for. Judged by the kernel's capture time of every request line
 * (test/helpers/wire.ts): no icon request at all, and no two requests to the host closer than the
 * asked delay, whatever they are. The delay is a floor only.
 */
import { createPoliteness } from '@politely/core';
import { createPageGuard } from '@politely/core/browser';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import {
  BROWSER_KINDS,
  type BrowserKind,
  browserUnavailable,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
} from '../../../../test/helpers/chromium.js';
import { html, startHost, text } from '../../../../test/helpers/hosts.js';
import { burnCpu, judgePacing, startWireCapture } from '../../../../test/helpers/wire.js';

const unavailable = browserUnavailable();
const DELAY_MS = 1000;

/** A page of either library, as the test drives it. */
interface Driven {
  readonly page: object;
  goto(url: string): Promise<unknown>;
}

async function withBrowser(kind: BrowserKind, use: (page: Driven) => Promise<void>): Promise<void> {
  const options = { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true };
  const browser = kind === 'playwright' ? await chromium.launch(options) : await puppeteer.launch(options);
  try {
    const page = await browser.newPage();
    await use({ page, goto: (url) => page.goto(url, { timeout: 30_000 }) });
  } finally {
    await browser.close();
  }
}

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s by hand: the browser fetching the page icon by itself',
  (kind, index) => {
    it('never reaches the host (/favicon.ico nor a declared icon), and no request comes inside the delay', async () => {
      const host = await startHost({
        ip: `127.0.0.${210 + index}`,
        routes: {
          '/robots.txt': text(`User-agent: *\nCrawl-delay: ${DELAY_MS / 1000}\n`),
          '/declared': html('<!doctype html><link rel="icon" href="/icon.png"><p>page</p>'),
          '/icon.png': text('png', 200, { 'content-type': 'image/png' }),
        },
        fallback: html('<!doctype html><title>page</title><p>page</p>'),
      });
      const politeness = createPoliteness({
        userAgent: 'IconBot/1.0',
        pacing: { minDelayMs: 0 },
        logger: false,
      });
      const skips: unknown[] = [];
      politeness.subscribe((event) => event.type === 'skip' && skips.push(event));
      const guard = createPageGuard(politeness);
      const capture = await startWireCapture([host]);
      try {
        await withBrowser(kind, async ({ page, goto }) => {
          await guard.install(page);
          for (const path of ['/a', '/declared', '/b']) await goto(host.url(path));
          // The icon comes after the load event; give it time to be asked for before closing.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          await guard.pageClosing(page);
        });
      } finally {
        await politeness.close();
        await host.close();
      }
      const seen = (await capture.stop()).filter((request) => request.path !== '/robots.txt');
      expect(seen.map((request) => request.path)).toEqual(['/a', '/declared', '/b']);
      expect(judgePacing(seen, DELAY_MS).get(host.ip)?.violations).toEqual([]);
      // Refusing the icon is the guard's own choice, not robots.txt's: no skip is reported.
      expect(skips).toEqual([]);
    }, 60_000);

    it('pages closed as soon as they load (as a crawler closes them) let no icon out, default or named, with two CPU burners beside', async () => {
      const host = await startHost({
        ip: `127.0.0.${214 + index}`,
        routes: {
          '/robots.txt': text('User-agent: *\nAllow: /\n'),
          '/icon.png': text('png', 200, { 'content-type': 'image/png' }),
          // Half the pages name their icon: Chromium asks for it after the load event, so a page
          // closed at once may be closing as the request starts (before the renderer block, 11 of 20
          // such pages let it out with Puppeteer under two burners, 1 of 20 with Playwright unloaded).
          '/named': html('<!doctype html><link rel="icon" href="/icon.png"><p>page</p>'),
        },
        fallback: html('<!doctype html><title>page</title><p>page</p>'),
      });
      const politeness = createPoliteness({
        userAgent: 'IconBot/1.0',
        pacing: { minDelayMs: 0 },
        logger: false,
      });
      const guard = createPageGuard(politeness);
      const capture = await startWireCapture([host]);
      const options = { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true };
      const browser =
        kind === 'playwright' ? await chromium.launch(options) : await puppeteer.launch(options);
      const paths = Array.from({ length: 16 }, (_, i) => (i % 2 ? `/named?${i}` : `/plain?${i}`));
      const burners = burnCpu(2);
      try {
        for (const path of paths) {
          const page = await browser.newPage();
          await guard.install(page);
          await page.goto(host.url(path), { timeout: 30_000 });
          await guard.pageClosing(page);
          await page.close();
        }
        // Chromium asks for the icon after the load event: give it time to try.
        await new Promise((resolve) => setTimeout(resolve, 1000));
      } finally {
        burners.stop();
        await browser.close();
        await politeness.close();
        await host.close();
      }
      const seen = (await capture.stop()).filter((request) => request.path !== '/robots.txt');
      expect(seen.map((request) => request.path)).toEqual(paths);
    }, 60_000);
  },
);
