/**
 * maxConcurrentPerHost for browser crawlers: a navigation holds its host's in-flight place from its
 * request to its response. The loopback host answers its pages 300 ms after they arrive and counts
 * the pages it is answering at once; that count is judged, not timings.
 */
import type { ServerResponse } from 'node:http';
import type { Configuration } from '@crawlee/core';
import { withPoliteness } from '@politely/crawlee';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BROWSER_KINDS,
  type BrowserKind,
  browserUnavailable,
  newBrowserCrawler,
  removeProfiles,
} from '../../../test/helpers/browser.js';
import { startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { crawleeTestEnv } from './harness.js';

const USER_AGENT = 'BrowserBot/1.0 (+http://127.0.0.1/bot)';
const ANSWER_MS = 300;
const PAGES = 6;
const unavailable = browserUnavailable();

const hosts: TestHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  removeProfiles();
});

async function crawl(kind: BrowserKind, ip: string, maxConcurrentPerHost?: number) {
  const counter = { now: 0, most: 0 };
  const site = await startHost({
    ip,
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
    fallback: (req, res: ServerResponse) => {
      if (!req.url?.startsWith('/p/')) {
        res.writeHead(404).end();
        return;
      }
      counter.now++;
      counter.most = Math.max(counter.most, counter.now);
      setTimeout(() => {
        counter.now--;
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
      }, ANSWER_MS);
    },
  });
  hosts.push(site);
  const env = await crawleeTestEnv(`browser-in-flight-${kind}`);
  const handled: string[] = [];
  const options = withPoliteness(
    {
      requestQueue: env.requestQueue,
      log: env.log,
      maxRequestRetries: 0,
      maxConcurrency: PAGES,
      navigationTimeoutSecs: 30,
      requestHandlerTimeoutSecs: 60,
      requestHandler: async ({ request }: { request: { url: string } }) => void handled.push(request.url),
    },
    { userAgent: USER_AGENT, minDelayMs: 0, ...(maxConcurrentPerHost ? { maxConcurrentPerHost } : {}) },
  );
  const crawler = newBrowserCrawler(kind, options, env.config as Configuration);
  try {
    await crawler.run(Array.from({ length: PAGES }, (_, i) => site.url(`/p/${i}`)));
  } finally {
    await crawler.teardown();
    await env.requestQueue.drop();
  }
  return { handled, most: counter.most };
}

describe.skipIf(unavailable !== undefined).each(BROWSER_KINDS.map((kind, index) => [kind, index] as const))(
  '%s crawler: navigations in flight per host',
  (kind, index) => {
    it('one page at the server at a time by default', async () => {
      const { handled, most } = await crawl(kind, `127.0.0.${170 + index * 2}`);
      expect(handled).toHaveLength(PAGES);
      expect(most).toBe(1);
    }, 120_000);

    it('two with maxConcurrentPerHost: 2', async () => {
      const { handled, most } = await crawl(kind, `127.0.0.${171 + index * 2}`, 2);
      expect(handled).toHaveLength(PAGES);
      expect(most).toBe(2);
    }, 120_000);
  },
);
