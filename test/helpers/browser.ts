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

/** A Crawlee `launchContext` for the kind, with a fresh user-data-dir (removed by `removeProfiles`). */
export function launchContext(kind: BrowserKind, extraArgs: readonly string[] = []): Record<string, unknown> {
  const userDataDir = mkdtempSync(join(tmpdir(), `politely-${kind}-`));
  profiles.push(userDataDir);
  return {
    launcher: LAUNCHERS[kind],
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
): PlaywrightCrawler | PuppeteerCrawler {
  const withLaunch = Object.assign(options, { launchContext: launchContext(kind, extraArgs) });
  return kind === 'playwright'
    ? new PlaywrightCrawler(withLaunch as PlaywrightCrawlerOptions, config)
    : new PuppeteerCrawler(withLaunch as PuppeteerCrawlerOptions, config);
}
