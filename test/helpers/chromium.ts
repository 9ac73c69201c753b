/**
 * Debian's Chromium for browser tests (`apt-get install -y chromium`; browsers are never downloaded),
 * driven by playwright-core or puppeteer-core, headless, with background networking off so the only
 * requests a test host sees are the page's. Without Chromium, CI fails (`.ci/run` installs it) and
 * other runs skip the browser suites loudly. Shared by the core's page guard tests (by hand, no
 * Crawlee) and the Crawlee plugin's (browser.ts).
 */
import { existsSync } from 'node:fs';

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
