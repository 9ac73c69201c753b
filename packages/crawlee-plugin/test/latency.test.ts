import type { PolitelyEvent } from '@politely/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'LatencyBot/1.0 (+http://127.0.0.1/bot)';
const open: TestHost[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
});

describe('latency-aware pacing through the Crawlee HTTP client', () => {
  it('a server answering in 250 ms gets its requests at least 2 x 250 ms apart; the asked delay still holds', async () => {
    const latencyMs = 250;
    const pages = 5;
    const site = await startHost({
      ip: '127.0.0.93',
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: {
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<p>slow</p>',
        delayMs: latencyMs,
      },
    });
    open.push(site);
    const crawler = await politeCheerioCrawler(
      'latency',
      {
        maxConcurrency: 10,
        useSessionPool: false,
        requestHandler: async () => {},
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 100 } },
    );
    const capture = await startWireCapture([site]);
    await crawler.run(Array.from({ length: pages }, (_, index) => site.url(`/p${index}`)));
    const seen = (await capture.stop()).filter((request) => request.path !== '/robots.txt');
    const judged = judgePacing(seen, 100).get(site.ip);
    expect(judged?.times).toHaveLength(pages);
    expect(judged?.violations).toEqual([]);
    // From the third page on the pace knows the latency: requests start latencyFactor (2) x 250 ms
    // apart (the client paces start to start, from the real send).
    const times = (judged?.times ?? []).slice().sort((a, b) => a - b);
    const gaps = times.slice(1).map((at, index) => at - (times[index] ?? at));
    for (const gap of gaps.slice(1)) expect(gap).toBeGreaterThanOrEqual(2 * latencyMs);
  }, 60_000);

  it('a dropped connection slows the host as a 5xx does (a pace-changed event, reason errors)', async () => {
    let dropped = 0;
    const site = await startHost({
      ip: '127.0.0.94',
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: (req, res) => {
        if (dropped < 2) {
          dropped++;
          req.socket.destroy();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<p>back</p>');
      },
    });
    open.push(site);
    const events: PolitelyEvent[] = [];
    const handled: string[] = [];
    const crawler = await politeCheerioCrawler(
      'latency-drop',
      {
        maxConcurrency: 2,
        maxRequestRetries: 3,
        useSessionPool: false,
        requestHandler: async ({ request }) => {
          handled.push(request.url);
        },
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 50 }, onEvent: (event) => events.push(event) },
    );
    await crawler.run([site.url('/a'), site.url('/b')]);
    expect(dropped).toBe(2);
    expect(handled.sort()).toEqual([site.url('/a'), site.url('/b')]);
    const slowed = events.filter((event) => event.type === 'pace-changed' && event.reason === 'errors');
    expect(slowed.length).toBeGreaterThan(0);
  }, 60_000);
});
