/**
 * robots.txt that fails at the transport (no answer) against one that answers 5xx: the page is
 * refused either way (RFC 9309 2.3.1.4), but a transport failure is the client's trouble as often as
 * the site's, so the first is not kept (the caller's retry asks again), then 1 s doubling up to
 * `unreachableRetryMs`; its code is on the decision, and `robotsTransportError` fails with it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { type FetchLike, getDisallowedDecision } from '../../src/index.js';
import { robotsTransportError } from '../../src/public/adapter.js';
import { politeOnClock } from '../facade/fake-clock-politeness.js';
import { createFakeClock } from '../schedule/fake-clock.js';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });

function site(answer: () => Promise<Response>) {
  const asked: number[] = [];
  const clock = createFakeClock();
  const fetch: FetchLike = async () => {
    asked.push(clock.now());
    return answer();
  };
  const politeness = politeOnClock('TransportBot/1.0', clock, {
    robots: { fetch, unreachableRetryMs: 4000 },
  });
  return { politeness, clock, asked };
}

describe('robots.txt unreachable at the transport', () => {
  it('is refused with its code; the first failure is not kept, then 1 s doubling up to unreachableRetryMs', async () => {
    const { politeness, clock, asked } = site(() => Promise.reject(refused()));
    const first = await politeness.check('http://dead.test/page');
    expect(first).toMatchObject({
      allowed: false,
      reason: 'unreachable',
      robots: { status: 0, code: 'ECONNREFUSED' },
    });
    const error = robotsTransportError(first);
    expect(error?.code).toBe('ECONNREFUSED');
    expect(getDisallowedDecision(error)).toEqual(first);
    // The retry asks robots.txt again at once, then waits 1 s, 2 s, 4 s (the bound), 4 s.
    const start = clock.now();
    const gaps: number[] = [];
    for (const wait of [0, 999, 1, 1999, 1, 4000, 4000]) {
      await clock.advance(wait);
      const before = asked.length;
      await politeness.check('http://dead.test/page');
      if (asked.length > before) gaps.push(clock.now() - start);
    }
    expect(gaps).toEqual([0, 1000, 3000, 7000, 11000]);
  });

  it('a 503 keeps RFC 9309 backoff: kept unreachableRetryMs, with no transport code', async () => {
    const { politeness, clock, asked } = site(async () => new Response('down', { status: 503 }));
    const decision = await politeness.check('http://down.test/page');
    expect(decision).toMatchObject({ allowed: false, reason: 'unreachable', robots: { status: 503 } });
    expect(decision.robots?.code).toBeUndefined();
    expect(robotsTransportError(decision)).toBeUndefined();
    await clock.advance(3999);
    await politeness.check('http://down.test/page');
    expect(asked).toHaveLength(1);
  });
});

describe('robots.route: a failure without an answer holds only its own route (issue 40.7)', () => {
  /** robots.txt fetched through the route the checking caller goes by; `dead` routes never answer. */
  function routedSite(dead: Set<string>) {
    const clock = createFakeClock();
    const current = new AsyncLocalStorage<string>();
    const asked: string[] = [];
    const fetch: FetchLike = async () => {
      const route = current.getStore() ?? 'none';
      asked.push(route);
      if (dead.has(route)) throw refused();
      return new Response('User-agent: *\nAllow: /\n');
    };
    const politeness = politeOnClock('RouteBot/1.0', clock, {
      robots: { fetch, route: () => current.getStore() },
    });
    const checkVia = (route: string | undefined, url = 'http://shop.test/page') =>
      route === undefined ? politeness.check(url) : current.run(route, () => politeness.check(url));
    return { checkVia, asked, clock };
  }

  it('a request through another route asks again through it, within the hold', async () => {
    const { checkVia, asked } = routedSite(new Set(['dead-1', 'dead-2']));
    // Two failures in a row through dead proxies: the second would hold the origin for 1 s.
    expect(await checkVia('dead-1')).toMatchObject({ allowed: false, robots: { code: 'ECONNREFUSED' } });
    expect(await checkVia('dead-2')).toMatchObject({ allowed: false, robots: { code: 'ECONNREFUSED' } });
    // The same route, at once: held, not asked again (a dead host is not asked on every request).
    expect(await checkVia('dead-2')).toMatchObject({ allowed: false, robots: { code: 'ECONNREFUSED' } });
    expect(asked).toEqual(['dead-1', 'dead-2']);
    // A caller with no route of its own (a queue's look) takes the hold as it stands.
    expect(await checkVia(undefined)).toMatchObject({ allowed: false, reason: 'unreachable' });
    // The retry through a live proxy is not held by the dead one's failure: it asks, and is allowed.
    expect(await checkVia('live')).toMatchObject({ allowed: true });
    expect(asked).toEqual(['dead-1', 'dead-2', 'live']);
    // Rules that came through any route hold for every route.
    expect(await checkVia('dead-1')).toMatchObject({ allowed: true });
    expect(asked).toHaveLength(3);
  });

  it('without robots.route, the hold stands for every request', async () => {
    const clock = createFakeClock();
    const asked: number[] = [];
    const politeness = politeOnClock('RouteBot/1.0', clock, {
      robots: {
        fetch: async () => {
          asked.push(clock.now());
          throw refused();
        },
      },
    });
    await politeness.check('http://shop.test/a');
    await politeness.check('http://shop.test/b');
    await politeness.check('http://shop.test/c');
    expect(asked).toHaveLength(2);
  });

  it('a caller joining a flight that failed through another route asks once more through its own', async () => {
    const { checkVia, asked } = routedSite(new Set(['dead-1']));
    await checkVia('dead-1'); // the first failure, not held
    const [dead, live] = await Promise.all([checkVia('dead-1'), checkVia('live')]);
    expect(dead).toMatchObject({ allowed: false, robots: { code: 'ECONNREFUSED' } });
    expect(live).toMatchObject({ allowed: true });
    expect(asked).toEqual(['dead-1', 'dead-1', 'live']);
  });
});
