/**
 * The browser navigation hooks, fed the shapes Playwright/Puppeteer and Node hand over, against the
 * real facade on a loopback host: a 429 with Retry-After backs the host off; navigation start pushes
 * the next slot out by the delay.
 */
import { log, NonRetryableError } from '@crawlee/core';
import { createPoliteness, getDisallowedDecision } from '@politely/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { navigationHooks } from '../src/navigation-hooks.js';
import { Reporter } from '../src/reporter.js';
import type { SkipEvent } from '../src/types.js';

let site: TestHost | undefined;
afterEach(async () => {
  await site?.close();
});

async function setup(robots: string) {
  site = await startHost({ ip: '127.0.0.47', routes: { '/robots.txt': text(robots) } });
  let now = 1_000_000;
  // Sleeping moves the fake time on, so a reservation that has to wait resolves at once.
  const clock = {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
  };
  const politeness = createPoliteness({ userAgent: 'HookBot/1.0', minDelayMs: 0, clock });
  const advance = (ms: number) => {
    now += ms;
  };
  return { site, politeness, hooks: navigationHooks(politeness), advance, now: () => now };
}

describe('browser navigation hooks', () => {
  it('turns a browser 429 with Retry-After into a backoff for the host', async () => {
    const { site, politeness, hooks } = await setup('User-agent: *\nAllow: /\n');
    const decision = await politeness.check(site.url('/busy'));
    expect((await politeness.tryReserve(decision)).ok).toBe(true);
    const playwrightResponse = {
      status: () => 429,
      url: () => site.url('/busy'),
      headers: () => ({ 'retry-after': '30' }),
    };
    await hooks.postNavigationHook({ request: { url: site.url('/busy') }, response: playwrightResponse });
    const next = await politeness.tryReserve(decision);
    expect(next.ok).toBe(false);
    expect(next.ok ? 0 : next.waitMs).toBeGreaterThan(29_000);
    expect(politeness.stats().backoffs).toBe(1);
  });

  it('reads a Node response too, and ignores success statuses', async () => {
    const { site, politeness, hooks } = await setup('User-agent: *\nAllow: /\n');
    const decision = await politeness.check(site.url('/ok'));
    await hooks.postNavigationHook({
      request: { url: site.url('/ok') },
      response: { statusCode: 200, headers: {} },
    });
    expect((await politeness.tryReserve(decision)).ok).toBe(true);
    await hooks.postNavigationHook({
      request: { url: site.url('/ok') },
      response: { statusCode: 503, headers: { 'retry-after': '5' } },
    });
    expect(politeness.stats().backoffs).toBe(1);
  });

  it('counts the Crawl-delay from when navigation starts', async () => {
    const { site, politeness, hooks, advance } = await setup('User-agent: *\nCrawl-delay: 20\n');
    const decision = await politeness.check(site.url('/page'));
    // The host is due again well after the robots.txt fetch; take that slot, wait one delay...
    advance(30_000);
    expect((await politeness.tryReserve(decision)).ok).toBe(true);
    advance(20_000);
    // ...but a navigation starting now makes the next one wait a full delay from here.
    await hooks.preNavigationHook({ request: { url: site.url('/page') } });
    const slot = await politeness.tryReserve(decision);
    expect(slot.ok).toBe(false);
    expect(slot.ok ? 0 : slot.waitMs).toBeGreaterThanOrEqual(20_000);
  });
});

describe('browser navigation hooks with reserveAt: send', () => {
  it('take the slot when navigation starts, and fail a request robots.txt no longer allows once', async () => {
    const { site, politeness, now } = await setup('User-agent: *\nCrawl-delay: 20\nDisallow: /gone\n');
    const sent: string[] = [];
    const skips: SkipEvent[] = [];
    const reporter = new Reporter({
      log: log.child({ prefix: 'test', level: 0 }),
      onSkip: (e) => void skips.push(e),
    });
    const hooks = navigationHooks(politeness, {
      reserveAtSend: true,
      onSent: (decision) => void sent.push(decision.url),
      reporter,
    });
    await politeness.check(site.url('/a'));

    const first = now();
    await hooks.preNavigationHook({ request: { url: site.url('/a') } });
    await hooks.preNavigationHook({ request: { url: site.url('/b') } });
    // The second navigation waited a full Crawl-delay (plus the safety margin) after the first.
    expect(now() - first).toBeGreaterThanOrEqual(20_000);
    expect(politeness.stats().reservations).toMatchObject({ immediate: 1, waited: 1 });
    expect(sent).toEqual([site.url('/a'), site.url('/b')]);

    const error = await hooks
      .preNavigationHook({ request: { url: site.url('/gone') } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(getDisallowedDecision(error)).toMatchObject({ reason: 'disallowed', url: site.url('/gone') });
    expect(skips.map((skip) => [skip.reason, skip.stage])).toEqual([['disallowed', 'send']]);
  });
});
