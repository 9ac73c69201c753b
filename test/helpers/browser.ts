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
import { type BrowserKind, CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.js';

export {
  BROWSER_KINDS,
  type BrowserKind,
  browserUnavailable,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
} from './chromium.js';

const profiles: string[] = [];

/** A Crawlee `launchContext` for the kind, with a fresh user-data-dir (removed by `removeProfiles`). */
export function launchContext(kind: BrowserKind, extraArgs: readonly string[] = []): Record<string, unknown> {
  const userDataDir = mkdtempSync(join(tmpdir(), `politely-${kind}-`));
  profiles.push(userDataDir);
  return {
    launcher: kind === 'playwright' ? chromium : puppeteer,
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
