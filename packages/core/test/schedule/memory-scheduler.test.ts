/**
 * Exact timings of the memory scheduler on a fake clock, and what only it does (bounded memory, the
 * sweep). The behaviour every scheduler shares is asserted by the contract suite (test/scheduler).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isWaitTooLongError } from '../../src/kernel/errors.js';
import { createMemoryScheduler } from '../../src/schedule/memory-scheduler.js';
import type { Clock, Reservation } from '../../src/schedule/types.js';
import { createFakeClock } from './fake-clock.js';

const T0 = 1_000_000;

function setup() {
  const clock = createFakeClock(T0);
  const scheduler = createMemoryScheduler({ clock });
  return { clock, scheduler };
}

/** Reserves and records when each reservation resolved, on the fake clock. */
function track(promise: Promise<Reservation>, clock: Clock, into: number[]) {
  return promise.then((reservation) => {
    into.push(clock.now());
    return reservation;
  });
}

describe('memory scheduler: spacing', () => {
  it('spaces starts for one host by the delay, start to start, resolving each at its time', async () => {
    const { clock, scheduler } = setup();
    const resolvedAt: number[] = [];
    const pending = Array.from({ length: 5 }, () =>
      track(scheduler.reserve('a.test', 200), clock, resolvedAt),
    );
    await clock.advance(0);
    expect(resolvedAt).toEqual([T0]);
    await clock.advance(199);
    expect(resolvedAt).toEqual([T0]);
    await clock.advance(1);
    expect(resolvedAt).toEqual([T0, T0 + 200]);
    await clock.advance(600);
    const reservations = await Promise.all(pending);
    expect(reservations.map((r) => r.startAt)).toEqual([T0, T0 + 200, T0 + 400, T0 + 600, T0 + 800]);
    expect(reservations.map((r) => r.waitMs)).toEqual([0, 200, 400, 600, 800]);
    expect(resolvedAt).toEqual([T0, T0 + 200, T0 + 400, T0 + 600, T0 + 800]);
  });

  it('keeps the spacing from when the previous caller really started when it woke late', async () => {
    // A busy event loop wakes one sleeper 30 ms late; the next one must not start 170 ms after it.
    const fake = createFakeClock(T0);
    let lateWakes = 1;
    const clock: Clock = {
      now: fake.now,
      sleep: (ms, signal) => fake.sleep(lateWakes-- > 0 ? ms + 30 : ms, signal),
    };
    const scheduler = createMemoryScheduler({ clock });
    const all = [0, 1, 2].map(() => scheduler.reserve('a.test', 200));
    await fake.advance(1000);
    const starts = (await Promise.all(all)).map((r) => r.startAt);
    expect(starts).toEqual([T0, T0 + 230, T0 + 430]);
  });
});

describe('memory scheduler: abort and maxWaitMs', () => {
  it('rejects a waiting reservation with the signal reason, and the slot goes back', async () => {
    const { clock, scheduler } = setup();
    await scheduler.reserve('a.test', 200);
    const controller = new AbortController();
    const waiting = scheduler.reserve('a.test', 200, { signal: controller.signal });
    await clock.advance(50);
    const reason = new Error('crawl stopped');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(clock.pendingSleeps).toBe(0);
    // The next caller gets the slot given up: one delay after the start that happened, not two.
    const next = scheduler.reserve('a.test', 200);
    await clock.advance(1000);
    expect((await next).startAt).toBe(T0 + 200);
  });

  it('accepts a wait equal to maxWaitMs', async () => {
    const { clock, scheduler } = setup();
    await scheduler.reserve('a.test', 1000);
    const waiting = scheduler.reserve('a.test', 1000, { maxWaitMs: 1000 });
    await clock.advance(1000);
    expect(await waiting).toEqual({ startAt: T0 + 1000, waitMs: 1000 });
  });
});

