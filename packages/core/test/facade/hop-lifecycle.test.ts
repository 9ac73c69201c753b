/**
 * `openHop(kit, decision, { spacing, seesSend })`: one hop's lifecycle (sent → answered → done), the
 * rules every adapter reports through. What a user sees is when the host's next request may start,
 * whether the next one to the host gets its place in flight, and how the host's pace moves; so the
 * tests run hops on the memory scheduler with a fake clock (robots.txt asks Crawl-delay 1).
 */

import { describe, expect, it } from 'vitest';
import { STALL_MS } from '../../src/adapter/stalled-places.js';
import type { PolitelyEvent, Politeness } from '../../src/index.js';
import { adapterKit, type Hop, openHop, type Spacing } from '../../src/public/adapter.js';
import { createFakeClock, type FakeClock } from '../schedule/fake-clock.js';
import { pastRobotsTxt, politeOnClock } from './fake-clock-politeness.js';

const polite = (clock: FakeClock, options: Parameters<typeof politeOnClock>[2] = {}): Politeness =>
  politeOnClock('HopLifeBot/1.0', clock, options);

async function open(
  politeness: Politeness,
  path: string,
  spacing: Spacing,
  more: { seesSend?: boolean; ordered?: boolean; onCounted?: (at: number) => void } = {},
): Promise<Hop> {
  const kit = adapterKit(politeness);
  const decision = await politeness.check(`http://site.test${path}`);
  return openHop(kit, decision, {
    spacing,
    seesSend: more.seesSend ?? true,
    ...(more.ordered ? { ordered: true } : {}),
    ...(more.onCounted ? { onCounted: (_decision, at) => more.onCounted?.(at) } : {}),
  });
}

/** ms from `origin` to the host's next start. */
async function nextStartAfter(politeness: Politeness, origin: number): Promise<number> {
  return (await adapterKit(politeness).nextStart('http://site.test/next')) - origin;
}

/** A promise's state once the microtasks before it ran. */
function settling<T>(promise: Promise<T>) {
  const seen: { value?: T; error?: unknown; settled: boolean } = { settled: false };
  promise.then(
    (value) => Object.assign(seen, { value, settled: true }),
    (error: unknown) => Object.assign(seen, { error, settled: true }),
  );
  return seen;
}

