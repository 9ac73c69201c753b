/**
 * `adapterKit(politeness).pass(decision)`: an adapter's one way through a host's schedule. What a user of an
 * adapter sees is when each request may start; so the tests take passes on the memory scheduler with
 * a fake clock and assert the clock's time at which each pass opens, after what the previous one
 * reported. robots.txt comes from a fetch that answers at once.
 */

import { describe, expect, it } from 'vitest';
import type { OptionOverrides } from '../../../../test/helpers/options.js';
import {
  type Decision,
  isRobotsDisallowedError,
  isWaitTooLongError,
  type Politeness,
} from '../../src/index.js';
import { adapterKit, type SendPass, withoutSafetyMargin } from '../../src/public/adapter.js';
import { createMemoryScheduler } from '../../src/public/scheduler.js';
import { createFakeClock, type FakeClock } from '../schedule/fake-clock.js';
import { pastRobotsTxt, politeOnClock } from './fake-clock-politeness.js';

const polite = (clock: FakeClock, options: OptionOverrides = {}): Politeness =>
  politeOnClock('PassBot/1.0', clock, options);

/** The pass once it opens, and the fake clock's time (ms after `origin`) when it did. */
function opening(clock: FakeClock, origin: number, pass: Promise<SendPass>) {
  const seen: { pass?: SendPass; atMs?: number; error?: unknown } = {};
  pass.then(
    (opened) => {
      seen.pass = opened;
      seen.atMs = clock.now() - origin;
    },
    (error: unknown) => {
      seen.error = error;
    },
  );
  return seen;
}

