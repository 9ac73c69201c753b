import { createPoliteness } from '@politely/core';
import { adapterKit } from '@politely/core/adapter';
import { afterEach, describe, expect, it } from 'vitest';
import { html, type TestHost, text } from '../../../test/helpers/hosts.js';
import { burnCpu, judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { getWaitTooLongError, isWaitTooLongError, politeFetch, politenessOf } from '../src/index.js';
import { host, paths, polite, rejectionOf, track, USER_AGENT } from './setup.js';

let burners: { stop(): void } | undefined;
afterEach(() => {
  burners?.stop();
  burners = undefined;
});

/** Page requests to one host as the kernel saw them, judged against the asked delay with no tolerance. */
async function atTheWire(site: TestHost, delayMs: number, crawl: () => Promise<void>) {
  const capture = await startWireCapture([site]);
  const crawled = await crawl().then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  const requests = await capture.stop();
  if (crawled) throw crawled.error;
  const pacing = judgePacing(requests, delayMs).get(site.ip);
  if (process.env.POLITELY_WIRE_LOG)
    console.log(
      JSON.stringify({ source: capture.source, delayMs, gaps: pacing?.gaps, efficiency: pacing?.efficiency }),
    );
  return { requests, pacing };
}

describe('pacing per host, judged at the wire under load', () => {
  it('honours Crawl-delay between sequential requests, two busy processes beside', async () => {
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.4\n') },
      fallback: html('ok'),
    });
    const fetch = polite();
    burners = burnCpu(2);

    const { pacing } = await atTheWire(site, 400, async () => {
      for (const path of ['/a', '/b', '/c', '/d', '/e'])
        expect((await fetch(site.url(path))).status).toBe(200);
    });

    expect(pacing?.times).toHaveLength(5);
    expect(pacing?.violations).toEqual([]);
  });

  it('honours Crawl-delay between concurrent requests, two busy processes beside', async () => {
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.4\n') },
      fallback: html('ok'),
    });
    const fetch = polite();
    burners = burnCpu(2);

    const { pacing } = await atTheWire(site, 400, async () => {
      const responses = await Promise.all(
        ['/a', '/b', '/c', '/d', '/e'].map((path) => fetch(site.url(path))),
      );
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    });

    expect(pacing?.times).toHaveLength(5);
    expect(pacing?.violations).toEqual([]);
  });

  it('counts the next start from each response by the delay asked: no margin for a crawl one at a time', async () => {
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.4\n') },
      fallback: html('ok'),
    });
    const fetch = polite();
    const politeness = politenessOf(fetch);

    const { pacing } = await atTheWire(site, 400, async () => {
      for (const path of ['/a', '/b', '/c']) {
        await (await fetch(site.url(path))).text();
        const answeredBy = Date.now();
        // The response moved the host's next start before fetch resolved: the delay after it, not the
        // 440 ms core's margin would make it (a concurrent request keeps that, as the test above shows).
        expect(await adapterKit(politeness).nextStart(site.url('/next'))).toBeLessThanOrEqual(
          answeredBy + 400,
        );
      }
    });

    expect(pacing?.times).toHaveLength(3);
    expect(pacing?.violations).toEqual([]);
  });

  it('paces each redirect hop to the same host as a request of its own', async () => {
    const site = await host({
      routes: {
        '/robots.txt': text('User-agent: *\nAllow: /\n'),
        '/a': { status: 301, headers: { location: '/b' } },
      },
      fallback: html('ok'),
    });
    const fetch = polite({ minDelayMs: 300 });
    burners = burnCpu(2);

    const { pacing } = await atTheWire(site, 300, async () => {
      expect((await fetch(site.url('/a'))).url).toBe(site.url('/b'));
    });

    expect(pacing?.times).toHaveLength(2);
    expect(pacing?.violations).toEqual([]);
  });

  it('backs the host off after a 429 with Retry-After, for every fetch sharing the Politeness', async () => {
    const site = await host({
      routes: {
        '/robots.txt': text('User-agent: *\nAllow: /\n'),
        '/busy': text('slow down', 429, { 'retry-after': '1' }),
      },
      fallback: html('ok'),
    });
    const politeness = track(createPoliteness({ userAgent: USER_AGENT, minDelayMs: 0 }));
    const first = politeFetch(politeness);
    const second = politeFetch(politeness);

    const { pacing } = await atTheWire(site, 1000, async () => {
      expect((await first(site.url('/busy'))).status).toBe(429);
      expect((await second(site.url('/next'))).status).toBe(200);
    });

    expect(pacing?.times).toHaveLength(2);
    expect(pacing?.violations).toEqual([]);
    expect(politeness.stats().backoffs).toBe(1);
  });
});

/** The first page goes at once; the next one is 5 s away. */
const SLOW_ROBOTS = 'User-agent: *\nCrawl-delay: 5\n';

describe('waiting', () => {
  it('stops waiting when the signal aborts; the aborted request is never sent', async () => {
    const site = await host({ routes: { '/robots.txt': text(SLOW_ROBOTS) }, fallback: html('ok') });
    const fetch = polite();
    await fetch(site.url('/a'));

    const controller = new AbortController();
    const aborted = rejectionOf(fetch(site.url('/b'), { signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    const error = await aborted;

    expect(error.name).toBe('AbortError');
    // The slot it waited for was 5 s away; by now it would have been sent had the wait not stopped.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(paths(site)).toEqual(['/robots.txt', '/a']);
  });

  it("stops a robots.txt wait too, with the signal's reason", async () => {
    // robots.txt never answers; the caller gives up once the server has the request (not after a
    // fixed time a busy machine may not have reached the server in).
    let robotsArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      robotsArrived = resolve;
    });
    const site = await host({ routes: { '/robots.txt': () => robotsArrived() }, fallback: html('ok') });
    const controller = new AbortController();
    const reason = new Error('caller gave up');

    const pending = rejectionOf(polite()(site.url('/a'), { signal: controller.signal }));
    await arrived;
    controller.abort(reason);

    expect(await pending).toBe(reason);
    expect(paths(site)).toEqual(['/robots.txt']);
  });

  it('rejects at once with ERR_WAIT_TOO_LONG when the slot is further away than maxWaitMs', async () => {
    const site = await host({ routes: { '/robots.txt': text(SLOW_ROBOTS) }, fallback: html('ok') });
    const fetch = polite({ maxWaitMs: 100 });
    await fetch(site.url('/a'));

    const error = await rejectionOf(fetch(site.url('/b')));

    expect(error.code).toBe('ERR_WAIT_TOO_LONG');
    expect(isWaitTooLongError(error)).toBe(true);
    expect(getWaitTooLongError(error)?.retryAfterMs).toBeGreaterThan(100);
    expect(paths(site)).toEqual(['/robots.txt', '/a']);
  });
});
