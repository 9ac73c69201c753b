/**
 * The Redis scheduler's fallback logic on a fake clock, with a scripted stand-in for the Redis client
 * (ioredis-shaped), so the order of events is exact: which reply comes when, and what each caller
 * does with it. The same scenarios against a real redis-server, judged at the wire, are in
 * test/fleet/redis-failover.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { PolitelyEvent } from '../../src/facade/types.js';
import { isWaitTooLongError } from '../../src/kernel/errors.js';
import { createRedisScheduler } from '../../src/schedule/redis-scheduler.js';
import {
  CANCEL_SCRIPT,
  CONFIRM_SCRIPT,
  MEMBERS_SCRIPT,
  RESERVE_SCRIPT,
} from '../../src/schedule/redis-script.js';
import type { Reservation } from '../../src/schedule/types.js';
import { createFakeClock } from './fake-clock.js';

const T0 = 1_000_000;

interface Call {
  readonly script: 'reserve' | 'confirm' | 'cancel' | 'other';
  /** What followed the sha: the key count, the keys, the arguments. */
  readonly args: readonly unknown[];
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** An ioredis-shaped client whose every script call waits for the test to answer it. */
function scriptedClient() {
  const calls: Call[] = [];
  const scriptOf = (sha: string): Call['script'] =>
    sha === RESERVE_SCRIPT.sha
      ? 'reserve'
      : sha === CONFIRM_SCRIPT.sha
        ? 'confirm'
        : sha === CANCEL_SCRIPT.sha
          ? 'cancel'
          : 'other';
  const run = (sha: string, ...args: unknown[]) =>
    // The fleet heartbeat (redis-share.ts) is answered at once: a fleet of this scheduler alone.
    sha === MEMBERS_SCRIPT.sha
      ? Promise.resolve([T0, args[3], 0])
      : new Promise<unknown>((resolve, reject) => {
          calls.push({ script: scriptOf(sha), args, resolve, reject });
        });
  return {
    client: { status: 'ready', evalsha: run, eval: () => Promise.reject(new Error('not used')) },
    /** The oldest unanswered call, which must be of the given script. */
    next(script: Call['script']): Call {
      const call = calls.shift();
      if (call?.script !== script)
        throw new Error(`expected a ${script} call, got ${call?.script ?? 'none'}`);
      return call;
    },
  };
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function setup() {
  const clock = createFakeClock(T0);
  const redis = scriptedClient();
  const events: PolitelyEvent[] = [];
  const scheduler = createRedisScheduler({
    client: redis.client,
    clock,
    safetyMarginMs: 0,
    commandTimeoutMs: 60_000, // the test answers or fails every call itself
    fallbackRetryMs: 60_000,
    emit: (event) => events.push(event),
  });
  return { clock, redis, scheduler, events };
}

describe('Redis scheduler give-back (fake clock, scripted Redis)', () => {
  it('a caller that gives up while RESERVE is on its way gives the slot back once the reply is in', async () => {
    const { redis, scheduler } = setup();
    const controller = new AbortController();
    const waiting = scheduler.reserve('a.test', 300, { signal: controller.signal });
    await flush();
    const reserve = redis.next('reserve');
    controller.abort(new Error('timed out'));
    await expect(waiting).rejects.toThrow('timed out');
    // The reply comes after the caller left: the slot it took (server clock 5000 to 5300) goes back.
    reserve.resolve([1, 300, 5000]);
    await flush();
    const cancel = redis.next('cancel');
    expect(cancel.args.slice(-3, -1)).toEqual(['5000', '5300']);
    cancel.resolve(1);
  });

  it('a caller that gives up while asleep until its slot sends one CANCEL for it', async () => {
    const { clock, redis, scheduler } = setup();
    const controller = new AbortController();
    const waiting = scheduler.reserve('a.test', 300, { signal: controller.signal });
    await flush();
    redis.next('reserve').resolve([1, 300, 7000]);
    await flush();
    await clock.advance(100);
    controller.abort(new Error('timed out'));
    await expect(waiting).rejects.toThrow('timed out');
    await flush();
    expect(redis.next('cancel').args.slice(-3, -1)).toEqual(['7000', '7300']);
  });
});

describe('Redis scheduler fallback (fake clock, scripted Redis)', () => {
  /** `setup()` after caller a started at T0 through Redis; `note(name)` records each caller's start. */
  async function afterFirstStart() {
    const fixture = setup();
    const starts: Array<[string, number]> = [];
    const note = (name: string) => (r: Reservation) => starts.push([name, r.startAt]);
    const a = fixture.scheduler.reserve('a.test', 300).then(note('a'));
    await flush();
    fixture.redis.next('reserve').resolve([1, 0]);
    await a;
    return { ...fixture, starts, note };
  }

  it('a waiting caller whose confirm fails does not count as started: it waits for the in-process pace', async () => {
    const { clock, redis, scheduler, events, starts, note } = await afterFirstStart();
    const b = scheduler.reserve('a.test', 300).then(note('b'));
    await flush();
    redis.next('reserve').resolve([1, 300]); // b's slot: T0 + 300
    await clock.advance(300);
    const bConfirm = redis.next('confirm'); // b asks Redis to confirm; Redis hangs

    // Meanwhile another caller finds Redis gone and falls back: its in-process slot comes after b's.
    const c = scheduler.reserve('a.test', 300).then(note('c'));
    await flush();
    redis.next('reserve').reject(new Error('Connection is closed.'));
    await clock.advance(400); // T0 + 700: c started at T0 + 600
    expect(starts).toEqual([
      ['a', T0],
      ['c', T0 + 600],
    ]);

    // b's confirm fails only now: b must not go at once (100 ms after c), but after c's delay.
    bConfirm.reject(new Error('Connection is closed.'));
    await clock.advance(199);
    expect(starts.map(([name]) => name)).toEqual(['a', 'c']);
    await clock.advance(1);
    await Promise.all([b, c]);
    expect(starts).toEqual([
      ['a', T0],
      ['c', T0 + 600],
      ['b', T0 + 900],
    ]);
    expect(events.map((e) => e.type)).toEqual(['scheduler-fallback']);
    expect(scheduler.kind).toBe('memory-fallback');
    await scheduler.close();
  });

  it('callers whose confirms all fail in one step (the connection dropped) still start a delay apart', async () => {
    // A busy process wakes past several slots at once: b, c and d are all asking Redis to confirm
    // when the connection drops, and the client rejects every pending command in the same callback.
    const { clock, redis, scheduler, events, starts, note } = await afterFirstStart();
    const waiting = ['b', 'c', 'd'].map((name, i) => {
      const reservation = scheduler.reserve('a.test', 300).then(note(name));
      return { reservation, slot: 300 * (i + 1) };
    });
    await flush();
    for (const { slot } of waiting) redis.next('reserve').resolve([1, slot, T0 + slot]);
    await clock.advance(900);
    const confirms = waiting.map(() => redis.next('confirm'));
    for (const confirm of confirms) confirm.reject(new Error('Socket closed unexpectedly'));
    await clock.advance(1000);
    await Promise.all(waiting.map((w) => w.reservation));
    const times = starts.map(([, at]) => at);
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t));
    expect(starts.map(([name]) => name)).toEqual(['a', 'b', 'c', 'd']);
    expect(gaps.filter((gap) => gap < 300)).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['scheduler-fallback']);
    await scheduler.close();
  });

  it('callers in the fallback honour maxWaitMs, counted from when they asked Redis', async () => {
    const { clock, redis, scheduler } = setup();
    const a = scheduler.reserve('a.test', 300);
    await flush();
    redis.next('reserve').resolve([1, 0]);
    await a;
    // Redis takes 250 ms to fail: the in-process slot (T0 + 300) is 50 ms away by then, but 300 ms
    // after the caller asked, more than its 280 ms.
    const late = scheduler.reserve('a.test', 300, { maxWaitMs: 280 }).catch((e: unknown) => e);
    await clock.advance(250);
    redis.next('reserve').reject(new Error('Connection is closed.'));
    const error = await late;
    expect(isWaitTooLongError(error)).toBe(true);
    // Once in the fallback, a slot further than maxWaitMs is refused at once, and a later one within it is kept.
    const refused = await scheduler.reserve('a.test', 300, { maxWaitMs: 10 }).catch((e: unknown) => e);
    expect(isWaitTooLongError(refused)).toBe(true);
    const kept = scheduler.reserve('a.test', 300, { maxWaitMs: 100 });
    await clock.advance(100);
    expect(await kept).toEqual({ startAt: T0 + 300, waitMs: 50 });
    await scheduler.close();
  });

  /**
   * Issue 43.4: `afterFirstStart()`, then b finds Redis gone and starts in-process at T0 + 300, then
   * two minutes pass (the process starved while Redis comes back, the others take the host back once
   * their grace is over) and c asks. With fallbackRetryMs and commandTimeoutMs of 60 s no probe timer
   * fires, and Redis is proven away for 60 + 2 x 60 s from the call that failed (sent at most 60 s
   * before): c's in-process start is made past that.
   */
  async function stalledInFallback() {
    const fixture = await afterFirstStart();
    const { clock, redis, scheduler, note } = fixture;
    const b = scheduler.reserve('a.test', 300).then(note('b'));
    await flush();
    redis.next('reserve').reject(new Error('Connection is closed.'));
    await clock.advance(300);
    await b;
    await clock.advance(120_000);
    const c = scheduler.reserve('a.test', 300).then(note('c'));
    await flush();
    return { ...fixture, c, probe: redis.next('other') };
  }

  it('a process stalled past what proves Redis away probes before it starts a host in-process (issue 43.4)', async () => {
    const { clock, redis, scheduler, events, starts, c, probe } = await stalledInFallback();
    expect(starts.map(([name]) => name)).toEqual(['a', 'b']);
    probe.resolve('OK');
    await flush();
    // Redis took the probe: the hand-over goes first (the in-process start c had taken, which it
    // gives up: the polite side), then c asks Redis, which has it wait a delay after that start.
    redis.next('other').resolve(1);
    await flush();
    redis.next('reserve').resolve([1, 300, T0 + 120_600]);
    await clock.advance(300);
    redis.next('confirm').resolve(0);
    await c;
    expect(starts).toEqual([
      ['a', T0],
      ['b', T0 + 300],
      ['c', T0 + 120_600],
    ]);
    expect(events.map((e) => e.type)).toEqual(['scheduler-fallback', 'scheduler-recovered']);
    expect(scheduler.kind).toBe('redis');
    await scheduler.close();
  });

  it('a probe that finds Redis still away proves it again: the in-process start goes on', async () => {
    const { scheduler, events, starts, c, probe } = await stalledInFallback();
    probe.reject(new Error('Connection is closed.'));
    await c;
    expect(starts).toEqual([
      ['a', T0],
      ['b', T0 + 300],
      ['c', T0 + 120_300],
    ]);
    expect(events.map((e) => e.type)).toEqual(['scheduler-fallback']);
    await scheduler.close();
  });
});
