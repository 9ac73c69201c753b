import { createPoliteness, getWaitTooLongError } from '@politely/core';
import { adapterKit } from '@politely/core/adapter';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  crawlFileSite,
  FILE_SITE_CRAWL_DELAY_SECS,
  FILE_SITE_PATHS,
  judgeFileSite,
  serveFileSite,
} from '../../../test/helpers/file-site.js';
import { html, type TestHost, text } from '../../../test/helpers/hosts.js';
import { mergeOptions } from '../../../test/helpers/options.js';
import {
  burnCpu,
  type HostPacing,
  judgePacing,
  skipWithoutWire,
  startWireCapture,
} from '../../../test/helpers/wire.js';
import { isWaitTooLongError, politeFetch, politenessOf } from '../src/index.js';
import { host, paths, polite, rejectionOf, track, USER_AGENT } from './setup.js';

/**
 * A crawl of one host, judged at the wire against the delay it asks. The crawl may return checks on
 * what it read along the way, run with the test.
 */
interface WireCase {
  readonly site: TestHost;
  readonly delayMs: number;
  readonly crawl: () => Promise<(() => void) | undefined>;
}

interface WireOutcome {
  readonly pacing: HostPacing | undefined;
  readonly checks: (() => void) | undefined;
  readonly error?: unknown;
}

/**
 * Every case on a host of its own, all at once, under one capture and one pair of CPU burners: the
 * wire judges each host by itself, so together they take the longest case's time instead of the sum
 * (a capture and burners of their own cost each case about a second more), and each is paced while
 * the others compete for the CPU.
 */
async function allAtTheWire(cases: Record<string, WireCase>): Promise<Map<string, WireOutcome>> {
  const capture = await startWireCapture(Object.values(cases).map((c) => c.site));
  const burners = burnCpu(2);
  const crawled = await Promise.all(
    Object.entries(cases).map(async ([name, c]) => {
      try {
        return { name, c, checks: await c.crawl() };
      } catch (error) {
        return { name, c, checks: undefined, error };
      }
    }),
  ).finally(() => burners.stop());
  const requests = await capture.stop();
  const outcomes = new Map<string, WireOutcome>();
  for (const { name, c, checks, error } of crawled) {
    const pacing = judgePacing(requests, c.delayMs).get(c.site.ip);
    if (process.env.POLITELY_WIRE_LOG)
      console.log(JSON.stringify({ name, source: capture.source, delayMs: c.delayMs, gaps: pacing?.gaps }));
    outcomes.set(name, { pacing, checks, error });
  }
  return outcomes;
}

const CRAWL_DELAY = 'User-agent: *\nCrawl-delay: 0.3\n';
/**
 * Paced by the delay asked alone: with latency in the pace (the default), responses slowed by the
 * burners would widen every gap, which makes the floor both easier to keep and slower to judge.
 */
const ASKED_ONLY = { pacing: { latencyFactor: 0 } } as const;

