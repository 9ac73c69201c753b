/**
 * Puts a BrowserGuard between a page and the network (installed before the page navigates: by hand,
 * or by a crawler's page-creation hook), and remembers which guard intercepts which page, and how.
 * Pages are told apart by shape; neither library is imported. Each way of pausing a request has its
 * own adapter (intercept-puppeteer.ts, intercept-playwright.ts, intercept-cdp.ts), and one handler
 * settles every paused request (paused-request.ts): a disallowed navigation gets an empty page, so
 * `page.goto` resolves and the request is skipped rather than failed; a disallowed subresource is
 * aborted. Every library reports a navigation's response and its network failure as page events,
 * which reach the guard the same way (library-page.ts).
 */
import type { BrowserGuard, Verdict } from './browser-guard.js';
import { interceptPlaywright, isPlaywrightPage, type PlaywrightPage } from './intercept-playwright.js';
import { interceptPuppeteer, isPuppeteerPage } from './intercept-puppeteer.js';
import type { LibraryPage } from './library-page.js';

export type InterceptionMode = 'puppeteer' | 'cdp' | 'route';

/**
 * Pages intercepted, by any guard (one page is never intercepted twice): how, and the promise that
 * fails their paused requests on closing.
 */
interface Installed {
  mode?: InterceptionMode;
  readonly guard: BrowserGuard;
  readonly closed: Promise<Verdict>;
  close(): void;
  /** Blocks the page's every further request in the renderer (CDP sessions only; favicon.ts). */
  blockAll?: (() => Promise<void>) | undefined;
}
const installed = new WeakMap<object, Installed>();
const CLOSED: Verdict = { kind: 'fail', error: new Error('the page is closing') };

/** How `guard` intercepts a page, or undefined when it does not. */
export function interceptionOf(page: object, guard: BrowserGuard): InterceptionMode | undefined {
  const entry = installed.get(page);
  return entry?.guard === guard ? entry.mode : undefined;
}

/**
 * Before a page `guard` intercepts closes: blocks the page's further requests in the renderer (one
 * started as the page closes, its icon, would leave unjudged once the interception is gone), fails
 * every request of the page still waiting for a verdict (Chromium lets requests still paused when the
 * interception goes away through unjudged), and gives those failures a moment to reach the browser
 * before the page closes.
 */
export async function pageClosing(page: unknown, guard: BrowserGuard): Promise<void> {
  const entry = page !== null && typeof page === 'object' ? installed.get(page) : undefined;
  if (entry?.guard !== guard) return;
  await entry.blockAll?.();
  entry.close();
  await entry.guard.pageClosed(page as object);
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Installs the guard on a Playwright or Puppeteer page; resolves once requests are paused, with how
 * (undefined while another call for the same page is still installing). A second call is a no-op.
 */
export async function interceptPage(
  page: unknown,
  guard: BrowserGuard,
): Promise<InterceptionMode | undefined> {
  if (page === null || typeof page !== 'object' || !(isPuppeteerPage(page) || isPlaywrightPage(page))) {
    throw new TypeError(
      'Expected a Playwright or Puppeteer page (with route() and context(), or setRequestInterception())',
    );
  }
  const existing = installed.get(page);
  if (existing) {
    if (existing.guard !== guard)
      throw new TypeError('This page is already intercepted by another page guard');
    return existing.mode;
  }
  let close = () => {};
  const closed = new Promise<Verdict>((resolve) => {
    close = () => resolve(CLOSED);
  });
  const entry: Installed = { guard, closed, close };
  installed.set(page, entry);
  // A page closed without `pageClosing` first (a script that never says so, a crash, the browser
  // closing) still ends its waits and gives its host's place back: otherwise a navigation that was
  // waiting would take the place later and keep it for good.
  (page as LibraryPage).on('close', () => {
    entry.close();
    void guard.pageClosed(page).catch(() => {});
  });
  if (isPuppeteerPage(page)) {
    entry.blockAll = await interceptPuppeteer(page, guard, closed);
    entry.mode = 'puppeteer';
  } else {
    ({ mode: entry.mode, blockAll: entry.blockAll } = await interceptPlaywright(
      page as PlaywrightPage,
      guard,
      closed,
    ));
  }
  return entry.mode;
}
