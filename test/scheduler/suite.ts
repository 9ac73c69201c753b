/**
 * The scheduler contract as one suite of tests registered for a backend (like the cache-store suite,
 * after keyv's @keyv/test-suite): per-host start spacing, tryReserve, peek, penalize, maxWaitMs and
 * abort, and requests in flight per host. Every backend politely ships gives the same visible
 * behaviour: memory, Redis, and Redis with a connection that fails (the in-process fallback).
 *
 * Backends on a fake clock run the same tests as those on real time (Redis reads the server's clock):
 * `elapse` advances the fake clock or sleeps, and every timing check is a floor (the delay asked),
 * never a timed upper bound.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isClosedError,
  isWaitTooLongError,
  WaitTooLongError,
} from '../../packages/core/src/kernel/errors.js';
import type { InFlightLease } from '../../packages/core/src/schedule/in-flight.js';
import type { Clock, Scheduler } from '../../packages/core/src/schedule/types.js';
import type { FakeClock } from '../../packages/core/test/schedule/fake-clock.js';

/** The schedulers the suite asserts on: every built-in one has peek and acquireInFlight. */
export type FullScheduler = Scheduler & Required<Pick<Scheduler, 'peek' | 'acquireInFlight'>>;

export interface SchedulerUnderTest {
  /** One crawler process's scheduler on the shared backend (a new one per call). */
  open(): FullScheduler;
  /** The clock the schedulers run on: a fake one is advanced by the suite, a real one waited for. */
  readonly clock: Clock;
  /** Closes what `open` made and removes what the test wrote. */
  cleanup(): Promise<void>;
}

export interface SchedulerSuiteOptions {
  /** Whether schedulers from two `open()` calls share their pacing (a fleet on one Redis). */
  readonly fleet: boolean;
  /** The `kind` every scheduler reports once it has been used. */
  readonly kind: string;
}

const isFake = (clock: Clock): clock is FakeClock =>
  typeof (clock as Partial<FakeClock>).advance === 'function';

