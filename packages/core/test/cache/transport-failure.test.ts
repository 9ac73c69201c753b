/**
 * robots.txt that fails at the transport (no answer) against one that answers 5xx: the page is
 * refused either way (RFC 9309 2.3.1.4), but a transport failure is the client's trouble as often as
 * the site's, so the first is not kept (the caller's retry asks again), then 1 s doubling up to
 * `unreachableRetryMs`; its code is on the decision, and `robotsTransportError` fails with it.
 */
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
