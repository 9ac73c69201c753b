/**
 * Rate-limit headers through the facade, on a fake clock: what remains of a host's quota is spread
 * over the time to its reset, never faster than minDelayMs or Crawl-delay; beside a Retry-After, on
 * any status, the longer wait holds; the pace goes back to normal after the reset; a `pace-changed` event says why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { internalOptions } from '../../../../test/helpers/options.js';
import {
  createPoliteness,
  type Decision,
  isRobotsDisallowedError,
  isWaitTooLongError,
  type PolitelyEvent,
  type Politeness,
} from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
import { createFakeClock } from '../schedule/fake-clock.js';
import { starts } from './reserve-starts.js';

const instances: Politeness[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
});

function setUp(
  options: { robots?: string; rateLimitHeaders?: boolean; maxBackoffMs?: number; startAt?: number } = {},
) {
  const { robots = 'User-agent: *\nAllow: /\n', startAt, ...rest } = options;
  const clock = createFakeClock(startAt);
  const events: PolitelyEvent[] = [];
  const p = createPoliteness(
    internalOptions({
      userAgent: 'QuotaBot/1.0',
      pacing: { minDelayMs: 100, ...rest },
      logger: false,
      clock,
      robots: { fetch: async () => new Response(robots, { status: 200 }) },
      onEvent: (event) => {
        if (event.type === 'pace-changed' || event.type === 'backoff') events.push(event);
      },
    }),
  );
  instances.push(p);
  return { p, clock, events };
}

const URL_A = 'http://quota.test/a';

const pace = (p: Politeness, decision: Decision): number | undefined => adapterKit(p).paceMs(decision);

/** How long from now the host's next start is (0: a slot is free now), judged by the scheduler. */
async function waitFor(p: Politeness, clock: { now(): number }, decision: Decision): Promise<number> {
  const next = await adapterKit(p).tryReserve(decision);
  return next.ok ? 0 : next.notBefore - clock.now();
}