describe('Politeness.sendPass', () => {
  it('paces by the delay asked when the send is reported, and keeps core margin otherwise', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const decision = await politeness.check('http://site.test/a');
    // Crawl-delay 1 s: asked 1000 ms, paced 1050 ms with the margin for sends nobody reports.
    expect(decision).toMatchObject({ askedDelayMs: 1000, delayMs: 1050 });
    const origin = clock.now();

    // Not reported: the host's next slot is the margin-paced one.
    const first = await adapterKit(politeness).pass(decision);
    expect(first.decision.delayMs).toBe(1050);
    first.release();
    const second = opening(clock, origin, adapterKit(politeness).pass(decision, { sendReported: true }));
    await clock.advance(1049);
    expect(second.pass).toBeUndefined();
    await clock.advance(1);
    expect(second.atMs).toBe(1050);
    expect(second.pass?.decision.delayMs).toBe(1000);
    await second.pass?.sent();
    second.pass?.release();

    const third = opening(clock, origin, adapterKit(politeness).pass(decision, { sendReported: true }));
    await clock.advance(999);
    expect(third.pass).toBeUndefined();
    await clock.advance(1);
    expect(third.atMs).toBe(2050);
    third.pass?.release();
  });

  it('keeps the margin for a request that overlaps another one whose send is not reported yet', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { pacing: { maxConcurrentPerHost: 3 } });
    await pastRobotsTxt(politeness, clock);
    const decision = await politeness.check('http://site.test/a');
    const first = await adapterKit(politeness).pass(decision, { sendReported: true });
    expect(first.decision.delayMs).toBe(1000);
    const overlapping = opening(
      clock,
      clock.now(),
      adapterKit(politeness).pass(decision, { sendReported: true }),
    );
    await clock.advance(1000);
    expect(overlapping.pass?.decision.delayMs).toBe(1050);
    await first.sent();
    await overlapping.pass?.sent();
    // The overlapping request's slot (1000) and send (1000), paced with the margin: next at 2050.
    const after = opening(
      clock,
      clock.now() - 1000,
      adapterKit(politeness).pass(decision, { sendReported: true }),
    );
    await clock.advance(1050);
    expect(after.atMs).toBe(2050);
    expect(after.pass?.decision.delayMs).toBe(1000);
    for (const pass of [first, overlapping.pass, after.pass]) pass?.release();
  });

  it('counts the next start from the moment sent() reports, not from the slot', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const decision = await politeness.check('http://site.test/a');
    const origin = clock.now();
    const first = await adapterKit(politeness).pass(decision, { sendReported: true });
    // The request really left 300 ms after its slot (connection setup, a slow client).
    await clock.advance(300);
    await first.sent(clock.now());
    first.release();
    const next = opening(clock, origin, adapterKit(politeness).pass(decision, { sendReported: true }));
    await clock.advance(999);
    expect(next.pass).toBeUndefined();
    await clock.advance(1);
    expect(next.atMs).toBe(1300);
    next.pass?.release();
  });

  it('backs the host off by Retry-After on a 429, and on any other status that carries one', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const decision = await politeness.check('http://site.test/a');
    const origin = clock.now();
    // No Retry-After on a 200: nothing beyond the delay.
    const ok = await adapterKit(politeness).pass(decision, { sendReported: true });
    expect(await ok.answered(200, null, 12)).toBeUndefined();
    await ok.sent();
    ok.release();

    const throttled = opening(clock, origin, adapterKit(politeness).pass(decision, { sendReported: true }));
    await clock.advance(1000);
    expect(throttled.atMs).toBe(1000);
    expect(await throttled.pass?.answered(429, '5')).toBe(5000);
    throttled.pass?.release();

    const after = opening(clock, origin, adapterKit(politeness).pass(decision, { sendReported: true }));
    await clock.advance(4999);
    expect(after.pass).toBeUndefined();
    await clock.advance(1);
    expect(after.atMs).toBe(6000);
    // A 403 saying when to come back (GitHub's rate limit) is a backoff too.
    expect(await after.pass?.answered(403, '30')).toBe(30_000);
    after.pass?.release();

    const later = opening(clock, origin, adapterKit(politeness).pass(decision, { sendReported: true }));
    await clock.advance(29_999);
    expect(later.pass).toBeUndefined();
    await clock.advance(1);
    expect(later.atMs).toBe(36_000);
    later.pass?.release();
    expect(politeness.stats().backoffs).toBe(2);
  });

  it('slows the host after a timeout or a dropped connection, and not after any other failure', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const decision = await politeness.check('http://site.test/a');
    const pace = (d: Decision) => adapterKit(politeness).paceMs(d);
    const pass = await adapterKit(politeness).pass(decision, { sendReported: true });
    await pass.failed(new TypeError('Invalid header value'));
    expect(pace(decision)).toBe(1050);
    await pass.failed(
      new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }),
    );
    expect(pace(decision)).toBeGreaterThan(1050);
    pass.release();
  });

  it('holds the host in-flight place until release, which gives it back once however often it is called', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { robots: { fetch: async () => new Response('', { status: 404 }) } });
    const decision = await politeness.check('http://site.test/a');
    const first = await adapterKit(politeness).pass(decision);
    const second = opening(clock, clock.now(), adapterKit(politeness).pass(decision));
    const third = opening(clock, clock.now(), adapterKit(politeness).pass(decision));
    await clock.advance(0);
    expect(second.pass).toBeUndefined();
    first.release();
    first.release();
    await clock.advance(0);
    expect(second.pass).toBeDefined();
    expect(third.pass).toBeUndefined();
    second.pass?.release();
    await clock.advance(0);
    expect(third.pass).toBeDefined();
    third.pass?.release();
  });

  it('refuses a disallowed decision, and holds nothing after a slot too far away', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const refused = await politeness.check('http://site.test/private/x');
    await expect(adapterKit(politeness).pass(refused)).rejects.toSatisfy(isRobotsDisallowedError);

    const decision = await politeness.check('http://site.test/a');
    const first = await adapterKit(politeness).pass(decision, { sendReported: true });
    await first.sent();
    first.release();
    await expect(adapterKit(politeness).pass(decision, { maxWaitMs: 500 })).rejects.toSatisfy(
      isWaitTooLongError,
    );
    // The refused pass gave its in-flight place back: a pass that may wait takes it.
    const later = opening(
      clock,
      clock.now(),
      adapterKit(politeness).pass(decision, { inFlightMaxWaitMs: 0 }),
    );
    await clock.advance(1000);
    expect(later.error).toBeUndefined();
    expect(later.pass).toBeDefined();
    later.pass?.release();
  });

  it('observeResponse never rejects when the scheduler fails to set the backoff: it resolves undefined', async () => {
    const clock = createFakeClock();
    const scheduler = createMemoryScheduler({ clock });
    const politeness = polite(clock, { scheduler });
    const decision = await politeness.check('http://site.test/a');
    const working = scheduler.penalize;
    scheduler.penalize = () => Promise.reject(new Error('scheduler down'));
    await expect(politeness.observeResponse(decision.url, 429, '5')).resolves.toBeUndefined();
    await expect(politeness.observeResponse(decision.url, 0)).resolves.toBeUndefined();
    // Nothing was set, so nothing is counted as a backoff; a working scheduler backs off again.
    expect(politeness.stats().backoffs).toBe(0);
    scheduler.penalize = working;
    await expect(politeness.observeResponse(decision.url, 429, '5')).resolves.toBe(5000);
    // A URL no robots.txt speaks for is the documented rejection.
    await expect(politeness.observeResponse('ftp://site.test/a', 429, '5')).rejects.toThrow(TypeError);
  });

  it('never rejects a report when the scheduler fails', async () => {
    const clock = createFakeClock();
    // The caller's own scheduler, so the test can make it fail once the pass is open.
    const scheduler = createMemoryScheduler({ clock });
    // Latency pacing on (2, the default), which politeOnClock turns off: the signals reach the scheduler.
    const failing = polite(clock, { pacing: { latencyFactor: 2 }, scheduler });
    await pastRobotsTxt(failing, clock);
    const decision = await failing.check('http://site.test/a');
    const pass = await adapterKit(failing).pass(decision, { sendReported: true });
    scheduler.penalize = () => Promise.reject(new Error('scheduler down'));
    await expect(pass.sent()).resolves.toBeUndefined();
    await expect(pass.answered(429, '5')).resolves.toBeUndefined();
    await expect(
      pass.failed(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
    ).resolves.toBeUndefined();
    pass.release();
  });
});

describe('withoutSafetyMargin', () => {
  it('paces by the delay asked, and leaves a decision without a margin as it is', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    const decision = await politeness.check('http://site.test/a');
    expect(withoutSafetyMargin(decision)).toEqual({ ...decision, delayMs: 1000 });
    const { askedDelayMs: _asked, ...bare } = decision;
    expect(withoutSafetyMargin(bare)).toBe(bare);
  });
});
