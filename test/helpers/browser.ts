/**
 * Browser crawlers in tests: Crawlee's PlaywrightCrawler and PuppeteerCrawler on Debian's Chromium
 * (chromium.ts: where it is, its flags, and why a run may skip).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Configuration } from '@crawlee/core';
import { PlaywrightCrawler, type PlaywrightCrawlerOptions } from '@crawlee/playwright';
import { PuppeteerCrawler, type PuppeteerCrawlerOptions } from '@crawlee/puppeteer';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { type BrowserKind, CHROMIUM_ARGS, CHROMIUM_PATH, ON_PACKAGED_CHROMIUM } from './chromium.js';

export {
  BROWSER_KINDS,
  type BrowserKind,
  browserUnavailable,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
} from './chromium.js';

const profiles: string[] = [];

/**
 * How a launch reads when the browser process died of a signal before the driver could talk to it:
 * Playwright logs `<process did exit: exitCode=null, signal=SIGSEGV>`; Puppeteer says "Failed to launch
 * the browser process" with `Code: null` (no exit code: a signal). A missing binary, a bad switch or a
 * timeout reads otherwise.
 */
const DIED_AT_LAUNCH = [
  /process did exit: exitCode=null, signal=SIG[A-Z]+/,
  /Failed to launch the browser process[\s\S]*Code: null/,
];

/**
 * The launch methods Crawlee's browser plugins call: Playwright's persistent context (and its plain
 * launch for the version), Puppeteer's launch.
 */
const LAUNCH_METHODS = new Set(['launch', 'launchPersistentContext']);

/**
 * The launcher with each launch tried once more when its browser died of a signal before it was up,
 * saying so on stderr; any other launch error is thrown as it came. Why: @sparticuz/chromium's build
 * (the fallback where no system Chromium exists, chromium.ts) is made for serverless hosts and has
 * died with SIGSEGV in PlaywrightCrawler's `launchPersistentContext` now and then on a loaded machine,
 * before any page opened, which Crawlee takes as critical: the test's crawl throws. A browser that
 * died before it was up sent nothing, so a second launch hides no request from the servers' logs the
 * tests judge. Methods are called on the launcher itself: Puppeteer's use private fields, which a
 * Proxy receiver would break.
 */
export function relaunchOnCrash<T extends object>(launcher: T, label: string): T {
  return new Proxy(launcher, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (typeof key !== 'string' || !LAUNCH_METHODS.has(key)) return value.bind(target);
      return async (...args: unknown[]) => {
        try {
          return await value.apply(target, args);
        } catch (error) {
          const said = error instanceof Error ? error.message : String(error);
          if (!DIED_AT_LAUNCH.some((pattern) => pattern.test(said))) throw error;
          console.warn(
            `\n[browser] ${label}: Chromium died at ${key}() before it was up (${said.match(/signal=SIG[A-Z]+/)?.[0] ?? 'no exit code'}); launching it once more. Debian's Chromium (apt-get install -y chromium, or CHROMIUM_PATH) does not need this.\n`,
          );
          return await value.apply(target, args);
        }
      };
    },
  });
}

/**
 * The launchers Crawlee is handed: on the @sparticuz/chromium fallback, relaunched once after a crash at
 * launch (relaunchOnCrash); on the Chromium asked for (Debian's, CI's), as they are, so a crash there
 * fails its test.
 */
const LAUNCHERS: Record<BrowserKind, object> = ON_PACKAGED_CHROMIUM
  ? {
      playwright: relaunchOnCrash(chromium, '@sparticuz/chromium under playwright-core'),
      puppeteer: relaunchOnCrash(puppeteer, '@sparticuz/chromium under puppeteer-core'),
    }
  : { playwright: chromium, puppeteer };

/**
 * Options of Playwright's `launchPersistentContext` that are the browser's, not a context's: the shared
 * browser is launched with them once; the rest (proxy, user agent, viewport...) go to each context.
 */
const BROWSER_ONLY = new Set([
  'args',
  'channel',
  'chromiumSandbox',
  'devtools',
  'downloadsPath',
  'env',
  'executablePath',
  'firefoxUserPrefs',
  'handleSIGHUP',
  'handleSIGINT',
  'handleSIGTERM',
  'headless',
  'ignoreDefaultArgs',
  'slowMo',
  'timeout',
  'tracesDir',
]);

function contextOptions(options: unknown): Record<string, unknown> {
  const all = (options ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(all).filter(([key]) => !BROWSER_ONLY.has(key)));
}

/** One Chromium for a test file, each crawler in a fresh context of its own (`sharedChromium`). */
export interface SharedChromium {
  /** The launcher to give Crawlee (`newBrowserCrawler`'s `shared`). */
  readonly launcher: object;
  /** Closes the Chromium, if one was launched; for afterAll, before `removeProfiles`. */
  close(): Promise<void>;
}