describe('pacing per host, judged at the wire, five hosts at once and two busy processes beside', () => {
  let outcomes: Map<string, WireOutcome>;
  /** The case's pacing at the wire, after its own checks (and its crawl's error, if it failed). */
  const judged = (name: string): HostPacing | undefined => {
    const outcome = outcomes.get(name);
    if (!outcome) throw new Error(`no wire case named ${name}`);
    if ('error' in outcome && outcome.error !== undefined) throw outcome.error;
    outcome.checks?.();
    return outcome.pacing;
  };

  beforeAll(async () => {
    const sites = await Promise.all([
      host({ routes: { '/robots.txt': text(CRAWL_DELAY) }, fallback: html('ok') }),
      host({ routes: { '/robots.txt': text(CRAWL_DELAY) }, fallback: html('ok') }),
      host({ routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.4\n') }, fallback: html('ok') }),
      host({
        routes: {
          '/robots.txt': text('User-agent: *\nAllow: /\n'),
          '/a': { status: 301, headers: { location: '/b' } },
        },
        fallback: html('ok'),
      }),
      host({
        routes: {
          '/robots.txt': text('User-agent: *\nAllow: /\n'),
          '/busy': text('slow down', 429, { 'retry-after': '1' }),
        },
        fallback: html('ok'),
      }),
    ]);
    const [sequential, concurrent, oneAtATime, redirecting, busy] = sites as [
      TestHost,
      TestHost,
      TestHost,
      TestHost,
      TestHost,
    ];
    const sharedBy429 = track(
      createPoliteness(mergeOptions({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } }, ASKED_ONLY)),
    );

    outcomes = await allAtTheWire({
      sequential: {
        site: sequential,
        delayMs: 300,
        async crawl() {
          const fetch = polite(ASKED_ONLY);
          const statuses: number[] = [];
          for (const path of ['/a', '/b', '/c', '/d', '/e'])
            statuses.push((await fetch(sequential.url(path))).status);
          return () => expect(statuses).toEqual([200, 200, 200, 200, 200]);
        },
      },
      concurrent: {
        site: concurrent,
        delayMs: 300,
        async crawl() {
          const fetch = polite(ASKED_ONLY);
          const responses = await Promise.all(
            ['/a', '/b', '/c', '/d', '/e'].map((path) => fetch(concurrent.url(path))),
          );
          return () =>
            expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
        },
      },
      oneAtATime: {
        site: oneAtATime,
        delayMs: 400,
        async crawl() {
          const fetch = polite(ASKED_ONLY);
          for (const path of ['/a', '/b', '/c']) await (await fetch(oneAtATime.url(path))).text();
          return undefined;
        },
      },
      redirect: {
        site: redirecting,
        delayMs: 300,
        async crawl() {
          const url = (
            await polite({ pacing: { ...ASKED_ONLY.pacing, minDelayMs: 300 } })(redirecting.url('/a'))
          ).url;
          return () => expect(url).toBe(redirecting.url('/b'));
        },
      },
      retryAfter: {
        site: busy,
        delayMs: 1000,
        async crawl() {
          const statuses = [
            (await politeFetch(sharedBy429)(busy.url('/busy'))).status,
            (await politeFetch(sharedBy429)(busy.url('/next'))).status,
          ];
          const backoffs = sharedBy429.stats().backoffs;
          return () => {
            expect(statuses).toEqual([429, 200]);
            expect(backoffs).toBe(1);
          };
        },
      },
    });
  }, 60_000);

  it('honours Crawl-delay between sequential requests', () => {
    const pacing = judged('sequential');
    expect(pacing?.times).toHaveLength(5);
    expect(pacing?.violations).toEqual([]);
  });

  it('honours Crawl-delay between concurrent requests', () => {
    const pacing = judged('concurrent');
    expect(pacing?.times).toHaveLength(5);
    expect(pacing?.violations).toEqual([]);
  });

  it('paces a crawl one at a time by the delay asked, at the wire', () => {
    const pacing = judged('oneAtATime');
    expect(pacing?.times).toHaveLength(3);
    expect(pacing?.violations).toEqual([]);
  });

  it('paces each redirect hop to the same host as a request of its own', () => {
    const pacing = judged('redirect');
    expect(pacing?.times).toHaveLength(2);
    expect(pacing?.violations).toEqual([]);
  });

  it('backs the host off after a 429 with Retry-After, for every fetch sharing the Politeness', () => {
    const pacing = judged('retryAfter');
    expect(pacing?.times).toHaveLength(2);
    expect(pacing?.violations).toEqual([]);
  });
});

/**
 * The first page goes at once; the next one is 20 s away (a wait that is never waited out, however
 * long a loaded machine takes between robots.txt's answer and the page's check).
 */
const SLOW_ROBOTS = 'User-agent: *\nCrawl-delay: 20\n';

describe('waiting', () => {
  it('stops waiting when the signal aborts; the aborted request is never sent', async () => {
    const site = await host({ routes: { '/robots.txt': text(CRAWL_DELAY) }, fallback: html('ok') });
    const fetch = polite();
    await fetch(site.url('/a'));

    const controller = new AbortController();
    const aborted = rejectionOf(fetch(site.url('/b'), { signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    const error = await aborted;

    expect(error.name).toBe('AbortError');
    // An order, not a time: had /b still been going out at its slot, it would have gone before /c,
    // whose slot comes after it.
    await (await fetch(site.url('/c'))).text();
    expect(paths(site)).toEqual(['/robots.txt', '/a', '/c']);
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
    const fetch = polite({ pacing: { maxWaitMs: 100 } });
    // robots.txt is a request to the host: its Crawl-delay (20 s) holds the first page's slot too.
    const error = await rejectionOf(fetch(site.url('/a')));

    expect(error.code).toBe('ERR_WAIT_TOO_LONG');
    expect(isWaitTooLongError(error)).toBe(true);
    expect(getWaitTooLongError(error)?.retryAfterMs).toBeGreaterThan(100);
    expect(paths(site)).toEqual(['/robots.txt']);
  });
});

/** Milliseconds each answer of the fake fetch below takes, on the fake clock. */
const LATENCY_MS = 120;

describe('the next start, on a fake clock', () => {
  it('counts the next start from each response by the delay asked: no margin for a crawl one at a time', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      // The inner fetch answers LATENCY_MS after it is called, on the fake clock; robots.txt asks 0.4 s.
      const answeredAt: number[] = [];
      const inner = async (input: string | URL | Request) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        vi.setSystemTime(Date.now() + LATENCY_MS);
        if (url.pathname === '/robots.txt') return new Response('User-agent: *\nCrawl-delay: 0.4\n');
        answeredAt.push(Date.now());
        return new Response('ok', { headers: { 'content-type': 'text/html' } });
      };
      const fetch = polite({ ...ASKED_ONLY, fetch: inner as typeof globalThis.fetch });
      const politeness = politenessOf(fetch);
      const nextStarts: number[] = [];
      for (const path of ['/a', '/b', '/c']) {
        const url = `http://one-at-a-time.test${path}`;
        let done = false;
        const sent = fetch(url).then(async (response) => {
          await response.text();
          done = true;
        });
        // The slot's wait ends when the fake clock reaches it.
        while (!done) await vi.advanceTimersToNextTimerAsync();
        await sent;
        nextStarts.push(await adapterKit(politeness).nextStart(url));
      }
      // The response moved the host's next start before fetch resolved: the delay after it, not the
      // 440 ms core's margin would make it (a concurrent request keeps that).
      expect(answeredAt).toHaveLength(3);
      expect(nextStarts).toEqual(answeredAt.map((at) => at + 400));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe.skipIf(skipWithoutWire("politeFetch's file pacing"))('files are paced as pages (issue 41.3)', () => {
  it('Crawl-delay: 1.5 on default options: no two requests closer than 1.5 s, robots.txt, tdmrep.json and the sitemap included', async () => {
    const site = await host({});
    serveFileSite(site, FILE_SITE_CRAWL_DELAY_SECS);
    // Default pacing (minDelayMs 1000); a TDM purpose, so tdmrep.json is fetched too.
    const fetch = politeFetch({ userAgent: USER_AGENT, purpose: 'ai-train' });
    const politeness = track(politenessOf(fetch));
    const capture = await startWireCapture([site]);

    const listed = await crawlFileSite(politeness, site, async (url) => {
      const response = await fetch(url);
      const body = new Uint8Array(await response.arrayBuffer());
      return response.ok ? body : undefined;
    });
    const seen = await capture.stop();

    expect(listed).toHaveLength(2);
    expect(seen.map((request) => request.path).sort()).toEqual([...FILE_SITE_PATHS]);
    expect(judgeFileSite(seen, site, FILE_SITE_CRAWL_DELAY_SECS * 1000, 'politeFetch')?.violations).toEqual(
      [],
    );
  }, 60_000);
});
