import { afterEach, describe, expect, it, vi } from 'vitest';
import { installInstantTimers } from '../../../../test/helpers/instant-timers.js';
import { startDeadline } from '../../src/kernel/deadline.js';

describe('startDeadline', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('expires after the time asked, on real timers', async () => {
    const startedAt = performance.now();
    const expired = await new Promise<number>((resolve) => {
      startDeadline(40, () => resolve(performance.now()));
    });
    expect(expired - startedAt).toBeGreaterThanOrEqual(39);
  });

  it('a cancelled deadline never expires', async () => {
    let expired = false;
    const cancel = startDeadline(5, () => {
      expired = true;
    });
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(expired).toBe(false);
  });

  it('under a setTimeout that runs at once, expires after its slices instead of spinning for the whole time', async () => {
    installInstantTimers();
    const startedAt = performance.now();
    await new Promise<void>((resolve) => {
      startDeadline(10_000, resolve);
    });
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });
});