describe('memory scheduler: a slot that moves while a caller waits', () => {
  it('a waiting caller whose host moves later (a real send reported late) waits longer, never going early', async () => {
    const { clock, scheduler } = setup();
    await scheduler.reserve('a.test', 200);
    const resolvedAt: number[] = [];
    const waiting = track(scheduler.reserve('a.test', 200), clock, resolvedAt);
    await clock.advance(50);
    // The first request really went out at T0 + 150 (what Politeness.markSent reports): the next
    // start is then 150 + 200, not the 200 the waiter was promised.
    await scheduler.penalize('a.test', T0 + 150 + 200 - clock.now());
    await clock.advance(150);
    expect(resolvedAt).toEqual([]);
    await clock.advance(149);
    expect(resolvedAt).toEqual([]);
    await clock.advance(1);
    expect(await waiting).toEqual({ startAt: T0 + 350, waitMs: 350 });
  });

  it('a waiting caller held past its maxWaitMs by a backoff rejects with WaitTooLongError instead of waiting on', async () => {
    const { clock, scheduler } = setup();
    await scheduler.reserve('a.test', 200);
    const waiting = scheduler.reserve('a.test', 200, { maxWaitMs: 1000 }).catch((e: unknown) => e);
    await clock.advance(10);
    await scheduler.penalize('a.test', 5000);
    await clock.advance(190);
    const error = await waiting;
    expect(isWaitTooLongError(error)).toBe(true);
    expect(error).toMatchObject({ host: 'a.test', maxWaitMs: 1000, waitMs: 4810 });
    expect(clock.now()).toBe(T0 + 200);
    expect(clock.pendingSleeps).toBe(0);
  });
});

describe('memory scheduler: callers woken together', () => {
  it('two callers held by one backoff and woken in one step (one timer callback) start a delay apart', async () => {
    // A clock that wakes every sleeper due at once, in one synchronous loop, as a timer wheel
    // would: nothing runs between the wake-ups, so the callers check the host in one microtask batch.
    let now = T0;
    const sleepers: Array<{ at: number; wake: () => void }> = [];
    const clock: Clock = {
      now: () => now,
      sleep: (ms) => new Promise<void>((wake) => sleepers.push({ at: now + ms, wake })),
    };
    const settle = async () => {
      for (let i = 0; i < 50; i++) await Promise.resolve();
    };
    const advanceTo = async (at: number) => {
      now = at;
      for (const sleeper of sleepers.splice(0)) {
        if (sleeper.at <= at) sleeper.wake();
        else sleepers.push(sleeper);
      }
      await settle();
    };
    const scheduler = createMemoryScheduler({ clock });
    const startedAt: number[] = [];
    const started = (r: Reservation) => startedAt.push(r.startAt);
    await scheduler.reserve('a.test', 300).then(started); // T0
    const b = scheduler.reserve('a.test', 300).then(started); // slot T0 + 300
    const c = scheduler.reserve('a.test', 300).then(started); // slot T0 + 600
    await settle();
    await scheduler.penalize('a.test', 1000); // both are held until T0 + 1000
    await advanceTo(T0 + 300);
    await advanceTo(T0 + 600);
    await advanceTo(T0 + 1000); // b and c wake in this one step
    await advanceTo(T0 + 1300);
    await Promise.all([b, c]);
    expect(startedAt).toEqual([T0, T0 + 1000, T0 + 1300]);
    await scheduler.close();
  });
});

describe('memory scheduler: tryReserve', () => {
  it('reserves when due, else says when to come back without reserving', async () => {
    const { clock, scheduler } = setup();
    expect(await scheduler.tryReserve('a.test', 300)).toEqual({ ok: true, startAt: T0 });
    expect(await scheduler.tryReserve('a.test', 300)).toEqual({
      ok: false,
      notBefore: T0 + 300,
      waitMs: 300,
    });
    await clock.advance(100);
    expect(await scheduler.tryReserve('a.test', 300)).toEqual({
      ok: false,
      notBefore: T0 + 300,
      waitMs: 200,
    });
    await clock.advance(200);
    expect(await scheduler.tryReserve('a.test', 300)).toEqual({ ok: true, startAt: T0 + 300 });
    expect(await scheduler.tryReserve('b.test', 300)).toEqual({ ok: true, startAt: T0 + 300 });
  });
});

describe('memory scheduler: peek', () => {
  it('says when a host is due without reserving, and never tracks a host for peeking at it', async () => {
    const { clock, scheduler } = setup();
    expect(await scheduler.peek('a.test')).toBe(T0);
    expect(scheduler.size).toBe(0);
    await scheduler.reserve('a.test', 300);
    expect(await scheduler.peek('a.test')).toBe(T0 + 300);
    expect(await scheduler.peek('a.test')).toBe(T0 + 300);
    // Peeking took nothing: the slot it named is still the one a reservation gets.
    expect(await scheduler.tryReserve('a.test', 300)).toEqual({
      ok: false,
      notBefore: T0 + 300,
      waitMs: 300,
    });
    await clock.advance(300);
    expect(await scheduler.peek('a.test')).toBeLessThanOrEqual(clock.now());
    expect(await scheduler.tryReserve('a.test', 300)).toEqual({ ok: true, startAt: T0 + 300 });
  });

  it('sees slots handed to callers still asleep, and backoffs', async () => {
    const { clock, scheduler } = setup();
    const sleeping = [scheduler.reserve('a.test', 100), scheduler.reserve('a.test', 100)];
    expect(await scheduler.peek('a.test')).toBe(T0 + 200);
    await scheduler.penalize('b.test', 5_000);
    expect(await scheduler.peek('b.test')).toBe(T0 + 5_000);
    await clock.advance(100);
    await Promise.all(sleeping);
  });
});

