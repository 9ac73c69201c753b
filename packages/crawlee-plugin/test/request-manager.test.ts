/**
 * The request manager against a scripted facade and a real in-memory Crawlee queue, on a fake clock:
 * skip bookkeeping, parking per host, and what isEmpty/isFinished report meanwhile.
 */

import { type Request, RequestState } from '@crawlee/core';
import { ADAPTER_KIT, adapterKit } from '@politely/core/adapter';
import { describe, expect, it, vi } from 'vitest';
import { type InnerQueue, PoliteRequestManager } from '../src/polite-request-manager.js';
import { Reporter } from '../src/reporter.js';
import { type FakePoliteness, fakeClock, fakePoliteness } from './fake-politeness.js';
import { crawleeTestEnv } from './harness.js';

const A = 'http://a.test';
const B = 'http://b.test';

async function setup(
  options: { delayMs?: number; inner?: InnerQueue; maxParked?: number; maxNapMs?: number } = {},
) {
  const env = await crawleeTestEnv('manager');
  const clock = fakeClock();
  const politeness = fakePoliteness(
    clock,
    { '/private': 'disallowed', '/down': 'unreachable' },
    options.delayMs ?? 1000,
  );
  const skips = politeness.skips;
  const crawleeSkips: unknown[] = [];
  const reporter = new Reporter({
    politeness,
    log: env.log,
    onSkippedRequest: (args) => void crawleeSkips.push(args),
  });
  const inner = options.inner ?? (env.requestQueue as unknown as InnerQueue);
  const manager = new PoliteRequestManager({
    politeness,
    openInner: async () => inner,
    reporter,
    log: env.log,
    maxParked: options.maxParked ?? 1000,
    filterOnEnqueue: true,
    now: clock.now,
    ...(options.maxNapMs ? { maxNapMs: options.maxNapMs } : {}),
  });
  return { env, clock, politeness, manager, reporter, skips, crawleeSkips, inner };
}

/** Drains what the manager hands out right now. */
async function drain(manager: PoliteRequestManager): Promise<string[]> {
  const urls: string[] = [];
  for (let request = await manager.fetchNextRequest(); request; request = await manager.fetchNextRequest()) {
    urls.push(request.url);
    await manager.markRequestHandled(request);
  }
  return urls;
}

/** What the HTTP client decorator does for a request of `host`: reserve, then report it sent. */
async function sendHook(politeness: FakePoliteness, manager: PoliteRequestManager, url: string) {
  const decision = adapterKit(politeness).checkCached(url);
  if (!decision) throw new Error(`no rules for ${url}`);
  expect(await adapterKit(politeness).tryReserve(decision)).toMatchObject({ ok: true });
  manager.sent(decision);
}

function knowAll(politeness: FakePoliteness) {
  politeness.release(A);
  politeness.release(B);
}

