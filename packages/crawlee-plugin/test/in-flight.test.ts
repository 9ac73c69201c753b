/**
 * maxConcurrentPerHost through the HTTP client decorator: a CheerioCrawler with ten tasks against one
 * loopback host whose pages take 150 ms to send their body. The server counts the requests it is
 * answering at once (from the request's arrival to its response's end); the count is what is judged,
 * not timings.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'InFlightBot/1.0 (+http://127.0.0.1/bot)';
const BODY_MS = 150;
const PAGES = 8;
const open: TestHost[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
});

/** A host whose pages send their headers at once and end their body 150 ms later. */
async function slowBodyHost(ip: string) {
  const counter = { now: 0, most: 0, answered: 0 };
  const slowPage = (_req: unknown, res: ServerResponse) => {
    counter.now++;
    counter.most = Math.max(counter.most, counter.now);
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      counter.now--;
    };
    res.once('finish', done);
    res.once('close', done);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<html><body><p>');
    setTimeout(() => {
      counter.answered++;
      res.end('page</p></body></html>');
    }, BODY_MS);
  };
  const site = await startHost({
    ip,
    fallback: slowPage,
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
  });
  open.push(site);
  return { site, counter };
}

async function crawl(site: TestHost, label: string, maxConcurrentPerHost?: number) {
  const handled: string[] = [];
  const crawler = await politeCheerioCrawler(
    label,
    {
      maxConcurrency: 10,
      // Crawlee's pool scales up only while the machine looks idle; on a busy one it may stay at one
      // task, and the cap would never be the limit judged.
      minConcurrency: 2,
      useSessionPool: false,
      requestHandler: async ({ request }) => {
        handled.push(request.url);
      },
    },
    {
      userAgent: USER_AGENT,
      pacing: {
        minDelayMs: 0,
        // The cap alone is judged: no latency-aware pacing on top.
        latencyFactor: 0,
        ...(maxConcurrentPerHost ? { maxConcurrentPerHost } : {}),
      },
    },
  );
  await crawler.run(Array.from({ length: PAGES }, (_, index) => site.url(`/p${index}`)));
  return handled;
}

describe('requests in flight per host (CheerioCrawler, maxConcurrency 10, 150 ms bodies)', () => {
  it('never more than one at the server by default', async () => {
    const { site, counter } = await slowBodyHost('127.0.0.91');
    const handled = await crawl(site, 'in-flight-default');
    expect(handled).toHaveLength(PAGES);
    expect(counter.answered).toBe(PAGES);
    expect(counter.most).toBe(1);
  }, 60_000);

  it('two at the server with maxConcurrentPerHost: 2, never three', async () => {
    const { site, counter } = await slowBodyHost('127.0.0.92');
    const handled = await crawl(site, 'in-flight-two', 2);
    expect(handled).toHaveLength(PAGES);
    expect(counter.answered).toBe(PAGES);
    expect(counter.most).toBe(2);
  }, 60_000);
});