export function schedulerSuite(
  name: string,
  factory: () => SchedulerUnderTest,
  options: SchedulerSuiteOptions,
): void {
  describe(`scheduler contract: ${name}`, () => {
    let fixture: SchedulerUnderTest;
    let clock: Clock;
    /** Lets `ms` pass: the fake clock is advanced (waking sleepers on the way), real time is waited. */
    const elapse = (ms: number) =>
      isFake(clock) ? clock.advance(ms) : new Promise<void>((resolve) => setTimeout(resolve, ms));
    /** Nothing leaked: once a released place is handed back, a.test's one place is free. */
    const expectOnePlaceFree = async (scheduler: FullScheduler) => {
      await elapse(20);
      const again = await scheduler.acquireInFlight('a.test', 1, { maxWaitMs: 500 });
      again.release();
    };

    beforeEach(() => {
      fixture = factory();
      clock = fixture.clock;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    describe('spacing', () => {
      it('spaces starts for one host by the delay, start to start', async () => {
        const scheduler = fixture.open();
        const pending = [0, 1, 2].map(() => scheduler.reserve('a.test', 100));
        await elapse(250);
        const starts = (await Promise.all(pending)).map((reservation) => reservation.startAt);
        // Concurrent callers may be served in any order; the gaps between their starts are what count.
        const [a = 0, b = 0, c = 0] = starts.sort((x, y) => x - y);
        expect(b - a).toBeGreaterThanOrEqual(100);
        expect(c - b).toBeGreaterThanOrEqual(100);
        expect(scheduler.kind).toBe(options.kind);
      });

      it('counts from the previous start, so a caller arriving after the gap goes at once', async () => {
        const scheduler = fixture.open();
        await scheduler.reserve('a.test', 100);
        await elapse(150);
        // maxWaitMs 0: refused unless the slot is free now.
        await scheduler.reserve('a.test', 100, { maxWaitMs: 0 });
      });

      it('never holds one host back for another', async () => {
        const scheduler = fixture.open();
        await scheduler.reserve('slow.test', 60_000);
        await scheduler.reserve('fast.test', 60_000, { maxWaitMs: 0 });
      });
    });

    describe('maxWaitMs and abort', () => {
      it('rejects with WaitTooLongError when the slot is further than maxWaitMs, reserving nothing', async () => {
        const scheduler = fixture.open();
        await scheduler.reserve('a.test', 5000);
        const error = await scheduler.reserve('a.test', 5000, { maxWaitMs: 1000 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WaitTooLongError);
        expect(isWaitTooLongError(error)).toBe(true);
        expect(error).toMatchObject({ code: 'ERR_WAIT_TOO_LONG', host: 'a.test', maxWaitMs: 1000 });
        expect((error as WaitTooLongError).retryAfterMs).toBeGreaterThan(1000);
        // Nothing reserved: the next slot is still one delay after the first start.
        const after = await scheduler.tryReserve('a.test', 5000);
        if (after.ok) throw new Error('expected "not yet"');
        expect(after.waitMs).toBeLessThanOrEqual(5000 + 10);
      });

      it('rejects a waiting reservation with the signal reason', async () => {
        const scheduler = fixture.open();
        await scheduler.reserve('a.test', 60_000);
        const controller = new AbortController();
        const waiting = scheduler.reserve('a.test', 60_000, { signal: controller.signal });
        const reason = new Error('crawl stopped');
        await elapse(20);
        controller.abort(reason);
        await expect(waiting).rejects.toBe(reason);
      });

      it('rejects at once and reserves nothing when the signal is already aborted', async () => {
        const scheduler = fixture.open();
        const reason = new Error('already stopped');
        await expect(scheduler.reserve('a.test', 200, { signal: AbortSignal.abort(reason) })).rejects.toBe(
          reason,
        );
        await scheduler.reserve('a.test', 200, { maxWaitMs: 0 });
      });
    });

    describe('giving up gives the slot back', () => {
      /** `count` callers waiting behind a first start, each with its own signal. */
      const waitersBehind = (scheduler: FullScheduler, count: number, delayMs: number) =>
        Array.from({ length: count }, () => {
          const controller = new AbortController();
          const waiting = scheduler.reserve('a.test', delayMs, { signal: controller.signal });
          waiting.catch(() => {});
          return { controller, waiting };
        });

      it('callers that give up hand their slots back: the next start is where the requests that went put it', async () => {
        const scheduler = fixture.open();
        const first = await scheduler.reserve('a.test', 10_000);
        const waiters = waitersBehind(scheduler, 5, 10_000);
        await elapse(20);
        // In no particular order: slots given back in the middle are remembered until the chain unwinds.
        for (const index of [2, 0, 4, 1, 3]) waiters[index]?.controller.abort(new Error('timed out'));
        for (const { waiting } of waiters) await expect(waiting).rejects.toThrow('timed out');
        await elapse(20);
        const due = await scheduler.peek('a.test');
        // One delay after the start that really happened, not six (a few ms: Redis's margin, its clock).
        expect(due).toBeGreaterThanOrEqual(first.startAt + 10_000);
        expect(due).toBeLessThan(first.startAt + 10_000 + 1000);
      });

      it('a slot given back in the middle moves no later slot: the next start stays a delay after the last one held', async () => {
        const scheduler = fixture.open();
        const first = await scheduler.reserve('a.test', 10_000);
        const [b, c, d] = waitersBehind(scheduler, 3, 10_000);
        await elapse(20);
        b?.controller.abort(new Error('gave up'));
        c?.controller.abort(new Error('gave up'));
        await elapse(20);
        // d still holds the slot three delays on: nobody may be handed one closer than a delay to it.
        expect(await scheduler.peek('a.test')).toBeGreaterThanOrEqual(first.startAt + 40_000);
        // Once d gives up too, the chain unwinds past the slots given back before it.
        d?.controller.abort(new Error('gave up'));
        await elapse(20);
        expect(await scheduler.peek('a.test')).toBeLessThan(first.startAt + 10_000 + 1000);
      });

      it('callers after a slot given back in the middle still go a delay apart', async () => {
        const scheduler = fixture.open();
        const a = await scheduler.reserve('a.test', 150);
        const [b] = waitersBehind(scheduler, 1, 150);
        const c = scheduler.reserve('a.test', 150);
        await elapse(20);
        b?.controller.abort(new Error('gave up'));
        await elapse(400);
        const cStart = (await c).startAt;
        const d = scheduler.reserve('a.test', 150);
        await elapse(200);
        expect(cStart - a.startAt).toBeGreaterThanOrEqual(150);
        expect((await d).startAt - cStart).toBeGreaterThanOrEqual(150);
      });
    });

    describe('close()', () => {
      it('rejects every caller still waiting, for a slot or a place in flight, with ClosedError, and every later call', async () => {
        const scheduler = fixture.open();
        await scheduler.reserve('a.test', 60_000);
        const slots = [0, 1, 2].map(() => scheduler.reserve('a.test', 60_000).catch((e: unknown) => e));
        const lease = await scheduler.acquireInFlight('b.test', 1);
        const places = [0, 1].map(() => scheduler.acquireInFlight('b.test', 1).catch((e: unknown) => e));
        await elapse(20);
        await scheduler.close();
        // No time passes on a fake clock: they are rejected by close itself, not by a timer.
        for (const error of await Promise.all([...slots, ...places])) {
          expect(isClosedError(error)).toBe(true);
          expect(error).toMatchObject({ code: 'ERR_CLOSED', name: 'ClosedError' });
        }
        lease.release();
        await expect(scheduler.reserve('c.test', 10)).rejects.toMatchObject({ code: 'ERR_CLOSED' });
        await expect(scheduler.tryReserve('c.test', 10)).rejects.toMatchObject({ code: 'ERR_CLOSED' });
        await expect(scheduler.acquireInFlight('c.test', 1)).rejects.toMatchObject({ code: 'ERR_CLOSED' });
      });
    });

    describe('tryReserve and peek', () => {
      it('tryReserve reserves when due, else says when to come back without reserving', async () => {
        const scheduler = fixture.open();
        const first = await scheduler.tryReserve('a.test', 10_000);
        if (!first.ok) throw new Error('expected a reservation');
        const refused = await scheduler.tryReserve('a.test', 10_000);
        const refusedAgain = await scheduler.tryReserve('a.test', 10_000);
        if (refused.ok || refusedAgain.ok) throw new Error('expected "not yet"');
        expect(refused.notBefore).toBeGreaterThanOrEqual(first.startAt + 10_000);
        expect(refused.waitMs).toBeGreaterThan(9_000);
        // Not reserving: asking again does not push the slot out by another delay.
        expect(refusedAgain.notBefore).toBeLessThan(refused.notBefore + 10_000);
        expect(await scheduler.tryReserve('b.test', 10_000)).toMatchObject({ ok: true });
      });

      it('tryReserve sees slots taken by blocking reservations', async () => {
        const scheduler = fixture.open();
        const { startAt } = await scheduler.reserve('a.test', 10_000);
        const refused = await scheduler.tryReserve('a.test', 10_000);
        if (refused.ok) throw new Error('expected "not yet"');
        expect(refused.notBefore).toBeGreaterThanOrEqual(startAt + 10_000);
      });

      it('peek says when a host is due without reserving it', async () => {
        const scheduler = fixture.open();
        expect(await scheduler.peek('a.test')).toBeLessThanOrEqual(clock.now());
        const { startAt } = await scheduler.reserve('a.test', 10_000);
        const due = await scheduler.peek('a.test');
        expect(due).toBeGreaterThanOrEqual(startAt + 10_000);
        // Peeking reserves nothing: neither another peek nor a reservation finds the slot a delay later.
        expect(await scheduler.peek('a.test')).toBeLessThan(due + 10_000);
        const refused = await scheduler.tryReserve('a.test', 10_000);
        if (refused.ok) throw new Error('expected "not yet"');
        expect(refused.notBefore).toBeLessThan(due + 10_000);
      });
    });

    describe('penalize', () => {
      it('pushes the next start to at least now + ms, and never pulls it in', async () => {
        const scheduler = fixture.open();
        const before = clock.now();
        await scheduler.penalize('a.test', 30_000);
        await scheduler.penalize('a.test', 1_000);
        const refused = await scheduler.tryReserve('a.test', 100);
        if (refused.ok) throw new Error('expected "not yet"');
        expect(refused.notBefore).toBeGreaterThanOrEqual(before + 30_000);
        expect(await scheduler.peek('a.test')).toBeGreaterThanOrEqual(before + 30_000);
      });

      it('also holds a caller already waiting for its slot', async () => {
        const scheduler = fixture.open();
        // A delay long enough that the penalty surely lands while the second caller still waits, even
        // on a stalled machine (real time on Redis).
        const first = await scheduler.reserve('a.test', 1000);
        const waiting = scheduler.reserve('a.test', 1000);
        await elapse(20);
        // The first request really went out 150 ms after its start (what markSent reports).
        await scheduler.penalize('a.test', first.startAt + 150 + 1000 - clock.now());
        await elapse(1300);
        expect((await waiting).startAt - first.startAt).toBeGreaterThanOrEqual(1150);
      });
    });

    describe('requests in flight per host', () => {
      /** Acquires `count` leases at once; `leases` fills as they are granted. */
      function acquireAll(scheduler: FullScheduler, limit: number, count: number) {
        const leases: InFlightLease[] = [];
        const pending = Array.from({ length: count }, () =>
          scheduler.acquireInFlight('a.test', limit).then((lease) => {
            leases.push(lease);
            return lease;
          }),
        );
        return { leases, pending };
      }

      /**
       * Until `count` places are granted: a floor, never a deadline (a loaded machine only makes the
       * wait longer); 30 s is a hang, not slowness.
       */
      async function granted(leases: readonly InFlightLease[], count: number) {
        for (let waited = 0; leases.length < count; waited += 10) {
          if (waited > 30_000) throw new Error(`${leases.length} of ${count} places granted after 30 s`);
          await elapse(10);
        }
      }

      for (const limit of [1, 2, 3]) {
        it(`holds at most ${limit} in flight; a released place goes to the next caller`, async () => {
          const scheduler = fixture.open();
          const { leases, pending } = acquireAll(scheduler, limit, limit + 2);
          await granted(leases, limit);
          // Two polls' time (50 ms each on Redis) for a caller beyond the limit to be wrongly let in.
          await elapse(100);
          expect(leases).toHaveLength(limit);
          const [first] = leases;
          first?.release();
          first?.release(); // idempotent: frees one place, not two
          await granted(leases, limit + 1);
          await elapse(100);
          expect(leases).toHaveLength(limit + 1);
          for (const lease of leases.slice(1)) lease.release();
          await Promise.all(pending);
          expect(leases).toHaveLength(limit + 2);
          for (const lease of leases) lease.release();
        });
      }

      it('never holds one host back for another', async () => {
        const scheduler = fixture.open();
        const held = await scheduler.acquireInFlight('a.test', 1);
        const other = await scheduler.acquireInFlight('b.test', 1, { maxWaitMs: 0 });
        held.release();
        other.release();
      });

      it('rejects with WaitTooLongError after maxWaitMs, holding nothing', async () => {
        const scheduler = fixture.open();
        const held = await scheduler.acquireInFlight('a.test', 1);
        const now = await scheduler.acquireInFlight('a.test', 1, { maxWaitMs: 0 }).catch((e: unknown) => e);
        expect(now).toBeInstanceOf(WaitTooLongError);
        const later = scheduler.acquireInFlight('a.test', 1, { maxWaitMs: 100 }).catch((e: unknown) => e);
        await elapse(150);
        expect(await later).toMatchObject({ code: 'ERR_WAIT_TOO_LONG', host: 'a.test', maxWaitMs: 100 });
        held.release();
        await expectOnePlaceFree(scheduler);
      });

      it('rejects with the signal reason when aborted while waiting, holding nothing', async () => {
        const scheduler = fixture.open();
        const held = await scheduler.acquireInFlight('a.test', 1);
        const controller = new AbortController();
        const reason = new Error('crawl stopped');
        const waiting = scheduler.acquireInFlight('a.test', 1, { signal: controller.signal });
        await elapse(20);
        controller.abort(reason);
        await expect(waiting).rejects.toBe(reason);
        await expect(
          scheduler.acquireInFlight('a.test', 1, { signal: AbortSignal.abort(reason) }),
        ).rejects.toBe(reason);
        held.release();
        await expectOnePlaceFree(scheduler);
      });

      it('Infinity lifts the cap; a bad limit is a TypeError', async () => {
        const scheduler = fixture.open();
        const leases = await Promise.all(
          Array.from({ length: 5 }, () => scheduler.acquireInFlight('a.test', Number.POSITIVE_INFINITY)),
        );
        expect(leases).toHaveLength(5);
        for (const lease of leases) lease.release();
        await expect(scheduler.acquireInFlight('a.test', 0)).rejects.toThrow(/maxConcurrentPerHost/);
        await expect(scheduler.acquireInFlight('a.test', 1.5)).rejects.toThrow(/maxConcurrentPerHost/);
      });
    });

    describe.runIf(options.fleet)('a fleet sharing the backend', () => {
      it('spaces starts for one host across processes', async () => {
        const [one, other] = [fixture.open(), fixture.open()];
        const a = await one.reserve('a.test', 150);
        const b = await other.reserve('a.test', 150);
        const c = await one.reserve('a.test', 150);
        expect(b.startAt - a.startAt).toBeGreaterThanOrEqual(150);
        expect(c.startAt - b.startAt).toBeGreaterThanOrEqual(150);
      });

      it('a backoff set by one process holds the others', async () => {
        const [one, other] = [fixture.open(), fixture.open()];
        const before = clock.now();
        await one.penalize('a.test', 30_000);
        const refused = await other.tryReserve('a.test', 100);
        if (refused.ok) throw new Error('expected "not yet"');
        expect(refused.notBefore).toBeGreaterThanOrEqual(before + 30_000);
      });

      it('a slot given up in one process goes back for the whole fleet', async () => {
        const [one, other] = [fixture.open(), fixture.open()];
        const first = await one.reserve('a.test', 10_000);
        const controller = new AbortController();
        const waiting = [0, 1, 2].map(() =>
          other.reserve('a.test', 10_000, { signal: controller.signal }).catch((e: unknown) => e),
        );
        await elapse(20);
        controller.abort(new Error('timed out'));
        await Promise.all(waiting);
        await elapse(20);
        const due = await one.peek('a.test');
        expect(due).toBeGreaterThanOrEqual(first.startAt + 10_000);
        expect(due).toBeLessThan(first.startAt + 10_000 + 1000);
      });

      it('counts requests in flight across processes', async () => {
        const [one, other] = [fixture.open(), fixture.open()];
        const held = await one.acquireInFlight('a.test', 1);
        await expect(other.acquireInFlight('a.test', 1, { maxWaitMs: 0 })).rejects.toBeInstanceOf(
          WaitTooLongError,
        );
        const waiting = other.acquireInFlight('a.test', 1);
        held.release();
        (await waiting).release();
      });
    });
  });
}
