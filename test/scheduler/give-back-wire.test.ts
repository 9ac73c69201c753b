/**
 * At the wire: requests that give up waiting for their slot (a per-request timeout)
 * give it back, so the host's next request goes one delay after the last one that really went, not
 * one delay per request that gave up. 20 requests to a host asking Crawl-delay 1, each but the first
 * with a 2.5 s time limit of its own: a few go, the rest time out; then one more request. Judged from
 * tcpdump's capture times (no gap below the delay), from what the server saw against what the client
 * handed to its transport, and from the host's next start read from the facade (`nextStart`, a value,
 * not a timing) once all 20 have settled: before, it was 17 delays further on (politeFetch, got),
 * every process of a fleet stalled with it.
 *
 * Nothing here assumes which calls time out: on a loaded machine a request can be sent and still see
 * its time run out before its answer is read, or have its slot begin and its time run out before it
 * reaches the socket. What must hold at any load: every page at the wire is one the client handed
 * to its transport, once; every call that succeeded is at the wire; some calls gave up before they
 * were handed over; and the next start is at most one delay after the 20 settled.
 *
 * The cases run side by side, each on a host of its own under one capture: the wire judges each host
 * by itself, so together they take one case's time (about 4 s) instead of the sum.
 */

import { createPoliteness, type Politeness } from '@politely/core';
import { adapterKit } from '@politely/core/adapter';
import { createRedisScheduler } from '@politely/core/scheduler';
import got from 'got';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { politeFetch } from '../../packages/fetch/src/index.js';
import { politeGot } from '../../packages/got-hook/src/index.js';
import { html, startHost, type TestHost, text } from '../helpers/hosts.js';
import { mergeOptions, type OptionOverrides } from '../helpers/options.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { type HostPacing, judgePacing, startWireCapture, type WireRequest } from '../helpers/wire.js';

const USER_AGENT = 'GiveBackBot/1.0 (+http://127.0.0.1/bot)';
const DELAY_MS = 1000;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
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

/**
 * Paced by the Crawl-delay alone (`latencyFactor: 0`): on a loaded machine a response slow by a second
 * would set the host's pace to twice that, past the bound below, which is about slots given back.
 */
function politeness(options: OptionOverrides = {}): Politeness {
  const instance = createPoliteness(
    mergeOptions(
      {
        userAgent: USER_AGENT,
        pacing: { minDelayMs: 0, latencyFactor: 0 },
        logger: false,
      },
      options,
    ),
  );
  cleanups.push(() => instance.close());
  return instance;
}

/** Sends one request; `limited`: with its own 2.5 s time limit. */
type Send = (url: string, limited: boolean) => Promise<unknown>;

/** One case: a host, the Politeness whose next start is read, and how a request is sent. */
interface GiveBackCase {
  readonly target: TestHost;
  readonly instance: Politeness;
  readonly send: Send;
  /** Paths the client handed to its transport (the inner fetch called, got's request made), in order. */
  readonly handed: readonly string[];
}

type Result = Awaited<ReturnType<typeof timeoutsThenOneMore>>;
type Judged = Result & { handed: readonly string[]; pages: WireRequest[]; pacing: HostPacing | undefined };

const TWENTY = Array.from({ length: 20 }, (_, i) => `/p${i}`);

/**
 * 20 requests at once, the first without a time limit (so that one goes whatever the load: it holds
 * the first slot) and 19 with 2.5 s each, then one more once they have settled. Returns the outcomes
 * of the 20, and the host's next start as the facade saw it after them, with when it was read (epoch ms).
 */
async function timeoutsThenOneMore({ target, instance, send }: GiveBackCase) {
  const outcomes = await Promise.allSettled(TWENTY.map((path, i) => send(target.url(path), i > 0)));
  const nextStart = await adapterKit(instance).nextStart(target.url('/next'));
  const readAt = Date.now();
  await send(target.url('/next'), false);
  return { outcomes, nextStart, readAt };
}