describe('rate-limit headers pace the host (fake clock)', () => {
  it('r=5 in t=10 s: 2 s between starts until the reset, then the asked delay again', async () => {
    const { p, clock, events } = setUp();
    const decision = await p.check(URL_A);
    const base = pace(p, decision);
    const answeredAt = clock.now();
    await p.observeResponse(URL_A, 200, null, { headers: { ratelimit: '"default";r=5;t=10' } });
    expect(pace(p, decision)).toBe(2000);
    const times = await starts(p, clock, decision, 3);
    // The response itself holds the host: the first start is a full spacing after it.
    expect(times[0]).toBeGreaterThanOrEqual(answeredAt + 2000);
    for (let i = 1; i < times.length; i++)
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(2000);
    expect(events).toContainEqual({
      type: 'pace-changed',
      host: 'quota.test',
      fromMs: base,
      toMs: 2000,
      reason: 'rate-limit',
      penalty: 1,
      untilMs: answeredAt + 10_000,
      rateLimit: { header: 'RateLimit', policy: 'default', remaining: 5, resetMs: 10_000, spacingMs: 2000 },
    });
    await clock.advance(answeredAt + 10_000 - clock.now());
    expect(pace(p, decision)).toBe(base);
    // The next response, quota reset and no header, says so.
    await p.observeResponse(URL_A, 200, null, { headers: {} });
    expect(events.at(-1)).toMatchObject({ reason: 'rate-limit-reset', fromMs: 2000, toMs: base });
  });

  it('each response replaces the last reading: fewer left in less time, the spacing follows', async () => {
    const { p, events } = setUp();
    const decision = await p.check(URL_A);
    const base = pace(p, decision);
    await p.observeResponse(URL_A, 200, null, { headers: { ratelimit: '"default";r=4;t=8' } });
    expect(pace(p, decision)).toBe(2000);
    await p.observeResponse(URL_A, 200, null, { headers: { ratelimit: '"default";r=1;t=6' } });
    expect(pace(p, decision)).toBe(6000);
    await p.observeResponse(URL_A, 200, null, { headers: { ratelimit: '"default";r=600;t=60' } });
    // 100 ms per request is faster than minDelayMs (with core's margin): the asked delay stays, and
    // the quota no longer holds the host.
    expect(pace(p, decision)).toBe(base);
    expect(events.at(-1)).toMatchObject({ reason: 'rate-limit-reset', fromMs: 6000, toMs: base });
  });

  it('never faster than Crawl-delay or minDelayMs: a generous quota does not speed a host up', async () => {
    const { p } = setUp({ robots: 'User-agent: *\nCrawl-delay: 3\n' });
    const decision = await p.check(URL_A);
    const floor = pace(p, decision);
    expect(floor).toBeGreaterThanOrEqual(3000);
    await p.observeResponse(URL_A, 200, null, { headers: { ratelimit: '"default";r=100;t=10' } });
    expect(pace(p, decision)).toBe(floor);
    await p.observeResponse(URL_A, 200, null, { headers: { ratelimit: '"default";r=2;t=10' } });
    expect(pace(p, decision)).toBe(5000);
  });

  it('a generous quota holds nothing: the next start is due a delay after the last, as without it', async () => {
    const { p, clock } = setUp();
    const decision = await p.check(URL_A);
    await starts(p, clock, decision, 1);
    await clock.advance((pace(p, decision) ?? 0) + 10);
    await p.observeResponse(URL_A, 200, null, {
      headers: { 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': '60' },
    });
    expect(await adapterKit(p).tryReserve(decision)).toMatchObject({ ok: true });
  });

  it('none remaining holds the host until the reset, also on a 429 without Retry-After', async () => {
    const { p, clock } = setUp();
    const decision = await p.check(URL_A);
    await p.observeResponse(URL_A, 429, null, {
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' },
    });
    const next = await adapterKit(p).tryReserve(decision);
    expect(next.ok === false && next.notBefore - clock.now()).toBeGreaterThanOrEqual(30_000);
  });

  it('Retry-After and the quota: the longer wait holds the host, whichever says it', async () => {
    const { p, clock } = setUp();
    const decision = await p.check(URL_A);
    // Retry-After 4 s, quota empty for 60 s: the quota's reset is the later, so it holds.
    const ms = await p.observeResponse(URL_A, 503, '4', { headers: { ratelimit: '"default";r=0;t=60' } });
    expect(ms).toBe(4000);
    expect(await waitFor(p, clock, decision)).toBeGreaterThanOrEqual(60_000);
    // On another host, Retry-After 40 s with a quota back in 2 s: Retry-After is the later.
    const other = await p.check('http://other.quota.test/a');
    await p.observeResponse(other.url, 429, '40', { headers: { ratelimit: '"default";r=0;t=2' } });
    expect(await waitFor(p, clock, other)).toBeGreaterThanOrEqual(40_000);
  });

  it("GitHub's limit answer (403, Retry-After 60, remaining 0, reset 300 s away) holds the host 300 s", async () => {
    // A clock in 2026: GitHub's X-RateLimit-Reset is an epoch timestamp in seconds.
    const { p, clock } = setUp({ startAt: Date.UTC(2026, 10, 28, 9, 0, 0) });
    const decision = await p.check(URL_A);
    const resetAt = (clock.now() + 300_000) / 1000;
    const ms = await p.observeResponse(URL_A, 403, '60', {
      headers: {
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(resetAt),
      },
    });
    // The Retry-After is honoured on a 403 too, and the quota's reset, later, holds the host: until
    // the reset (300 s), neither the 60 s of Retry-After nor the 600 s cap.
    expect(ms).toBe(60_000);
    const held = await waitFor(p, clock, decision);
    expect(held).toBeGreaterThanOrEqual(300_000);
    expect(held).toBeLessThan(301_000);
  });

  it('a Retry-After on any status backs the host off; one of 0 leaves the quota to hold it', async () => {
    const { p, clock } = setUp();
    const decision = await p.check(URL_A);
    await p.observeResponse(URL_A, 200, '0', { headers: { ratelimit: '"default";r=0;t=300' } });
    expect(await waitFor(p, clock, decision)).toBeGreaterThanOrEqual(300_000);
    const other = await p.check('http://other.quota.test/a');
    expect(await p.observeResponse(other.url, 403, '30', { headers: {} })).toBe(30_000);
    expect(await waitFor(p, clock, other)).toBeGreaterThanOrEqual(30_000);
  });

  it('a Retry-After of 400 digits is capped at maxBackoffMs, on a 429 and on a 503', async () => {
    const { p, clock } = setUp();
    const huge = '9'.repeat(400);
    for (const [status, url] of [
      [429, URL_A],
      [503, 'http://other.quota.test/a'],
    ] as const) {
      const decision = await p.check(url);
      expect(await p.observeResponse(url, status, huge)).toBe(600_000);
      expect(await waitFor(p, clock, decision)).toBeGreaterThanOrEqual(599_000);
    }
  });

  it('every RateLimit-Policy item is read: a 300 s policy after 16 generous ones paces the host', async () => {
    const { p } = setUp();
    const decision = await p.check(URL_A);
    const generous = Array.from({ length: 16 }, (_, i) => `"p${i}";q=1000;w=1`);
    const policy = [...generous, '"slow";q=1;w=300'].join(', ');
    await p.observeResponse(URL_A, 200, null, { headers: { 'ratelimit-policy': policy } });
    expect(pace(p, decision)).toBe(300_000);
  });

  it('q=0 lets no request in: the host is held as long as any header may hold it, not as q=1', async () => {
    const { p } = setUp();
    const one = await p.check(URL_A);
    await p.observeResponse(URL_A, 200, null, { headers: { 'ratelimit-policy': '"p";q=1;w=60' } });
    expect(pace(p, one)).toBe(60_000);
    const none = await p.check('http://other.quota.test/a');
    await p.observeResponse(none.url, 200, null, { headers: { 'ratelimit-policy': '"p";q=0;w=60' } });
    expect(pace(p, none)).toBe(600_000);
  });

  it('no header holds a host longer than maxBackoffMs', async () => {
    const { p } = setUp({ maxBackoffMs: 20_000 });
    const decision = await p.check(URL_A);
    await p.observeResponse(URL_A, 200, null, { headers: { ratelimit: '"daily";r=0;t=86400' } });
    expect(pace(p, decision)).toBe(20_000);
  });

  it('garbage changes nothing; rateLimitHeaders: false reads nothing', async () => {
    const { p, events } = setUp();
    const decision = await p.check(URL_A);
    const base = pace(p, decision);
    for (const ratelimit of ['"default";r=-5;t=10', 'r=;t', '"default";r=5;t=1e9x']) {
      await expect(p.observeResponse(URL_A, 200, null, { headers: { ratelimit } })).resolves.toBeUndefined();
    }
    expect(pace(p, decision)).toBe(base);
    expect(events).toEqual([]);
    const off = setUp({ rateLimitHeaders: false });
    const offDecision = await off.p.check(URL_A);
    await off.p.observeResponse(URL_A, 200, null, { headers: { ratelimit: '"default";r=1;t=10' } });
    expect(pace(off.p, offDecision)).toBe(pace(p, decision));
  });
});

describe('a rate limit above maxRateLimitDelayMs (rateLimitAboveMax, fake clock)', () => {
  const TEN_MINUTES = { headers: { ratelimit: '"default";r=0;t=600' } };

  function limited(rateLimitAboveMax?: 'wait' | 'skip' | 'fail') {
    const clock = createFakeClock();
    const events: PolitelyEvent[] = [];
    const warnings: string[] = [];
    const p = createPoliteness(
      internalOptions({
        userAgent: 'QuotaBot/1.0',
        pacing: { minDelayMs: 100, ...(rateLimitAboveMax ? { rateLimitAboveMax } : {}) },
        clock,
        logger: { warn: (message: string) => warnings.push(message) },
        robots: { fetch: async () => new Response('User-agent: *\nAllow: /\n', { status: 200 }) },
        onEvent: (event) => {
          if (event.type === 'rate-limit-above-max') events.push(event);
        },
      }),
    );
    instances.push(p);
    return { p, clock, events, warnings };
  }

  it("'wait' (the default): the host waits as asked, and the operator hears of it once", async () => {
    const { p, clock, events, warnings } = limited();
    const decision = await p.check(URL_A);
    const answeredAt = clock.now();
    for (let i = 0; i < 3; i++) await p.observeResponse(URL_A, 200, null, TEN_MINUTES);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'rate-limit-above-max',
        host: 'quota.test',
        spacingMs: 600_000,
        untilMs: answeredAt + 600_000,
        maxRateLimitDelayMs: 30_000,
        action: 'wait',
      }),
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('quota.test');
    expect(warnings[0]).toContain('maxRateLimitDelayMs');
    expect((await p.check(URL_A)).allowed).toBe(true);
    expect(await waitFor(p, clock, decision)).toBeGreaterThanOrEqual(599_000);
  });

  it("'skip': the host's URLs are refused (reason 'rate-limited') until the reset, and then allowed", async () => {
    const { p, clock, events, warnings } = limited('skip');
    const decision = await p.check(URL_A);
    await p.observeResponse(URL_A, 200, null, TEN_MINUTES);
    const refused = await p.check('http://quota.test/b');
    expect(refused).toMatchObject({ allowed: false, reason: 'rate-limited' });
    expect(refused.allowed === false && refused.rateLimit?.spacingMs).toBe(600_000);
    const error = await p.admit('http://quota.test/b').catch((e: unknown) => e);
    expect(isRobotsDisallowedError(error)).toBe(true);
    expect(String((error as Error).message)).toContain('maxRateLimitDelayMs');
    // A request allowed before the limit came is not sent during it either.
    await expect(adapterKit(p).tryReserve(decision)).rejects.toSatisfy(isRobotsDisallowedError);
    // Another host is not touched.
    expect((await p.check('http://other.quota.test/a')).allowed).toBe(true);
    expect(p.stats().decisions.rateLimited).toBeGreaterThanOrEqual(2);
    expect(events).toEqual([expect.objectContaining({ action: 'skip', host: 'quota.test' })]);
    expect(warnings).toHaveLength(1);
    await clock.advance(600_000);
    expect((await p.check('http://quota.test/b')).allowed).toBe(true);
    expect(await adapterKit(p).tryReserve(decision)).toMatchObject({ ok: true });
  });

  it("'fail': the host's requests fail with WaitTooLongError until the reset; a limit under the max waits", async () => {
    const { p, clock, events } = limited('fail');
    const other = 'http://other.quota.test/a';
    const otherDecision = await p.check(other);
    // robots.txt known first: its fetch would wait for the host's slot, on a clock nobody advances.
    await p.check(URL_A);
    await p.observeResponse(URL_A, 200, null, TEN_MINUTES);
    expect((await p.check(URL_A)).allowed).toBe(true);
    const error = await p.admit(URL_A).catch((e: unknown) => e);
    expect(isWaitTooLongError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'ERR_WAIT_TOO_LONG', host: 'quota.test', maxWaitMs: 30_000 });
    expect(String((error as Error).message)).toContain('maxRateLimitDelayMs');
    // 20 s between requests is under the 30 s max: paced as asked, no event, nothing fails.
    await p.observeResponse(other, 200, null, { headers: { ratelimit: '"default";r=3;t=60' } });
    expect(pace(p, otherDecision)).toBe(20_000);
    expect(events).toHaveLength(1);
    await clock.advance(600_000);
    expect(await adapterKit(p).tryReserve(await p.check(URL_A))).toMatchObject({ ok: true });
  });
});
