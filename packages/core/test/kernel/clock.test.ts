import { afterEach, describe, expect, it, vi } from 'vitest';
import { installInstantTimers } from '../../../../test/helpers/instant-timers.js';
import { systemClock } from '../../src/kernel/clock.js';

describe('systemClock', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('reads Date.now', () => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
    expect(systemClock.now()).toBe(1_700_000_000_000);
  });

  it('never wakes before Date.now() reaches the target, even when a timer fires early', async () => {
    vi.useFakeTimers({ now: 0 });
    // Node timers can fire up to ~1 ms before Date.now() has advanced that far; model it by having
    // the first timer run while the system time still lags 1 ms behind.
    let woke = false;
    const sleeping = systemClock.sleep(100).then(() => {
      woke = true;
    });
    vi.setSystemTime(-1); // the clock the timer compares with now lags 1 ms
    await vi.advanceTimersByTimeAsync(100);
    expect(Date.now()).toBe(99);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(100);
    await sleeping;
  });

  it('rejects with the signal reason on abort and clears its timer', async () => {
    vi.useFakeTimers({ now: 0 });
    const controller = new AbortController();
    const sleeping = systemClock.sleep(10_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once for an already aborted signal', async () => {
    const reason = new Error('stopped before');
    await expect(systemClock.sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('resolves at once for zero, negative or non-finite durations', async () => {
    vi.useFakeTimers({ now: 0 });
    for (const ms of [0, -5, Number.NaN]) await systemClock.sleep(ms);
    expect(Date.now()).toBe(0);
  });

  it('on real timers, every sleeper wakes at or after its target', async () => {
    const sleeps = Array.from({ length: 40 }, (_, i) => {
      const target = Date.now() + 1 + (i % 8);
      return systemClock.sleep(target - Date.now()).then(() => Date.now() - target);
    });
    const lateness = await Promise.all(sleeps);
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
  });

  it('under a setTimeout that runs at once, a sleep ends with it instead of spinning until the target', async () => {
    installInstantTimers();
    const startedAt = performance.now();
    await systemClock.sleep(10_000);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });
});