describe('PoliteRequestManager: robots.txt at dequeue', () => {
  it("skips a disallowed request with Crawlee's bookkeeping and reports the deciding rule", async () => {
    const { manager, politeness, skips, crawleeSkips, env } = await setup();
    const handled = vi.spyOn(env.requestQueue, 'markRequestHandled');
    // Enqueued before the rules are known, so the dequeue check is the one that decides.
    await manager.addRequestsBatched([`${A}/private/x`, `${A}/open`]);
    knowAll(politeness);

    expect(await drain(manager)).toEqual([`${A}/open`]);
    expect(crawleeSkips).toEqual([{ url: `${A}/private/x`, reason: 'robotsTxt' }]);
    expect(skips).toHaveLength(1);
    const [skip] = skips;
    expect(skip).toMatchObject({
      url: `${A}/private/x`,
      stage: 'dequeue',
      decision: { reason: 'disallowed' },
    });
    expect(skip?.decision.rule).toEqual({ directive: 'disallow', pattern: '/private', line: 2 });
    const request = handled.mock.calls.map(([call]) => call).find((call) => call.url === `${A}/private/x`);
    expect(request?.state).toBe(RequestState.SKIPPED);
    expect(request?.noRetry).toBe(true);
    // Handled in the queue (so never served again), as Crawlee's own robots skip does.
    expect(await env.requestQueue.handledCount()).toBe(2);
    expect(await manager.isFinished()).toBe(true);
  });

  it('holds requests whose robots.txt is still being fetched, then decides them', async () => {
    const { manager, politeness, crawleeSkips } = await setup();
    await manager.addRequestsBatched([`${A}/one`, `${A}/private/two`]);

    expect(await manager.fetchNextRequest()).toBeNull();
    expect(await manager.isEmpty()).toBe(true);
    expect(await manager.isFinished()).toBe(false);
    expect(manager.parkedByHost()).toEqual(new Map([['a.test', 2]]));

    politeness.release(A);
    await manager.settled();
    expect(crawleeSkips).toEqual([{ url: `${A}/private/two`, reason: 'robotsTxt' }]);
    expect(await manager.isEmpty()).toBe(false);
    expect(await drain(manager)).toEqual([`${A}/one`]);
    expect(await manager.isFinished()).toBe(true);
  });

  it('an unreachable robots.txt skips with reason unreachable', async () => {
    const { manager, politeness, skips } = await setup();
    knowAll(politeness);
    await manager.addRequest({ url: `${A}/down/page` });
    expect(await drain(manager)).toEqual([]);
    expect(skips.map((skip) => skip.decision.reason)).toEqual(['unreachable']);
  });
});