describe('openHop: one hop lifecycle', () => {
  it("spacing 'response': the next start counts from the answer, not the send", async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    const counted: number[] = [];
    const hop = await open(politeness, '/a', 'response', { onCounted: (at) => counted.push(at) });
    await hop.sent(origin + 100);
    expect(await nextStartAfter(politeness, origin)).toBe(1000);
    await hop.answered({ status: 200, at: origin + 400 });
    await hop.done(origin + 900);
    expect(await nextStartAfter(politeness, origin)).toBe(1400);
    expect(counted).toEqual([origin + 400]);
  });

  it("spacing 'start': the next start counts from the send; the answer does not move it", async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    const hop = await open(politeness, '/a', 'start');
    await hop.sent(origin + 100);
    expect(await nextStartAfter(politeness, origin)).toBe(1100);
    await hop.answered({ status: 200, at: origin + 400 });
    await hop.done();
    expect(await nextStartAfter(politeness, origin)).toBe(1100);
  });

  it("spacing 'start': a send learnt only at the answer (a client's timings) counts, else the answer", async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    const first = await open(politeness, '/a', 'start');
    await first.answered({ status: 200, sentAt: origin + 300, at: origin + 600 });
    await first.done();
    expect(await nextStartAfter(politeness, origin)).toBe(1300);

    const opening = open(politeness, '/b', 'start');
    await clock.advance(1300);
    const second = await opening;
    await second.answered({ status: 200, at: origin + 1500 });
    await second.done();
    expect(await nextStartAfter(politeness, origin)).toBe(2500);
  });

  it('feeds the response before counting from it: a 429 backs the host off by its Retry-After', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    const hop = await open(politeness, '/a', 'response');
    expect(await hop.answered({ status: 429, retryAfter: '5', at: origin })).toBe(5000);
    await hop.done();
    expect(await nextStartAfter(politeness, origin)).toBe(5000);
  });

  it("spacing 'response': a hop sent and never answered counts from its end; never sent, it counts nothing", async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    const reset = await open(politeness, '/a', 'response');
    await reset.sent(origin + 10);
    await reset.failed(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), origin + 200);
    expect(await nextStartAfter(politeness, origin)).toBeGreaterThanOrEqual(1200);

    const clock2 = createFakeClock();
    const politeness2 = polite(clock2);
    await pastRobotsTxt(politeness2, clock2);
    const origin2 = clock2.now();
    const unsent = await open(politeness2, '/a', 'response');
    await unsent.done(origin2 + 700);
    // The adapter sees its sends and reported none: the request never left, its slot alone counts.
    expect(await nextStartAfter(politeness2, origin2)).toBe(1000);
  });

  it('an adapter that cannot see its sends (a browser): with response spacing any end counts as the answer', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    const counted: number[] = [];
    const hop = await open(politeness, '/a', 'response', {
      seesSend: false,
      onCounted: (at) => counted.push(at),
    });
    await hop.done(origin + 700);
    expect(await nextStartAfter(politeness, origin)).toBe(1700);
    expect(counted).toEqual([origin + 700]);

    // Given back before it went out (the page navigated elsewhere first): nothing counted.
    const clock2 = createFakeClock();
    const politeness2 = polite(clock2);
    await pastRobotsTxt(politeness2, clock2);
    const origin2 = clock2.now();
    const unused = await open(politeness2, '/a', 'response', { seesSend: false });
    await unused.notSent();
    expect(await nextStartAfter(politeness2, origin2)).toBe(1000);
  });

  it('the place in flight is held until done, and given back once however often the end is told', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { pacing: { maxConcurrentPerHost: 2 } });
    await pastRobotsTxt(politeness, clock);
    const first = await open(politeness, '/a', 'response');
    const opening = open(politeness, '/b', 'response');
    await clock.advance(1000);
    const second = await opening;
    const third = settling(open(politeness, '/c', 'response'));
    // Less than STALL_MS: past it, a waiter would share a stalled holder's place (stalled-places.ts).
    await clock.advance(STALL_MS - 1000);
    expect(third.settled).toBe(false);
    // A second end, a failure after the end, an answer after it: none frees another place.
    await first.done();
    await first.done();
    await first.failed(new Error('late'));
    await first.answered({ status: 200 });
    await clock.advance(5000);
    expect(third.settled).toBe(true);
    const fourth = settling(open(politeness, '/d', 'response'));
    await clock.advance(STALL_MS - 1000);
    expect(fourth.settled).toBe(false);
    await second.notSent();
    await clock.advance(5000);
    expect(fourth.settled).toBe(true);
  });

  it('a request waiting for a place shares the place of a holder stalled STALL_MS, reported; one waiter per holder', async () => {
    const clock = createFakeClock();
    const events: PolitelyEvent[] = [];
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    politeness.subscribe((event) => events.push(event));
    const holder = await open(politeness, '/upload', 'response');
    const dependent = settling(open(politeness, '/download', 'response'));
    const another = settling(open(politeness, '/another', 'response'));
    await clock.advance(STALL_MS - 1);
    expect(dependent.settled).toBe(false);
    await clock.advance(1000);
    // One of the two waiters shares the stalled holder's place; the other still waits.
    expect([dependent.settled, another.settled].filter(Boolean)).toHaveLength(1);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'in-flight-shared', host: 'site.test', stalledMs: expect.any(Number) }),
    );
    await holder.done();
    await clock.advance(STALL_MS);
    expect(dependent.settled && another.settled).toBe(true);
  });

  it('a holder that makes progress lends nothing', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const holder = await open(politeness, '/slow-body', 'response');
    const waiter = settling(open(politeness, '/next', 'response'));
    await clock.advance(STALL_MS - 1000);
    await holder.answered({ status: 200 });
    await clock.advance(STALL_MS - 1000);
    expect(waiter.settled).toBe(false);
    await holder.done();
    await clock.advance(1000);
    expect(waiter.settled).toBe(true);
  });

  it('a failure told after the end still slows the host, once', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { pacing: { latencyFactor: 2 } });
    await pastRobotsTxt(politeness, clock);
    const kit = adapterKit(politeness);
    const hop = await open(politeness, '/a', 'start');
    await hop.sent(clock.now());
    await hop.done();
    const before = kit.paceMs(hop.decision);
    const timeout = Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
    await hop.failed(timeout);
    const after = kit.paceMs(hop.decision);
    expect(after).toBeGreaterThan(before);
    await hop.failed(timeout);
    expect(kit.paceMs(hop.decision)).toBe(after);
  });

  it("spacing 'start', ordered: the host's next hop reserves only once the one before went out", async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { pacing: { maxConcurrentPerHost: 2 } });
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    const first = await open(politeness, '/a', 'start', { ordered: true });
    const second = settling(open(politeness, '/b', 'start', { ordered: true }));
    await clock.advance(3000);
    expect(second.settled).toBe(false);
    await first.sent(origin + 3000);
    await clock.advance(999);
    expect(second.settled).toBe(false);
    await clock.advance(1);
    expect(second.settled).toBe(true);
  });
});
