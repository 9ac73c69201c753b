/**
 * Latency-aware pacing through the facade, on a fake clock: what the adapters report with
 * `observeResponse(url, status, retryAfter, { latencyMs })` moves the spacing reservations get, with
 * a `pace-changed` event saying why; hosts stay independent; the asked delay stays the floor.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { internalOptions } from '../../../../test/helpers/options.js';
import { createPoliteness, type PolitelyEvent, type Politeness } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
import { createFakeClock } from '../schedule/fake-clock.js';
import { starts } from './reserve-starts.js';

const instances: Politeness[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
});

const ROBOTS_OK = new Response('User-agent: *\nAllow: /\n', { status: 200 });

function setUp(options: { latencyFactor?: number; maxDelayMs?: number } = {}) {
  const clock = createFakeClock();
  const events: PolitelyEvent[] = [];
  const p = createPoliteness(
    internalOptions({
      userAgent: 'SignalBot/1.0',
      pacing: { minDelayMs: 1000, ...options },
      logger: false,
      clock,
      robots: { fetch: async () => ROBOTS_OK.clone() },
      onEvent: (event) => {
        if (event.type === 'pace-changed') events.push(event);
      },
    }),
  );
  instances.push(p);
  return { p, clock, events };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] ?? 0));

describe('latency-aware pacing (fake clock)', () => {
  it('a host answering in 800 ms is paced at 2 x 800 = 1600 ms, above minDelayMs', async () => {
    const { p, clock } = setUp();
    const decision = await p.check('http://slow.test/a');
    expect(adapterKit(p).paceMs(decision)).toBe(decision.delayMs);
    for (let i = 0; i < 3; i++) await p.observeResponse('http://slow.test/a', 200, null, { latencyMs: 800 });
    expect(adapterKit(p).paceMs(decision)).toBe(1600);
    const times = await starts(p, clock, decision, 3);
    for (const gap of gaps(times)) expect(gap).toBeGreaterThanOrEqual(1600);
  });

  it('a fast host keeps exactly the asked delay, and hosts do not slow each other', async () => {
    const { p, clock } = setUp();
    const slow = await p.check('http://slow.test/a');
    const fast = await p.check('http://fast.test/a');
    await p.observeResponse('http://slow.test/a', 200, null, { latencyMs: 3000 });
    await p.observeResponse('http://fast.test/a', 200, null, { latencyMs: 3 });
    expect(adapterKit(p).paceMs(fast)).toBe(fast.delayMs);
    expect(adapterKit(p).paceMs(slow)).toBe(6000);
    const times = await starts(p, clock, fast, 3);
    for (const gap of gaps(times)) {
      expect(gap).toBeGreaterThanOrEqual(fast.delayMs);
      expect(gap).toBeLessThan(fast.delayMs + 20);
    }
  });

  it('5xx slows the host and says so; good responses relax it, with a "recovered" event', async () => {
    const { p, events } = setUp();
    const decision = await p.check('http://flaky.test/a');
    const base = decision.delayMs;
    await p.observeResponse('http://flaky.test/a', 500, null, { latencyMs: 5 });
    await p.observeResponse('http://flaky.test/a', 503, null, { latencyMs: 5 });
    expect(adapterKit(p).paceMs(decision)).toBe(base * 4);
    expect(events[0]).toMatchObject({ type: 'pace-changed', host: 'flaky.test', reason: 'errors' });
    expect(events.at(-1)).toMatchObject({ fromMs: base * 2, toMs: base * 4, reason: 'errors', penalty: 4 });
    for (let i = 0; i < 10; i++) await p.observeResponse('http://flaky.test/a', 200, null, { latencyMs: 5 });
    expect(adapterKit(p).paceMs(decision)).toBe(base);
    expect(events.at(-1)).toMatchObject({ reason: 'recovered', toMs: base, penalty: 1 });
  });

  it('a timeout or failed connection (status 0) counts as an error', async () => {
    const { p } = setUp();
    const decision = await p.check('http://down.test/a');
    await p.observeResponse('http://down.test/a', 0);
    expect(adapterKit(p).paceMs(decision)).toBe(decision.delayMs * 2);
  });

  it('a latency change is reported once it moves the delay by 25% or more, with the latency', async () => {
    const { p, events } = setUp();
    const decision = await p.check('http://climb.test/a');
    expect(adapterKit(p).paceMs(decision)).toBe(decision.delayMs);
    for (let i = 0; i < 10; i++)
      await p.observeResponse('http://climb.test/a', 200, null, { latencyMs: 1000 });
    const latencyEvents = events.filter((e) => e.type === 'pace-changed' && e.reason === 'latency');
    expect(latencyEvents.length).toBeGreaterThan(0);
    const last = latencyEvents.at(-1);
    expect(last).toMatchObject({ host: 'climb.test', penalty: 1 });
    expect(last && 'latencyMs' in last && last.latencyMs).toBeGreaterThan(500);
  });

  it('markSent spaces the next start by the raised delay too', async () => {
    const { p, clock } = setUp();
    const decision = await p.check('http://slow.test/a');
    await p.observeResponse('http://slow.test/a', 200, null, { latencyMs: 2000 });
    await starts(p, clock, decision, 1);
    // The request really went out 500 ms after its slot (a slow connection): spacing counts from there.
    await clock.advance(500);
    await adapterKit(p).markSent(decision);
    const next = await adapterKit(p).tryReserve(decision);
    expect(next).toMatchObject({ ok: false });
    expect(next.ok === false && next.notBefore - clock.now()).toBe(4000);
  });

  it('maxDelayMs caps what signals may ask; latencyFactor 0 ignores latency', async () => {
    const capped = setUp({ maxDelayMs: 3000 });
    const d1 = await capped.p.check('http://slow.test/a');
    await capped.p.observeResponse('http://slow.test/a', 200, null, { latencyMs: 10_000 });
    expect(adapterKit(capped.p).paceMs(d1)).toBe(3000);
    const off = setUp({ latencyFactor: 0 });
    const d2 = await off.p.check('http://slow.test/a');
    await off.p.observeResponse('http://slow.test/a', 200, null, { latencyMs: 10_000 });
    expect(adapterKit(off.p).paceMs(d2)).toBe(d2.delayMs);
  });
});