/** Every case at once under one capture; per case, its outcome, or why it failed. */
async function allAtTheWire(cases: Record<string, GiveBackCase>) {
  // robots.txt first, outside the capture's pages (its fetch takes a slot of its own).
  await Promise.all(
    Object.values(cases).map(({ target, instance }) => instance.check(target.url('/warm-up'))),
  );
  const capture = await startWireCapture(Object.values(cases).map(({ target }) => target));
  const runs = await Promise.all(
    Object.entries(cases).map(async ([name, c]) => {
      try {
        return { name, c, result: await timeoutsThenOneMore(c) };
      } catch (error) {
        return { name, c, error };
      }
    }),
  );
  const requests = await capture.stop();
  const pacing = judgePacing(requests, DELAY_MS);
  const judged = new Map<string, () => Judged>();
  for (const { name, c, result, error } of runs) {
    const pages = requests.filter((request) => request.path !== '/robots.txt' && request.ip === c.target.ip);
    judged.set(name, () => {
      if (!result) throw error;
      const handed = c.handed.filter((path) => path !== '/robots.txt');
      return { ...result, handed, pages, pacing: pacing.get(c.target.ip) };
    });
  }
  return judged;
}

/**
 * The most the host's next start may lie past the moment it was read once the slots of the 20 are
 * back: one delay after the last request that started (its answer, its send, or its failure), plus
 * core's margin (10% of the delay, at most 50 ms; kernel/safety-margin.ts), doubled for each request
 * that failed once handed over (a timeout is host trouble: it doubles the host's pace for the
 * requests after it, signals/host-signal.ts), and 10 ms for rounding (got's was seen 1 ms past one
 * delay and its margin). Load can only widen the room: all that moved the next start happened before
 * it was read. Had the slots not gone back, it would lie 17 delays on.
 */
function mostAfterRead(failedOnceHanded: number): number {
  return (DELAY_MS + 50) * 2 ** failedOnceHanded + 10;
}

function expectGivenBack(result: Judged) {
  const succeeded = TWENTY.filter((_, i) => result.outcomes[i]?.status === 'fulfilled');
  const atTheWire = result.pages.map((page) => page.path);
  const gaveUpWaiting = TWENTY.filter((path) => !result.handed.includes(path));
  const failedOnceHanded = TWENTY.filter(
    (path, i) => result.outcomes[i]?.status === 'rejected' && result.handed.includes(path),
  ).length;
  if (process.env.POLITELY_WIRE_LOG)
    console.log(
      JSON.stringify({
        succeeded: succeeded.length,
        handed: result.handed.length,
        atTheWire: atTheWire.length,
        failedOnceHanded,
        nextStartAfterReadMs: result.nextStart - result.readAt,
        failures: [
          ...new Set(result.outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []))),
        ],
      }),
    );
  // The one without a limit went; some with one gave up before their slot came; every call that
  // failed, failed by its time limit.
  expect(succeeded).toContain('/p0');
  expect(
    result.outcomes.filter((o) => o.status === 'rejected' && (o.reason as Error).name !== 'TimeoutError'),
  ).toEqual([]);
  expect(gaveUpWaiting.length).toBeGreaterThan(0);
  // Nothing went twice, and nothing went that the client did not hand to its transport: a request
  // that gave up waiting never went out. A request handed over may still have timed out before its
  // answer was read (the server has it, the caller an error), so the two sets are not compared by size.
  expect(new Set(result.handed).size).toBe(result.handed.length);
  expect(new Set(atTheWire).size).toBe(atTheWire.length);
  expect(atTheWire.filter((path) => !result.handed.includes(path))).toEqual([]);
  // Every call that succeeded, and the one after the 20, reached the server.
  expect(succeeded.filter((path) => !atTheWire.includes(path))).toEqual([]);
  expect(atTheWire).toContain('/next');
  // Every page that went, plus the one after: none of them closer than the delay.
  expect(result.pacing?.violations).toEqual([]);
  // The slots of the requests that gave up went back: the next start is one delay after the last
  // request that went, not 20 - went (17 or 18) delays later.
  expect(result.nextStart).toBeLessThanOrEqual(result.readAt + mostAfterRead(failedOnceHanded));
}

