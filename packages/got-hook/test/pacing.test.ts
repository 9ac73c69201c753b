import { createPoliteness } from '@politely/core';
import got from 'got';
import gotWithoutCause from 'got-14-0';
import { describe, expect, it } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import { getRetryAfterMs, isWaitTooLongError, politeGot } from '../src/index.js';
import {
  atTheWire,
  gapBetween,
  host,
  longestGaps,
  paths,
  politeClient,
  politeOptions,
  rejectionOf,
  track,
  USER_AGENT,
} from './setup.js';

describe('pacing per host', () => {
  it('honours Crawl-delay between requests to one host, as seen by the server', async () => {
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.3\n') },
      fallback: html('ok'),
    });
    const client = politeClient();

    const paths = ['/a', '/b', '/c', '/d'];
    let statuses: number[] = [];
    const seen = await atTheWire([site], async () => {
      statuses = (await Promise.all(paths.map((path) => client(site.url(path))))).map((r) => r.statusCode);
    });

    expect(statuses).toEqual([200, 200, 200, 200]);
    const pages = seen.filter((request) => paths.includes(request.path));
    expect(pages).toHaveLength(4);
    for (const gap of longestGaps(pages)) expect(gap).toBeGreaterThanOrEqual(300);
  });

  it('backs the host off after a 429 with Retry-After, for every client sharing the Politeness', async () => {
    const site = await host({
      routes: {
        '/robots.txt': text('User-agent: *\nAllow: /\n'),
        '/busy': text('slow down', 429, { 'retry-after': '1' }),
      },
      fallback: html('ok'),
    });
    const politeness = track(createPoliteness({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } }));
    const first = got.extend(politeGot(politeness), { retry: { limit: 0 }, throwHttpErrors: false });
    const second = got.extend(politeGot(politeness), { retry: { limit: 0 }, throwHttpErrors: false });

    const seen = await atTheWire([site], async () => {
      expect((await first(site.url('/busy'))).statusCode).toBe(429);
      expect((await second(site.url('/next'))).statusCode).toBe(200);
    });

    expect(gapBetween(seen, '/busy', '/next')).toBeGreaterThanOrEqual(1000);
  });

  it('keeps pacing other hosts while one host is backed off', async () => {
    const slow = await host({ routes: { '/busy': text('slow down', 429, { 'retry-after': '30' }) } });
    const fast = await host({ fallback: html('ok') });
    const client = politeClient({ pacing: { maxWaitMs: 60_000 } });

    await client(slow.url('/busy'));
    const response = await client(fast.url('/page'));

    expect(response.statusCode).toBe(200);
    expect(paths(fast)).toEqual(['/robots.txt', '/page']);
  });
});

/** The first page goes at once; the next one is 5 s away. */
const SLOW_ROBOTS = 'User-agent: *\nCrawl-delay: 5\n';

describe('waiting', () => {
  it('stops waiting when the request is aborted; the aborted request is never sent', async () => {
    const site = await host({ fallback: html('ok') });
    // The slot of /b is a second away: the abort 50 ms in has all of that to land, however busy the CPU.
    const client = politeClient({ pacing: { minDelayMs: 1000 } });
    await client(site.url('/a'));

    const controller = new AbortController();
    const aborted = rejectionOf(client(site.url('/b'), { signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    const error = await aborted;
    // The next request queues behind the aborted one's (wasted) slot, so once it has been served,
    // the aborted one would have been too.
    await client(site.url('/c'));

    expect(error.name).toBe('AbortError');
    expect(paths(site)).toEqual(['/robots.txt', '/a', '/c']);
  });

  it('rejects at once with ERR_WAIT_TOO_LONG when the slot is further away than maxWaitMs', async () => {
    const site = await host({ routes: { '/robots.txt': text(SLOW_ROBOTS) }, fallback: html('ok') });
    const client = politeClient({ pacing: { maxWaitMs: 100 } });
    // robots.txt is a request to the host: its Crawl-delay (5 s) holds the first page's slot too.
    const error = await rejectionOf(client(site.url('/a')));

    expect(error.code).toBe('ERR_WAIT_TOO_LONG');
    expect(isWaitTooLongError(error)).toBe(true);
    expect(getRetryAfterMs(error)).toBeGreaterThan(100);
    // The Crawl-delay, plus core's upward safety margin (at most 10%).
    expect(getRetryAfterMs(error)).toBeLessThanOrEqual(5000 * 1.1);
    expect(paths(site)).toEqual(['/robots.txt']);
  });

  it('gives retryAfterMs on got 14.0 too, where the wrapped error has no cause', async () => {
    const site = await host({ routes: { '/robots.txt': text(SLOW_ROBOTS) }, fallback: html('ok') });
    const client = gotWithoutCause.extend(politeOptions({ pacing: { maxWaitMs: 100 } }));
    // robots.txt is a request to the host: its Crawl-delay (5 s) holds the first page's slot too.
    const error = await rejectionOf(client(site.url('/a')));

    expect(error.cause).toBeUndefined();
    expect(getRetryAfterMs(error)).toBeGreaterThan(100);
    expect(paths(site)).toEqual(['/robots.txt']);
  });
});
