/**
 * relaunchOnCrash (browser.ts), which the Crawlee browser tests use on the @sparticuz/chromium fallback:
 * a Chromium that dies of a signal at launch is launched once more, and a crawl goes on as if it had
 * not; any other launch error is thrown as it came. The crash is real: a wrapper script kills itself
 * with SIGSEGV the first time it is started and runs the tests' Chromium after that.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, LogLevel, log, RequestQueue } from '@crawlee/core';
import { PlaywrightCrawler } from '@crawlee/playwright';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { browserUnavailable, CHROMIUM_ARGS, CHROMIUM_PATH, relaunchOnCrash } from './browser.js';
import { html, startHost, type TestHost, text } from './hosts.js';

const unavailable = browserUnavailable();
const dirs: string[] = [];
const hosts: TestHost[] = [];
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A Chromium that dies with SIGSEGV the first time it is started, and is the tests' Chromium after. */
function crashingOnce(): { readonly path: string; readonly crashed: () => boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'politely-crash-once-'));
  dirs.push(dir);
  const mark = join(dir, 'crashed');
  const path = join(dir, 'chromium');
  writeFileSync(
    path,
    `#!/bin/sh\nif [ ! -e '${mark}' ]; then : > '${mark}'; kill -SEGV $$; fi\nexec '${CHROMIUM_PATH}' "$@"\n`,
  );
  chmodSync(path, 0o755);
  return { path, crashed: () => existsSync(mark) };
}

/** A host that allows everything, closed after the file. */
async function site(ip: string): Promise<TestHost> {
  const host = await startHost({ ip, routes: { '/robots.txt': text('') }, fallback: html('ok') });
  hosts.push(host);
  return host;
}

/** A PlaywrightCrawler (persistent context, Crawlee's default) on `launcher`, with no retries. */
async function crawl(launcher: object, executablePath: string, url: string): Promise<string[]> {
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const requestQueue = await RequestQueue.open(`relaunch-${Math.random().toString(36).slice(2)}`, { config });
  const userDataDir = mkdtempSync(join(tmpdir(), 'politely-relaunch-profile-'));
  dirs.push(userDataDir);
  const handled: string[] = [];
  const crawler = new PlaywrightCrawler(
    {
      requestQueue,
      log: log.child({ prefix: 'relaunch', level: LogLevel.OFF }),
      maxRequestRetries: 0,
      launchContext: {
        launcher,
        userDataDir,
        launchOptions: { executablePath, args: CHROMIUM_ARGS, headless: true },
      },
      requestHandler: async ({ request }) => void handled.push(request.url),
    },
    config,
  );
  try {
    await crawler.run([url]);
  } finally {
    await crawler.teardown();
    await requestQueue.drop();
  }
  return handled;
}

describe.skipIf(unavailable !== undefined)('a Chromium that dies at launch', () => {
  it('PlaywrightCrawler: launched once more, loudly, and the page is fetched', async () => {
    const host = await site('127.0.0.233');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const binary = crashingOnce();

    const handled = await crawl(relaunchOnCrash(chromium, 'test'), binary.path, host.url('/page'));

    expect(binary.crashed()).toBe(true);
    expect(handled).toEqual([host.url('/page')]);
    expect(host.requests('/page')).toHaveLength(1);
    expect(warn.mock.calls.map(([said]) => String(said))).toEqual([
      expect.stringMatching(
        /Chromium died at launchPersistentContext\(\) before it was up \(signal=SIGSEGV\)/,
      ),
    ]);
  });

  it('PlaywrightCrawler on the bare launcher: the same crash ends the crawl, the page never fetched', async () => {
    const host = await site('127.0.0.234');
    const binary = crashingOnce();

    // Crawlee takes a failed launch as critical (BrowserLaunchError): the run throws.
    await expect(crawl(chromium, binary.path, host.url('/page'))).rejects.toThrow(/Failed to launch browser/);

    expect(binary.crashed()).toBe(true);
    expect(host.requests('/page')).toHaveLength(0);
  });

  it('puppeteer-core: launched once more', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const binary = crashingOnce();
    const browser = await relaunchOnCrash(puppeteer, 'test').launch({
      executablePath: binary.path,
      args: CHROMIUM_ARGS,
      headless: true,
    });
    try {
      expect(binary.crashed()).toBe(true);
      expect(browser.connected).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('any other launch error is thrown as it came, without a second launch', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await expect(
      relaunchOnCrash(chromium, 'test').launch({ executablePath: '/nonexistent/chromium', headless: true }),
    ).rejects.toThrow(/executable doesn't exist/);
    expect(warn).not.toHaveBeenCalled();
  });
});