describe('memory scheduler: bounded memory', () => {
  it('forgets hosts whose next start has passed, so a broad crawl does not grow the map', async () => {
    const { clock, scheduler } = setup();
    for (let i = 0; i < 20_000; i++) {
      await scheduler.reserve(`host-${i}.test`, 100);
      await clock.advance(1);
    }
    expect(scheduler.size).toBeLessThanOrEqual(1024);
    // Hosts still inside their delay are kept.
    expect(await scheduler.tryReserve('host-19999.test', 100)).toMatchObject({ ok: false, waitMs: 99 });
  });

  it('keeps a host whose caller is still asleep, even when it wakes long after its slot', async () => {
    const fake = createFakeClock(T0);
    let wakeLate = false;
    const clock: Clock = {
      now: fake.now,
      sleep: (ms, signal) => fake.sleep(wakeLate ? ms + 60_000 : ms, signal),
    };
    const scheduler = createMemoryScheduler({ clock });
    await scheduler.reserve('sleepy.test', 100);
    wakeLate = true;
    // What a caller sees right after the overdue sleeper starts.
    const sleepy = scheduler
      .reserve('sleepy.test', 100)
      .then(async (late) => ({ late, next: await scheduler.tryReserve('sleepy.test', 100) }));
    wakeLate = false;
    // A broad crawl sweeps the map while the sleeper is overdue.
    for (let i = 0; i < 3000; i++) {
      await scheduler.reserve(`host-${i}.test`, 10);
      await fake.advance(20);
    }
    await fake.advance(1000);
    const { late, next } = await sleepy;
    expect(late.startAt).toBe(T0 + 100 + 60_000);
    expect(next).toEqual({ ok: false, notBefore: late.startAt + 100, waitMs: 100 });
  });

  it('keeps every host whose next start is ahead, however many', async () => {
    const { scheduler } = setup();
    for (let i = 0; i < 3000; i++) await scheduler.reserve(`host-${i}.test`, 60_000);
    expect(scheduler.size).toBe(3000);
    expect(await scheduler.tryReserve('host-0.test', 1)).toMatchObject({ ok: false, waitMs: 60_000 });
  });
});

describe('memory scheduler: idle hosts are released without new traffic', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hosts touched once are all released by the sweep timer once their delay is over, with no further call', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const clock = createFakeClock(T0);
    const scheduler = createMemoryScheduler({ clock, sweepEveryMs: 30_000 });
    for (let i = 0; i < 5000; i++) await scheduler.tryReserve(`host-${i}.test`, 10_000);
    expect(scheduler.size).toBe(5000);
    // Still inside their delay: the timer keeps them all.
    await clock.advance(5000);
    vi.advanceTimersByTime(30_000);
    expect(scheduler.size).toBe(5000);
    expect(await scheduler.tryReserve('host-0.test', 10_000)).toMatchObject({ ok: false, waitMs: 5000 });
    // Idle now: the next tick releases them, with nobody calling the scheduler.
    await clock.advance(5000);
    vi.advanceTimersByTime(30_000);
    expect(scheduler.size).toBe(0);
    // Released means forgotten, not broken: a host comes back due at once.
    expect(await scheduler.tryReserve('host-0.test', 10_000)).toMatchObject({ ok: true });
    await scheduler.close();
  });

  it('never releases a host whose delay is running, a backoff is pending, or a caller is asleep', async () => {
    const clock = createFakeClock(T0);
    const scheduler = createMemoryScheduler({ clock });
    await scheduler.tryReserve('running.test', 10_000);
    await scheduler.penalize('backed-off.test', 60_000);
    await scheduler.reserve('sleeping.test', 1000);
    const sleeper = scheduler.reserve('sleeping.test', 1000);
    await scheduler.tryReserve('done.test', 10);
    await clock.advance(500);
    expect(scheduler.sweep()).toBe(1);
    expect(
      scheduler
        .upcomingStarts()
        .map((u) => u.host)
        .sort(),
    ).toEqual(['backed-off.test', 'running.test', 'sleeping.test']);
    expect(await scheduler.tryReserve('running.test', 10_000)).toMatchObject({ ok: false, waitMs: 9500 });
    expect(await scheduler.tryReserve('backed-off.test', 1)).toMatchObject({ ok: false, waitMs: 59_500 });
    await clock.advance(500);
    await sleeper;
    expect(await scheduler.tryReserve('sleeping.test', 1)).toMatchObject({ ok: false, waitMs: 1000 });
    await scheduler.close();
  });

  it('rejects a bad sweepEveryMs', () => {
    expect(() => createMemoryScheduler({ sweepEveryMs: 0 })).toThrow(/sweepEveryMs/);
    expect(() => createMemoryScheduler({ sweepEveryMs: Number.NaN })).toThrow(/sweepEveryMs/);
  });
});