/** A fetch that notes each path it is handed before passing it on to the global fetch. */
function noting(handed: string[]): typeof fetch {
  return (input, init) => {
    handed.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
    return fetch(input, init);
  };
}

const redisUp = await requireRedis('slots given back fleet-wide at the wire');

/** Two Politeness instances on one Redis prefix, as two processes of a fleet would be. */
async function fleetOfTwo(): Promise<[Politeness, Politeness]> {
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
  return clients.map((client) =>
    politeness({
      scheduler: createRedisScheduler({ client, prefix }),
      pacing: { maxConcurrentPerHost: Number.POSITIVE_INFINITY },
    }),
  ) as [Politeness, Politeness];
}

describe('slots given up by per-request timeouts go back, at the wire', () => {
  let judged: Awaited<ReturnType<typeof allAtTheWire>>;
  const outcomeOf = (name: string) => {
    const outcome = judged.get(name);
    if (!outcome) throw new Error(`no case named ${name}`);
    return outcome();
  };

  beforeAll(async () => {
    const cases: Record<string, GiveBackCase> = {};
    const limit = (limited: boolean) => (limited ? { signal: AbortSignal.timeout(2500) } : {});
    for (const maxConcurrentPerHost of [1, Number.POSITIVE_INFINITY]) {
      const instance = politeness({ pacing: { maxConcurrentPerHost } });
      const handed: string[] = [];
      const fetch = politeFetch(instance, { fetch: noting(handed) });
      cases[`fetch ${maxConcurrentPerHost}`] = {
        target: await site(),
        instance,
        handed,
        send: async (url, limited) => {
          const response = await fetch(url, limit(limited));
          await response.text();
        },
      };
    }
    const gotInstance = politeness({ pacing: { maxConcurrentPerHost: Number.POSITIVE_INFINITY } });
    const gotHanded: string[] = [];
    const client = got.extend(politeGot(gotInstance), {
      retry: { limit: 0 },
      // Called once got's hooks (the slot's wait among them) have run: the request is made here.
      // Returning nothing lets got make it as it would.
      request: (url: URL) => {
        gotHanded.push(url.pathname);
        return undefined;
      },
    });
    cases.got = {
      target: await site(),
      instance: gotInstance,
      handed: gotHanded,
      send: (url, limited) => client(url, limited ? { timeout: { request: 2500 } } : {}).text(),
    };
    if (redisUp) {
      const [one, other] = await fleetOfTwo();
      const handed: string[] = [];
      const fetchOne = politeFetch(one, { fetch: noting(handed) });
      const fetchOther = politeFetch(other, { fetch: noting(handed) });
      const target = await site();
      await other.check(target.url('/warm-up'));
      // The 20 in one process; the next request from the other.
      cases.fleet = {
        target,
        instance: one,
        handed,
        send: async (url, limited) => {
          if (url.endsWith('/next')) return (await fetchOther(url)).text();
          return (await fetchOne(url, limit(limited))).text();
        },
      };
    }
    judged = await allAtTheWire(cases);
  }, 60_000);

  for (const maxConcurrentPerHost of [1, Number.POSITIVE_INFINITY]) {
    it(`politeFetch with AbortSignal.timeout, maxConcurrentPerHost ${maxConcurrentPerHost}`, () => {
      expectGivenBack(outcomeOf(`fetch ${maxConcurrentPerHost}`));
    });
  }

  // got reserves only once the request before has gone out, so at most one slot was ever lost with
  // it (it passes on the old code too): kept so the give-back never costs got its spacing.
  it('got with timeout.request, maxConcurrentPerHost Infinity', () => {
    expectGivenBack(outcomeOf('got'));
  });

  it.runIf(redisUp)(
    'fleet-wide, two processes on one Redis: slots given up in one go back for the other',
    () => {
      expectGivenBack(outcomeOf('fleet'));
    },
  );
});
