/**
 * Issue 25 point 5: close() closes. Every caller still waiting when it is called (a pacing slot, a
 * place in flight, robots.txt) rejects with ClosedError (ERR_CLOSED) at once, with no time passing on
 * the fake clock, and every later call is refused the same way: an adapter never sends after close.
 * Before, 10 callers waiting for a slot were all granted over the following 10 s and in-flight waiters
 * were rejected only at maxWaitMs.
 */

import { describe, expect, it } from 'vitest';
import { type FetchLike, isClosedError } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
import type { Scheduler } from '../../src/public/scheduler.js';
import { createMemoryScheduler } from '../../src/schedule/memory-scheduler.js';
import { createFakeClock } from '../schedule/fake-clock.js';
import { pastRobotsTxt, politeOnClock } from './fake-clock-politeness.js';

const UA = 'CloseBot/1.0 (+https://example.test/bot)';
const closedError = (error: unknown) => isClosedError(error) && (error as Error).name === 'ClosedError';

describe('close()', () => {
  it('rejects 10 callers waiting for a slot with ClosedError at once, and nothing is granted after', async () => {
    const clock = createFakeClock();
    const politeness = politeOnClock(UA, clock);
    await pastRobotsTxt(politeness, clock, 'https://shop.test/item/0');
    const decision = await politeness.check('https://shop.test/item/0');
    await politeness.admit(decision.url);
    const granted: number[] = [];
    const waiting = Array.from({ length: 10 }, (_, i) =>
      politeness.admit(decision.url).then(
        () => granted.push(i),
        (error: unknown) => error,
      ),
    );
    await clock.advance(10);
    await politeness.close();
    const outcomes = await Promise.all(waiting);
    expect(outcomes.every(closedError)).toBe(true);
    await clock.advance(20_000);
    expect(granted).toEqual([]);
    expect(clock.pendingSleeps).toBe(0);
    // Every later call is refused too: an adapter gets ClosedError, never a pass to send with.
    await expect(politeness.check('https://shop.test/item/1')).rejects.toMatchObject({ code: 'ERR_CLOSED' });
    await expect(politeness.admit(decision.url)).rejects.toMatchObject({ code: 'ERR_CLOSED' });
    await expect(adapterKit(politeness).pass(decision)).rejects.toMatchObject({ code: 'ERR_CLOSED' });
    await expect(adapterKit(politeness).tryReserve(decision)).rejects.toMatchObject({ code: 'ERR_CLOSED' });
  });

  it('rejects callers waiting for a place in flight at once, not at maxWaitMs', async () => {
    const clock = createFakeClock();
    const politeness = politeOnClock(UA, clock, { pacing: { maxConcurrentPerHost: 1 } });
    await pastRobotsTxt(politeness, clock, 'https://shop.test/item/0');
    const decision = await politeness.check('https://shop.test/item/0');
    const pass = await adapterKit(politeness).pass(decision);
    const waiting = [0, 1, 2].map(() =>
      adapterKit(politeness)
        .pass(decision)
        .catch((error: unknown) => error),
    );
    await clock.advance(10);
    await politeness.close();
    expect((await Promise.all(waiting)).every(closedError)).toBe(true);
    pass.release();
  });

  it('rejects a check waiting for robots.txt', async () => {
    const clock = createFakeClock();
    const hanging: FetchLike = () => new Promise(() => {});
    const politeness = politeOnClock(UA, clock, { robots: { fetch: hanging } });
    const checking = politeness.check('https://slow.test/page').catch((error: unknown) => error);
    await clock.advance(10);
    await politeness.close();
    expect(closedError(await checking)).toBe(true);
  });

  it('never sends a robots.txt fetch that was waiting for its host’s slot at close()', async () => {
    const clock = createFakeClock();
    const fetched: string[] = [];
    const counting: FetchLike = async (url) => {
      fetched.push(String(url));
      return new Response('User-agent: *\nCrawl-delay: 1\n', { status: 200 });
    };
    const politeness = politeOnClock(UA, clock, { robots: { fetch: counting } });
    await pastRobotsTxt(politeness, clock, 'https://shop.test/a');
    await politeness.admit('https://shop.test/a');
    // Another origin on the same host: its robots.txt waits for the host's next slot, a second on.
    const checking = politeness.check('http://shop.test/b').catch((error: unknown) => error);
    await clock.advance(10);
    await politeness.close();
    expect(closedError(await checking)).toBe(true);
    await clock.advance(5000);
    expect(fetched).toEqual(['https://shop.test/robots.txt']);
  });

  it('rejects waiters on a scheduler of the user’s that knows nothing of closing', async () => {
    const clock = createFakeClock();
    const inner = createMemoryScheduler({ clock });
    // Only reserve and the rest: its close() leaves its sleepers asleep.
    const scheduler: Scheduler = {
      kind: 'custom',
      reserve: (host, delayMs, options) => inner.reserve(host, delayMs, options),
      tryReserve: (host, delayMs) => inner.tryReserve(host, delayMs),
      penalize: (host, ms) => inner.penalize(host, ms),
      close: async () => {},
    };
    const politeness = politeOnClock(UA, clock, { scheduler });
    await pastRobotsTxt(politeness, clock, 'https://shop.test/item/0');
    const decision = await politeness.check('https://shop.test/item/0');
    await politeness.admit(decision.url);
    const waiting = politeness.admit(decision.url).catch((error: unknown) => error);
    await clock.advance(10);
    await politeness.close();
    expect(closedError(await waiting)).toBe(true);
    await inner.close();
  });
});
