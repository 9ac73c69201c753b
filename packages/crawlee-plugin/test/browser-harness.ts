/**
 * What the browser crawler tests share: their loopback hosts (closed, with the browser profiles, after
 * the test file) and one polite crawl by PlaywrightCrawler or PuppeteerCrawler on Debian's Chromium,
 * which returns the URLs handled and tears the crawler and its queue down.
 */
import type { Configuration } from '@crawlee/core';
import type { PolitenessOptions } from '@politely/core';
import { type CrawleePolitenessOptions, withPoliteness } from '@politely/crawlee';
import { afterAll } from 'vitest';
import {
  type BrowserKind,
  newBrowserCrawler,
  removeProfiles,
  type SharedChromium,
  sharedChromium,
} from '../../../test/helpers/browser.js';
import type { TestHost } from '../../../test/helpers/hosts.js';
import { mergeOptions } from '../../../test/helpers/options.js';
import { crawleeTestEnv } from './harness.js';

export const BROWSER_USER_AGENT = 'BrowserBot/1.0 (+http://127.0.0.1/bot)';

/** The file's one Chromium per kind, when its `browserTestHosts` asked for it (`oneChromium`). */
let shared: Map<BrowserKind, SharedChromium> | undefined;

/**
 * Keeps the hosts a test file starts, to close them (and the browser profiles) after the file. With
 * `oneChromium`, each `browserCrawl` of the file without Chromium switches of its own runs in a fresh
 * context of one Chromium per kind (test/helpers/browser.ts, sharedChromium), closed after the file:
 * for files whose crawls judge the servers' logs or the wire, not what a browser keeps across
 * contexts (a favicon, say).
 */
export function browserTestHosts(options: { oneChromium?: boolean } = {}): (host: TestHost) => TestHost {
  const hosts: TestHost[] = [];
  if (options.oneChromium) shared = new Map();
  afterAll(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
    const chromiums = [...(shared?.values() ?? [])];
    shared = undefined;
    await Promise.all(chromiums.map((chromium) => chromium.close()));
    removeProfiles();
  });
  return (host) => {
    hosts.push(host);
    return host;
  };
}

export interface BrowserCrawl {
  /** Crawler options on top of the defaults (no retries, generous timeouts, a handler that records). */
  readonly crawler?: Record<string, unknown>;
  /** Facade options on top of the test User-Agent and `minDelayMs: 0`. */
  readonly politeness?: Partial<PolitenessOptions>;
  readonly plugin?: CrawleePolitenessOptions;
  /** Hands the crawler a copy of the options withPoliteness returned, as a user spreading them would. */
  readonly copyOptions?: boolean;
  /** Chromium command-line switches on top of the tests' own. */
  readonly chromiumArgs?: readonly string[];
}

export async function browserCrawl(
  kind: BrowserKind,
  urls: string[],
  spec: BrowserCrawl = {},
): Promise<string[]> {
  const env = await crawleeTestEnv(`browser-${kind}`);
  const handled: string[] = [];
  const options = withPoliteness(
    {
      requestQueue: env.requestQueue,
      log: env.log,
      maxRequestRetries: 0,
      navigationTimeoutSecs: 30,
      requestHandlerTimeoutSecs: 60,
      requestHandler: async ({ request }: { request: { url: string } }) => void handled.push(request.url),
      ...spec.crawler,
    },
    mergeOptions({ userAgent: BROWSER_USER_AGENT, pacing: { minDelayMs: 0 } }, spec.politeness),
    spec.plugin,
  );
  // A copy loses the browser wiring (not enumerable when the options do not show a browser crawler).
  let chromium: SharedChromium | undefined;
  if (shared && !spec.chromiumArgs) {
    chromium = shared.get(kind) ?? sharedChromium(kind);
    shared.set(kind, chromium);
  }
  const crawler = newBrowserCrawler(
    kind,
    spec.copyOptions ? { ...options } : options,
    env.config as Configuration,
    spec.chromiumArgs,
    chromium,
  );
  try {
    await crawler.run(urls);
  } finally {
    await crawler.teardown();
    await env.requestQueue.drop();
  }
  return handled;
}