describe('PoliteRequestManager: pacing by parking', () => {
  it('serves another host while one is not due, and reports empty but not finished meanwhile', async () => {
    const { manager, politeness, clock } = await setup({ delayMs: 1000 });
    knowAll(politeness);
    await manager.addRequestsBatched([`${A}/1`, `${A}/2`, `${A}/3`, `${B}/1`]);

    expect(await drain(manager)).toEqual([`${A}/1`, `${B}/1`]);
    expect(manager.parkedByHost()).toEqual(new Map([['a.test', 2]]));
    expect(await manager.isEmpty()).toBe(true);
    expect(await manager.isFinished()).toBe(false);

    clock.advance(999);
    expect(await manager.isEmpty()).toBe(true);
    clock.advance(1);
    expect(await manager.isEmpty()).toBe(false);
    expect(await drain(manager)).toEqual([`${A}/2`]);
    clock.advance(1000);
    expect(await drain(manager)).toEqual([`${A}/3`]);
    expect(await manager.isFinished()).toBe(true);
  });

  it('keeps first-in-first-out order per host', async () => {
    const { manager, politeness, clock } = await setup({ delayMs: 10 });
    knowAll(politeness);
    const urls = Array.from({ length: 6 }, (_, index) => `${A}/page/${index}`);
    await manager.addRequestsBatched(urls);
    const served: string[] = [];
    while (served.length < urls.length) {
      served.push(...(await drain(manager)));
      clock.advance(10);
    }
    expect(served).toEqual(urls);
  });

  it('never hands out the same request twice to concurrent callers', async () => {
    const { manager, politeness, clock } = await setup({ delayMs: 500 });
    await manager.addRequestsBatched([`${A}/1`, `${A}/2`, `${A}/3`]);
    await manager.fetchNextRequest(); // parks all three while robots.txt is "fetched"
    politeness.release(A);
    await manager.settled();
    const served: string[] = [];
    for (let round = 0; round < 3; round++) {
      const batch = (await Promise.all([1, 2, 3, 4].map(() => manager.fetchNextRequest()))).flatMap(
        (request) => (request ? [request] : []),
      );
      served.push(...batch.map((request) => request.url));
      for (const request of batch) await manager.markRequestHandled(request);
      clock.advance(500);
    }
    expect(served).toEqual([`${A}/1`, `${A}/2`, `${A}/3`]);
  });

  it('never hands out a request a concurrent call already served while it waited for the scheduler', async () => {
    const { manager, politeness, clock } = await setup({ delayMs: 1000 });
    await manager.addRequestsBatched([`${A}/1`, `${B}/1`]);
    await manager.fetchNextRequest(); // parks both while robots.txt is "fetched"
    knowAll(politeness);
    await manager.settled();
    // The scheduler answers slowly for host a, then says "not yet"; host b is always due.
    let answerA: () => void = () => {};
    const slowA = new Promise<void>((resolve) => {
      answerA = resolve;
    });
    politeness[ADAPTER_KIT].nextStart = async (decision) => {
      if (typeof decision !== 'object' || decision instanceof URL || decision.hostKey !== 'a.test') {
        return clock.now();
      }
      await slowA;
      return clock.now() + 1000;
    };
    const first = manager.fetchNextRequest(); // waits on host a
    const second = await manager.fetchNextRequest(); // serves host b meanwhile
    answerA();
    expect(second?.url).toBe(`${B}/1`);
    expect(await first).toBeNull();
    expect(manager.parkedByHost()).toEqual(new Map([['a.test', 1]]));
  });

  it('stops pulling from the queue at maxParked and then reports empty', async () => {
    const { manager, politeness } = await setup({ delayMs: 1000, maxParked: 2 });
    knowAll(politeness);
    await manager.addRequestsBatched([`${A}/1`, `${A}/2`, `${A}/3`, `${A}/4`, `${B}/1`]);
    expect(await drain(manager)).toEqual([`${A}/1`]);
    expect(manager.parkedByHost().get('a.test')).toBe(2);
    expect(await manager.isEmpty()).toBe(true);
    expect(await manager.getPendingCount()).toBe(4);
  });

  it('ignores a second copy of a parked request that the queue serves again after its lock lapsed', async () => {
    const { env } = await setup();
    const queue = env.requestQueue as unknown as InnerQueue;
    let replay: Request | null = null;
    const inner: InnerQueue = Object.assign(Object.create(queue) as InnerQueue, {
      fetchNextRequest: async () => {
        const request = replay ?? (await queue.fetchNextRequest());
        replay = null;
        return request;
      },
    });
    const { manager, politeness, clock } = await setup({ delayMs: 1000, inner });
    knowAll(politeness);
    await queue.addRequestsBatched([`${A}/1`, `${A}/2`]);
    expect(await drain(manager)).toEqual([`${A}/1`]);
    replay = await env.requestQueue.getRequest(manager.parkedRequestIds()[0] ?? '');
    expect(replay?.url).toBe(`${A}/2`);
    // The queue answered empty a moment ago; it is asked again once that answer is 500 ms old.
    clock.advance(600);
    expect(await manager.fetchNextRequest()).toBeNull();
    expect(replay).toBeNull(); // the copy was served, and passed over
    clock.advance(400);
    expect(await drain(manager)).toEqual([`${A}/2`]);
    expect(await manager.isFinished()).toBe(true);
  });

  it('isEmpty() does not spin while the queue serves only copies of a parked request: timers run, and it answers', async () => {
    // Crawlee's own suite mocks such a queue (every fetch a new Request with one id). Before the fix
    // isEmpty() asked again at once forever, a loop of promises that no timer could interrupt.
    const { env } = await setup();
    const queue = env.requestQueue as unknown as InnerQueue;
    const inner: InnerQueue = Object.assign(Object.create(queue) as InnerQueue, {
      isEmpty: async () => false,
      fetchNextRequest: async () => ({ id: 'same', url: `${A}/same`, userData: {} }) as unknown as Request,
    });
    const { manager, politeness } = await setup({ delayMs: 1000, inner, maxNapMs: 300 });
    knowAll(politeness);
    const first = await manager.fetchNextRequest(); // handed out; its host is held
    expect(first?.url).toBe(`${A}/same`);
    let timerRan = false;
    setTimeout(() => {
      timerRan = true;
    }, 0);
    expect(await manager.isEmpty()).toBe(true);
    expect(timerRan).toBe(true);
  });

  it('hands requests out when the scheduler throws, rather than losing them (the send still paces)', async () => {
    const { manager, politeness } = await setup();
    knowAll(politeness);
    politeness[ADAPTER_KIT].nextStart = () => Promise.reject(new Error('scheduler down'));
    await manager.addRequestsBatched([`${A}/1`, `${A}/2`]);
    expect(await drain(manager)).toEqual([`${A}/1`, `${A}/2`]);
  });

  it('prolongs the queue lock of parked requests well before it lapses', async () => {
    const { manager, politeness, clock, env } = await setup({ delayMs: 600_000 });
    const queue = env.requestQueue;
    queue.requestLockSecs = 60;
    const prolong = vi.spyOn(queue.client, 'prolongRequestLock');
    knowAll(politeness);
    const { addedRequests } = await queue.addRequestsBatched([`${A}/1`, `${A}/2`]);
    expect(await drain(manager)).toEqual([`${A}/1`]);
    prolong.mockClear();

    clock.advance(29_000);
    await manager.isEmpty();
    expect(prolong).not.toHaveBeenCalled();
    // Sweeps run at most every quarter of the lock time and renew locks older than half of it.
    clock.advance(16_000);
    await manager.isEmpty();
    expect(prolong).toHaveBeenCalledExactlyOnceWith(addedRequests[1]?.requestId, { lockSecs: 60 });
  });
});

