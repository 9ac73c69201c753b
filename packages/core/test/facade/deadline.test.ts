/**
 * check/admit with `timeoutMs`: the robots.txt wait of this caller stops with DeadlineExceededError;
 * the shared fetch goes on and answers the callers without a limit (issue 10, item 6).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { createPoliteness, DeadlineExceededError, isRobotsDisallowedError } from '../../src/index.js';

describe('check and admit with timeoutMs', () => {
  let site: TestHost;
  beforeAll(async () => {
    site = await startHost({
      ip: '127.0.0.46',
      routes: { '/robots.txt': { ...text('User-agent: *\nDisallow: /private\n'), delayMs: 600 } },
    });
  });
  afterAll(() => site.close());

  it('a caller with a short limit gives up; the shared fetch answers the others', async () => {
    const politeness = createPoliteness({
      userAgent: 'PoliteBot/1.0',
      scheduler: 'memory',
      pacing: { minDelayMs: 0 },
      logger: false,
    });
    const patient = politeness.check(site.url('/private/a'));
    const hurried = politeness
      .check(site.url('/private/b'), { timeoutMs: 100 })
      .catch((error: unknown) => error);
    const error = await hurried;
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error).toMatchObject({ code: 'ERR_DEADLINE_EXCEEDED', phase: 'robots.txt', timeoutMs: 100 });
    expect(isRobotsDisallowedError(error)).toBe(false);
    expect(await patient).toMatchObject({ allowed: false, reason: 'disallowed' });
    // Once known, a limit costs nothing: the answer is in memory.
    expect(await politeness.check(site.url('/private/c'), { timeoutMs: 0 })).toMatchObject({
      allowed: false,
    });
    expect(site.requests('/robots.txt')).toHaveLength(1);
    await politeness.close();
  });

  it('admit: the limit covers robots.txt, then what is left bounds the pacing wait', async () => {
    const politeness = createPoliteness({
      userAgent: 'PoliteBot/1.0',
      scheduler: 'memory',
      pacing: { minDelayMs: 2000 },
      logger: false,
    });
    await politeness.admit(site.url('/open/1'));
    const error = await politeness.admit(site.url('/open/2'), { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_WAIT_TOO_LONG' });
    await politeness.close();
  });

  it('rejects a bad timeoutMs with a TypeError that echoes it', async () => {
    const politeness = createPoliteness({ userAgent: 'PoliteBot/1.0', scheduler: 'memory', logger: false });
    await expect(politeness.check(site.url('/x'), { timeoutMs: -1 })).rejects.toThrow(/timeoutMs.*-1/);
    await expect(politeness.admit(site.url('/x'), { timeoutMs: Number.NaN })).rejects.toThrow(/timeoutMs/);
    await politeness.close();
  });
});
