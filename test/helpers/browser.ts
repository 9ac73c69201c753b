/**
 * Browser crawlers in tests: Debian's Chromium (`apt-get install -y chromium`; browsers are never
 * downloaded), driven by playwright-core or puppeteer-core, headless, with background networking off
 * so the only requests a test host sees are the crawl's. Without Chromium, CI fails (`.ci/run`
 * installs it) and other runs skip the browser suites loudly.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Configuration } from '@crawlee/core';
import { PlaywrightCrawler, type PlaywrightCrawlerOptions } from '@crawlee/playwright';
import { PuppeteerCrawler, type PuppeteerCrawlerOptions } from '@crawlee/puppeteer';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export type BrowserKind = 'playwright' | 'puppeteer';
export const BROWSER_KINDS: readonly BrowserKind[] = ['playwright', 'puppeteer'];

/** Why browser tests cannot run here; throws under CI=true, where they must. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `Chromium not found at ${CHROMIUM_PATH} (Debian: apt-get install -y chromium)`;
  if (process.env.CI) throw new Error(`browser crawler tests must run in CI: ${reason}`);
  console.warn(`\n[browser] ${reason}: SKIPPING the browser crawler tests\n`);
  return reason;
}

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
