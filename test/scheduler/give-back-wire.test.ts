/**
 * Issue 25 point 1 at the wire: requests that give up waiting for their slot (a per-request timeout)
 * give it back, so the host's next request goes one delay after the last one that really went, not
 * one delay per request that gave up. 20 requests to a host asking Crawl-delay 1, each with a 2.5 s
 * time limit of its own: about three go, the rest time out; then one more request. Judged from
 * tcpdump's capture times (no gap below the delay), and the host's next start read from the facade
 * (`nextStart`, a value, not a timing) against the capture time of the last page that went: before,
 * it was 17 delays further on (politeFetch, got), every process of a fleet stalled with it.
 */

import { createPoliteness, type Politeness } from '@politely/core';
import { adapterKit } from '@politely/core/adapter';
import { createRedisScheduler } from '@politely/core/scheduler';
import got from 'got';
import { afterEach, describe, expect, it } from 'vitest';
import { politeFetch } from '../../packages/fetch/src/index.js';
import { politeGot } from '../../packages/got-hook/src/index.js';
import { html, startHost, type TestHost, text } from '../helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { judgePacing, startWireCapture } from '../helpers/wire.js';

const USER_AGENT = 'GiveBackBot/1.0 (+http://127.0.0.1/bot)';
const DELAY_MS = 1000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let nextOctet = 161;
async function site(): Promise<TestHost> {
  const ip = `127.0.0.${nextOctet}`;
  nextOctet = nextOctet >= 166 ? 161 : nextOctet + 1;
  const started = await startHost({
    ip,
    routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 1\n') },
    fallback: html('ok'),
  });
  cleanups.push(() => started.close());
  return started;
}

function politeness(options: Record<string, unknown> = {}): Politeness {
  const instance = createPoliteness({ userAgent: USER_AGENT, minDelayMs: 0, logger: false, ...options });
  cleanups.push(() => instance.close());
  return instance;
}

type Send = (url: string) => Promise<unknown>;

/**
 * 20 requests at once, each with its own 2.5 s limit, then one more once they have settled. Returns
 * the pages that went at the wire, and the host's next start as the facade saw it after the 20.
 */
async function timeoutsThenOneMore(target: TestHost, instance: Politeness, send: Send) {
  // robots.txt first, outside the capture's pages (its fetch takes a slot of its own).
  await instance.check(target.url('/warm-up'));
  const capture = await startWireCapture([target]);
  const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => send(target.url(`/p${i}`))));
  const nextStart = await adapterKit(instance).nextStart(target.url('/next'));
  await send(target.url('/next'));
  const requests = await capture.stop();
  const pages = requests.filter((request) => request.path !== '/robots.txt' && request.ip === target.ip);
  return { outcomes, nextStart, pages, pacing: judgePacing(requests, DELAY_MS).get(target.ip) };
}

function expectGivenBack(result: Awaited<ReturnType<typeof timeoutsThenOneMore>>) {
  const went = result.outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
  expect(went).toBeGreaterThanOrEqual(1);
  expect(went).toBeLessThan(20);
  // Every page that went, plus the one after: none of them closer than the delay.
  expect(result.pacing?.violations).toEqual([]);
  expect(result.pages).toHaveLength(went + 1);
  const lastOfTheTwenty = result.pages.at(-2)?.at ?? Number.NaN;
  if (process.env.POLITELY_WIRE_LOG)
    console.log(
      JSON.stringify({ went, nextStartAfterLastMs: Math.round(result.nextStart - lastOfTheTwenty) }),
    );
  // The slots of the requests that gave up went back: the next start is one delay after the last
  // page that went (not 20 - went delays later). Two delays leave room for clocks and margins.
  expect(result.nextStart).toBeLessThan(lastOfTheTwenty + 2 * DELAY_MS);
}

describe('slots given up by per-request timeouts go back, at the wire', () => {
  for (const maxConcurrentPerHost of [1, Number.POSITIVE_INFINITY]) {
    it(`politeFetch with AbortSignal.timeout, maxConcurrentPerHost ${maxConcurrentPerHost}`, async () => {
      const target = await site();
      const instance = politeness({ maxConcurrentPerHost });
      const fetch = politeFetch(instance);
      const result = await timeoutsThenOneMore(target, instance, async (url) => {
        const response = await fetch(url, { signal: AbortSignal.timeout(2500) });
        await response.text();
      });
      expectGivenBack(result);
    }, 30_000);
  }

  // got reserves only once the request before has gone out, so at most one slot was ever lost with
  // it (it passes on the old code too): kept so the give-back never costs got its spacing.
  it('got with timeout.request, maxConcurrentPerHost Infinity', async () => {
    const target = await site();
    const instance = politeness({ maxConcurrentPerHost: Number.POSITIVE_INFINITY });
    const client = got.extend(politeGot(instance), { retry: { limit: 0 } });
    const result = await timeoutsThenOneMore(target, instance, (url) =>
      client(url, { timeout: { request: 2500 } }).text(),
    );
    expectGivenBack(result);
  }, 30_000);
});

const redisUp = await requireRedis('slots given back fleet-wide at the wire');
describe.runIf(redisUp)('fleet-wide: two processes on one Redis', () => {
  it('slots given up in one process go back for the other', async () => {
    const target = await site();
    const prefix = `${uniquePrefix('give-back-wire')}:`;
    const { createClient } = await import('redis');
    const clients = [0, 1].map(() => createClient({ url: REDIS_URL }));
    for (const client of clients) {
      client.on('error', () => {});
      await client.connect();
      cleanups.push(async () => {
        if (client.isOpen) client.destroy();
      });
    }
    const [one, other] = clients.map((client) =>
      politeness({
        scheduler: createRedisScheduler({ client, prefix }),
        maxConcurrentPerHost: Number.POSITIVE_INFINITY,
      }),
    ) as [Politeness, Politeness];
    const fetchOne = politeFetch(one);
    const fetchOther = politeFetch(other);
    await other.check(target.url('/warm-up'));
    // The 20 timing out in one process; the next request from the other.
    const result = await timeoutsThenOneMore(target, one, async (url) => {
      if (url.endsWith('/next')) return (await fetchOther(url)).text();
      return (await fetchOne(url, { signal: AbortSignal.timeout(2500) })).text();
    });
    expectGivenBack(result);
  }, 30_000);
});
