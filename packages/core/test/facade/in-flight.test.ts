/**
 * `maxConcurrentPerHost` through the facade: the adapter kit's `pass(decision)` caps the requests in flight
 * to the decision's host with the option's limit, waits at most `maxWaitMs` (the option's unless
 * the call gives one), refuses disallowed decisions, and works with a custom scheduler that has no
 * in-flight support of its own. Fake clock: robots.txt comes from a fetch that answers at once.
 */
import { describe, expect, it } from 'vitest';
import { mergeOptions, type OptionOverrides } from '../../../../test/helpers/options.js';
import {
  createPoliteness,
  type Decision,
  type FetchLike,
  isClosedError,
  isRobotsDisallowedError,
  isWaitTooLongError,
  type Politeness,
} from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
import type { Scheduler } from '../../src/public/scheduler.js';
import { createMemoryScheduler } from '../../src/schedule/memory-scheduler.js';
import { createFakeClock, type FakeClock } from '../schedule/fake-clock.js';

const robots: FetchLike = async () => new Response('User-agent: *\nDisallow: /private\n', { status: 200 });

function polite(clock: FakeClock, options: OptionOverrides = {}): Politeness {
  return createPoliteness(
    mergeOptions(
      {
        userAgent: 'InFlightBot/1.0',
        pacing: { minDelayMs: 0 },
        logger: false,
        robots: { fetch: robots },
        clock,
      },
      options,
    ),
  );
}

/**
 * Takes `count` passes at once; the array fills as their places are granted. A pass still waiting
 * when the test closes the instance ends with ClosedError, as close() promises.
 */
function acquireAll(politeness: Politeness, decision: Decision, count: number) {
  const granted: Array<{ release(): void }> = [];
  const all = Array.from({ length: count }, () =>
    adapterKit(politeness)
      .pass(decision)
      .then(
        (lease) => {
          granted.push(lease);
          return lease;
        },
        (error: unknown) => {
          if (!isClosedError(error)) throw error;
        },
      ),
  );
  return { granted, all };
}

describe('the kit pass: a place among the host requests in flight', () => {
  it('holds one request per host in flight by default, and hands the place on when it is released', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    const decision = await politeness.check('http://site.test/a');
    const { granted, all } = acquireAll(politeness, decision, 3);
    await clock.advance(0);
    expect(granted).toHaveLength(1);
    granted[0]?.release();
    await clock.advance(0);
    expect(granted).toHaveLength(2);
    // Another host is not held back.
    const other = await adapterKit(politeness).pass(await politeness.check('http://other.test/a'), {
      inFlightMaxWaitMs: 0,
    });
    other.release();
    for (const lease of granted) lease.release();
    await Promise.all(all);
    await politeness.close();
  });

  it('takes its limit from maxConcurrentPerHost', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { pacing: { maxConcurrentPerHost: 3 } });
    const decision = await politeness.check('http://site.test/a');
    const { granted } = acquireAll(politeness, decision, 5);
    await clock.advance(0);
    expect(granted).toHaveLength(3);
    for (const lease of granted) lease.release();
    await politeness.close();
  });

  it('waits at most the maxWaitMs option, then rejects with WaitTooLongError holding nothing', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { pacing: { maxWaitMs: 500 } });
    const decision = await politeness.check('http://site.test/a');
    const held = await adapterKit(politeness).pass(decision);
    const waiting = adapterKit(politeness)
      .pass(decision)
      .catch((error: unknown) => error);
    await clock.advance(499);
    await clock.advance(1);
    const error = await waiting;
    expect(isWaitTooLongError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'ERR_WAIT_TOO_LONG', maxWaitMs: 500 });
    held.release();
    (await adapterKit(politeness).pass(decision, { inFlightMaxWaitMs: 0 })).release();
    await politeness.close();
  });

  it('refuses a disallowed decision with RobotsDisallowedError', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    const decision = await politeness.check('http://site.test/private/x');
    const error = await adapterKit(politeness)
      .pass(decision)
      .catch((e: unknown) => e);
    expect(isRobotsDisallowedError(error)).toBe(true);
    await politeness.close();
  });

  it('caps in-process when a custom scheduler has no in-flight support', async () => {
    const clock = createFakeClock();
    const memory = createMemoryScheduler({ clock });
    const custom: Scheduler = {
      kind: 'custom',
      reserve: (host, delayMs, options) => memory.reserve(host, delayMs, options),
      tryReserve: (host, delayMs) => memory.tryReserve(host, delayMs),
      penalize: (host, ms) => memory.penalize(host, ms),
      close: () => memory.close(),
    };
    const politeness = polite(clock, { scheduler: custom });
    const decision = await politeness.check('http://site.test/a');
    const { granted } = acquireAll(politeness, decision, 2);
    await clock.advance(0);
    expect(granted).toHaveLength(1);
    for (const lease of granted) lease.release();
    await politeness.close();
  });

  it('lifts the cap with Infinity, and rejects a limit that is not an integer >= 1', () => {
    const clock = createFakeClock();
    expect(() => polite(clock, { pacing: { maxConcurrentPerHost: Number.POSITIVE_INFINITY } })).not.toThrow();
    for (const bad of [0, -1, 1.5, Number.NaN, '2', null]) {
      expect(() => polite(clock, { pacing: { maxConcurrentPerHost: bad as never } })).toThrow(
        /maxConcurrentPerHost/,
      );
    }
  });
});