describe('memory scheduler: bad input', () => {
  it.each([
    ['delayMs NaN', () => createMemoryScheduler().reserve('a.test', Number.NaN), /delayMs/],
    ['negative delayMs', () => createMemoryScheduler().tryReserve('a.test', -1), /delayMs/],
    ['empty host', () => createMemoryScheduler().reserve('', 10), /host/],
    ['non-string host', () => createMemoryScheduler().reserve(42 as unknown as string, 10), /host.*42/],
    ['negative penalty', () => createMemoryScheduler().penalize('a.test', -5), /ms/],
    [
      'negative maxWaitMs',
      () => createMemoryScheduler().reserve('a.test', 1, { maxWaitMs: -1 }),
      /maxWaitMs/,
    ],
  ])('%s gets a TypeError naming it', async (_name, call, message) => {
    await expect(call()).rejects.toThrow(TypeError);
    await expect(call()).rejects.toThrow(message);
  });

  it('rejects unknown options', () => {
    expect(() => createMemoryScheduler({ clok: {} } as never)).toThrow(
      /Unknown memory scheduler option `clok`/,
    );
  });
});

describe('memory scheduler: what it grants in the same step (issue 42)', () => {
  it('reserveNow starts a due host at once, and for a host not due reserves nothing', async () => {
    const { clock, scheduler } = setup();
    expect(scheduler.reserveNow('a.test', 200)).toEqual({ startAt: T0, waitMs: 0 });
    // Not due: nothing taken, so the next reserve still gets the slot right after the first.
    expect(scheduler.reserveNow('a.test', 200)).toBeUndefined();
    const next = scheduler.reserve('a.test', 200);
    await clock.advance(200);
    expect(await next).toEqual({ startAt: T0 + 200, waitMs: 200 });
    // A backoff holds the host for reserveNow as for reserve.
    await scheduler.penalize('b.test', 500);
    expect(scheduler.reserveNow('b.test', 0)).toBeUndefined();
    await clock.advance(500);
    expect(scheduler.reserveNow('b.test', 0)).toEqual({ startAt: T0 + 700, waitMs: 0 });
    await scheduler.close();
    expect(scheduler.reserveNow('c.test', 0)).toBeUndefined();
  });

  it('tryAcquireInFlight takes a free place at once, none while the host is full or queued', async () => {
    const { scheduler } = setup();
    const first = scheduler.tryAcquireInFlight('a.test', 1);
    expect(first).toBeDefined();
    expect(scheduler.tryAcquireInFlight('a.test', 1)).toBeUndefined();
    // A waiter queued for the place gets it before any later synchronous taker.
    const queued = scheduler.acquireInFlight('a.test', 1);
    first?.release();
    expect(scheduler.tryAcquireInFlight('a.test', 1)).toBeUndefined();
    (await queued).release();
    const again = scheduler.tryAcquireInFlight('a.test', 1);
    expect(again).toBeDefined();
    again?.release();
    await scheduler.close();
    expect(scheduler.tryAcquireInFlight('a.test', 1)).toBeUndefined();
  });
});

describe('memory scheduler: a wall clock set back', () => {
  it('the wait left is what was left before the step, not the step added to it', async () => {
    let now = T0;
    const clock: Clock = {
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    };
    const scheduler = createMemoryScheduler({ clock });
    await scheduler.reserve('a.test', 1_000);
    now = T0 + 400;
    expect(await scheduler.tryReserve('a.test', 1_000)).toMatchObject({ ok: false, waitMs: 600 });
    now = T0 + 400 - 3_600_000;
    expect(await scheduler.tryReserve('a.test', 1_000)).toMatchObject({ ok: false, waitMs: 600 });
    expect(await scheduler.reserve('a.test', 1_000, { maxWaitMs: 60_000 })).toMatchObject({ waitMs: 600 });
    await scheduler.close();
  });
});