/**
 * One Chromium per test file instead of one per crawler: launching one took most of a behaviour-table
 * row on two busy cores (and PlaywrightCrawler launches a second, only to read its version). The
 * launcher handed to Crawlee launches the file's Chromium on first use, with the options Crawlee
 * asked for, and gives each crawler a fresh browser context of its own in it: its own cookies, cache
 * and pages, nothing left from the crawler before, closed when Crawlee closes "its browser" (the
 * Chromium stays for the next crawler). Playwright: `launchPersistentContext` gives a new context
 * (the user-data-dir is not used), `launch` (the version probe) the shared browser, whose `close` is
 * left to `close()`. Puppeteer: `launch` gives the shared browser seen through a new context: pages,
 * targets and `close` are the context's, and `process()` is null (Crawlee then kills nothing).
 */
export function sharedChromium(kind: BrowserKind): SharedChromium {
  const launcher = LAUNCHERS[kind] as Record<string, (...args: unknown[]) => Promise<unknown>>;
  let browser: Promise<Record<string, unknown>> | undefined;
  const launch = (method: string, ...args: unknown[]) => {
    browser ??= Reflect.get(launcher, method, launcher)
      .apply(launcher, args)
      .catch((error: unknown) => {
        browser = undefined;
        throw error;
      }) as Promise<Record<string, unknown>>;
    return browser;
  };
  const call = (target: Record<string, unknown>, method: string, ...args: unknown[]) =>
    (target[method] as (...rest: unknown[]) => unknown).apply(target, args);

  const facade =
    kind === 'playwright'
      ? {
          async launch(options: unknown) {
            const shared = await launch('launch', options);
            return { version: () => call(shared, 'version'), close: async () => {} };
          },
          async launchPersistentContext(_userDataDir: unknown, options: unknown) {
            const shared = await launch('launch', options);
            return call(shared, 'newContext', contextOptions(options));
          },
        }
      : {
          async launch(options: unknown) {
            const shared = await launch('launch', options);
            // createIncognitoBrowserContext: its name before Puppeteer 22.
            const method =
              'createBrowserContext' in shared ? 'createBrowserContext' : 'createIncognitoBrowserContext';
            const context = (await call(shared, method)) as Record<string, unknown>;
            const own = new Set(['newPage', 'close', 'pages', 'targets', 'on', 'once', 'off', 'emit']);
            return new Proxy(shared, {
              get(target, key) {
                if (key === 'process') return () => null;
                const from = typeof key === 'string' && own.has(key) ? context : target;
                const value = Reflect.get(from, key, from);
                return typeof value === 'function' ? value.bind(from) : value;
              },
            });
          },
        };
  return {
    launcher: new Proxy(launcher, {
      get(target, key) {
        if (typeof key === 'string' && key in facade) return facade[key as keyof typeof facade];
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
    async close() {
      const shared = await browser?.catch(() => undefined);
      browser = undefined;
      if (shared) await call(shared, 'close');
    },
  };
}

/**
 * A Crawlee `launchContext` for the kind, with a fresh user-data-dir (removed by `removeProfiles`);
 * with `shared`, on the file's one Chromium (`sharedChromium`).
 */
export function launchContext(
  kind: BrowserKind,
  extraArgs: readonly string[] = [],
  shared?: SharedChromium,
): Record<string, unknown> {
  const userDataDir = mkdtempSync(join(tmpdir(), `politely-${kind}-`));
  profiles.push(userDataDir);
  return {
    launcher: shared?.launcher ?? LAUNCHERS[kind],
    userDataDir,
    launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true },
  };
}

/** Deletes the user-data-dirs made so far; for afterAll. */
export function removeProfiles(): void {
  for (const dir of profiles.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A PlaywrightCrawler or PuppeteerCrawler on Debian's Chromium, from the options `withPoliteness`
 * returned: `launchContext` is set on that very object (a copy would lose the browser wiring, which
 * is not enumerable when the options do not show a browser crawler). `run()` tears the browser pool
 * down at its end; call `teardown()` in a finally as well, for a run that throws.
 */
export function newBrowserCrawler(
  kind: BrowserKind,
  options: Record<string, unknown>,
  config: Configuration,
  extraArgs: readonly string[] = [],
  shared?: SharedChromium,
): PlaywrightCrawler | PuppeteerCrawler {
  const withLaunch = Object.assign(options, { launchContext: launchContext(kind, extraArgs, shared) });
  return kind === 'playwright'
    ? new PlaywrightCrawler(withLaunch as PlaywrightCrawlerOptions, config)
    : new PuppeteerCrawler(withLaunch as PuppeteerCrawlerOptions, config);
}