describe('PoliteRequestManager: pacing at send time', () => {
  it('hands out due hosts without reserving, one request per host until it has gone out', async () => {
    const { manager, politeness, clock } = await setup({ delayMs: 1000 });
    knowAll(politeness);
    await manager.addRequestsBatched([`${A}/1`, `${A}/2`, `${B}/1`]);

    const a1 = await manager.fetchNextRequest();
    expect(a1?.url).toBe(`${A}/1`);
    // Host a is due, but its first request has not gone out: b is served, a's second waits.
    expect((await manager.fetchNextRequest())?.url).toBe(`${B}/1`);
    expect(await manager.fetchNextRequest()).toBeNull();
    expect(await manager.isEmpty()).toBe(true);
    expect(politeness.reservations).toEqual([]);

    await sendHook(politeness, manager, `${A}/1`);
    // Gone out: the next one waits for the delay from that start, parked, no slot held.
    expect(await manager.fetchNextRequest()).toBeNull();
    clock.advance(999);
    expect(await manager.isEmpty()).toBe(true);
    clock.advance(1);
    expect(await manager.isEmpty()).toBe(false);
    expect((await manager.fetchNextRequest())?.url).toBe(`${A}/2`);
  });

  it('frees the host when the request is handled or given back without going out, a delay later', async () => {
    const { manager, politeness, clock } = await setup({ delayMs: 1000 });
    knowAll(politeness);
    await manager.addRequestsBatched([`${A}/1`, `${A}/2`, `${A}/3`]);
    const first = await manager.fetchNextRequest();
    expect(await manager.fetchNextRequest()).toBeNull();
    // It may have gone out by other means, unreserved: the host keeps a full delay from now.
    await manager.markRequestHandled(first as Request);
    await manager.settled();
    expect(await manager.fetchNextRequest()).toBeNull();
    clock.advance(1000);
    const second = await manager.fetchNextRequest();
    expect(second?.url).toBe(`${A}/2`);
    await manager.reclaimRequest(second as Request);
    await manager.settled();
    clock.advance(1000);
    expect((await manager.fetchNextRequest())?.url).toBe(`${A}/3`);
    expect(politeness.reservations).toEqual([]);
    expect(politeness.penalties).toEqual([
      { host: 'a.test', ms: 1000 },
      { host: 'a.test', ms: 1000 },
    ]);
  });

  it('holds a host until its request went out, however long that takes (no deadline of its own)', async () => {
    const { manager, politeness, clock } = await setup({ delayMs: 1000 });
    knowAll(politeness);
    await manager.addRequestsBatched([`${A}/1`, `${A}/2`]);
    expect((await manager.fetchNextRequest())?.url).toBe(`${A}/1`);
    clock.advance(600_000);
    expect(await manager.fetchNextRequest()).toBeNull();
    expect(await manager.isFinished()).toBe(false);
    await sendHook(politeness, manager, `${A}/1`);
    clock.advance(1000);
    expect((await manager.fetchNextRequest())?.url).toBe(`${A}/2`);
  });
});

describe('PoliteRequestManager: waking the pool when a host comes due', () => {
  it('isEmpty() naps while only a parked host remains, and answers as soon as a request is added', async () => {
    // The nap is a real timer (up to maxNapMs); what is asserted is the answer, never how long it took.
    const { manager, politeness } = await setup({ delayMs: 1000, maxNapMs: 5_000 });
    knowAll(politeness);
    await manager.addRequestsBatched([`${A}/1`, `${A}/2`]);
    const first = await manager.fetchNextRequest();
    await sendHook(politeness, manager, `${A}/1`);
    await manager.markRequestHandled(first as Request);
    expect(await manager.fetchNextRequest()).toBeNull();
    const answer = manager.isEmpty();
    await manager.addRequestsBatched([`${B}/1`]);
    expect(await answer).toBe(false);
    expect((await manager.fetchNextRequest())?.url).toBe(`${B}/1`);
  });

  it('isEmpty() naps while a parked request waits for its robots.txt, and answers once it is decided', async () => {
    const { manager, politeness } = await setup({ maxNapMs: 5_000 });
    await manager.addRequestsBatched([`${A}/one`]);
    expect(await manager.fetchNextRequest()).toBeNull(); // parked until its robots.txt is in
    const answer = manager.isEmpty();
    await new Promise((resolve) => setTimeout(resolve, 20)); // the nap is under way (a floor, not a bound)
    politeness.release(A);
    expect(await answer).toBe(false);
    expect(await drain(manager)).toEqual([`${A}/one`]);
  });
});

describe('PoliteRequestManager: polling the wrapped queue', () => {
  it('reuses an "empty" answer of the wrapped queue briefly, but not past an add through the wrapper', async () => {
    const { manager, politeness, clock, env } = await setup();
    knowAll(politeness);
    expect(await manager.isEmpty()).toBe(true);
    // Another client adds straight to the wrapped queue: seen once the short reuse window is over.
    await env.requestQueue.addRequest({ url: `${B}/elsewhere` });
    expect(await manager.isEmpty()).toBe(true);
    clock.advance(500);
    expect(await manager.isEmpty()).toBe(false);
    expect(await drain(manager)).toEqual([`${B}/elsewhere`]);
    expect(await manager.isEmpty()).toBe(true);
    // An add through the wrapper is seen at once.
    await manager.addRequestsBatched([`${A}/new`]);
    expect(await manager.isEmpty()).toBe(false);
  });
});

describe('PoliteRequestManager: enqueue pre-filter', () => {
  it('drops URLs whose cached rules disallow them and warms robots.txt once per unknown origin', async () => {
    const { manager, politeness, skips, crawleeSkips, env } = await setup();
    politeness.release(A);
    await manager.addRequestsBatched([`${A}/private/1`, `${A}/ok`, `${B}/1`, `${B}/2`]);

    expect(crawleeSkips).toEqual([{ url: `${A}/private/1`, reason: 'robotsTxt' }]);
    expect(skips.map((skip) => skip.stage)).toEqual(['enqueue']);
    expect(politeness.prefetches).toEqual([`${B}/1`]);
    expect(await env.requestQueue.getTotalCount()).toBe(3);
  });

  it('a throwing onSkippedRequest is logged, and the crawl goes on', async () => {
    const { env, politeness } = await setup();
    const warning = vi.spyOn(env.log, 'warning');
    const reporter = new Reporter({
      politeness,
      log: env.log,
      onSkippedRequest: () => {
        throw new Error('user bug');
      },
    });
    const manager = new PoliteRequestManager({
      politeness,
      openInner: async () => env.requestQueue as unknown as InnerQueue,
      reporter,
      log: env.log,
      maxParked: 10,
      filterOnEnqueue: true,
      now: Date.now,
    });
    knowAll(politeness);
    await manager.addRequestsBatched([`${A}/private`, `${A}/ok`]);
    expect(await drain(manager)).toEqual([`${A}/ok`]);
    expect(warning).toHaveBeenCalledWith(
      expect.stringContaining('onSkippedRequest threw'),
      expect.anything(),
    );
  });
});
