/**
 * The decision policy on its own: a cache entry, a URL and the options in, a Decision out. Each
 * branch once, with no server and no clock.
 */
import { describe, expect, it } from 'vitest';
import type { RobotsEntry } from '../../src/cache/types.js';
import { type DecisionPolicy, decide, robotsTxtItself } from '../../src/facade/decision-policy.js';
import { RobotsDisallowedError } from '../../src/index.js';
import { withSafetyMargin } from '../../src/kernel/safety-margin.js';
import { parseRobotsTxt } from '../../src/public/engine.js';

const POLICY: DecisionPolicy = {
  productToken: 'FooBot',
  minDelayMs: 1000,
  respectCrawlDelay: true,
  maxCrawlDelayMs: 30_000,
  crawlDelayAboveMax: 'skip',
  onUnreachable: 'disallow',
  purpose: undefined,
};

const PAGE = new URL('https://user:secret@example.test/private/x');

function entry(fields: Partial<RobotsEntry> & Pick<RobotsEntry, 'source'>): RobotsEntry {
  return {
    origin: 'https://example.test',
    robotsUrl: 'https://example.test/robots.txt',
    status: 200,
    fetchedAt: 0,
    freshUntil: 0,
    ...fields,
  };
}

const rules = (body: string) => entry({ source: 'robots.txt', robots: parseRobotsTxt(body) });

describe('decide', () => {
  it('a rule that disallows: the deciding line, the delay with its margin, no credentials', () => {
    const decision = decide(rules('User-agent: *\nDisallow: /private\n'), PAGE, 'example.test', POLICY);
    expect(decision).toEqual({
      allowed: false,
      reason: 'disallowed',
      url: 'https://example.test/private/x',
      robotsUrl: 'https://example.test/robots.txt',
      productToken: 'FooBot',
      hostKey: 'example.test',
      source: 'robots.txt',
      delayMs: 1050,
      askedDelayMs: 1000,
      rule: { directive: 'disallow', pattern: '/private', line: 2 },
    });
  });

  it('Crawl-delay above minDelayMs is the delay asked; off with respectCrawlDelay: false', () => {
    const slow = rules('User-agent: *\nCrawl-delay: 2\n');
    expect(decide(slow, PAGE, 'h', POLICY)).toMatchObject({
      allowed: true,
      crawlDelayMs: 2000,
      askedDelayMs: 2000,
      delayMs: 2050,
    });
    const ignored = decide(slow, PAGE, 'h', { ...POLICY, respectCrawlDelay: false });
    expect(ignored).toMatchObject({ allowed: true, askedDelayMs: 1000 });
    expect(ignored).not.toHaveProperty('crawlDelayMs');
  });

  it('Crawl-delay above maxCrawlDelayMs: skipped, or capped with crawlDelayAboveMax: cap', () => {
    const tooSlow = rules('User-agent: *\nCrawl-delay: 60\n');
    expect(decide(tooSlow, PAGE, 'h', POLICY)).toMatchObject({
      allowed: false,
      reason: 'crawl-delay-too-long',
      crawlDelayMs: 60_000,
    });
    expect(decide(tooSlow, PAGE, 'h', { ...POLICY, crawlDelayAboveMax: 'cap' })).toMatchObject({
      allowed: true,
      askedDelayMs: 30_000,
    });
  });

  it('unavailable (4xx) allows all; unreachable disallows all unless onUnreachable is allow', () => {
    expect(decide(entry({ source: 'unavailable', status: 404 }), PAGE, 'h', POLICY)).toMatchObject({
      allowed: true,
      source: 'unavailable',
      delayMs: 1050,
    });
    const down = entry({ source: 'unreachable', status: 503 });
    expect(decide(down, PAGE, 'h', POLICY)).toMatchObject({ allowed: false, reason: 'unreachable' });
    expect(decide(down, PAGE, 'h', { ...POLICY, onUnreachable: 'allow' })).toMatchObject({
      allowed: true,
      source: 'unreachable',
    });
  });

  it('an unreachable robots.txt names why, in the decision and in the refusal (stale copies too)', () => {
    const dns = entry({ source: 'unreachable', status: 0, error: 'getaddrinfo ENOTFOUND shop.internal' });
    const refused = decide(dns, PAGE, 'h', POLICY);
    expect(refused).toMatchObject({
      allowed: false,
      reason: 'unreachable',
      robots: { outcome: 'unreachable', status: 0, error: 'getaddrinfo ENOTFOUND shop.internal' },
    });
    expect(new RobotsDisallowedError(refused).message).toContain(
      'robots.txt unreachable: getaddrinfo ENOTFOUND shop.internal',
    );
    // Written by an older process: no error text, the status says it.
    expect(decide(entry({ source: 'unreachable', status: 503 }), PAGE, 'h', POLICY).robots).toEqual({
      outcome: 'unreachable',
      status: 503,
      error: 'HTTP 503',
    });
    const stale = entry({ source: 'stale', status: 502, error: 'HTTP 502', robots: parseRobotsTxt('') });
    expect(decide(stale, PAGE, 'h', POLICY)).toMatchObject({ allowed: true, robots: { error: 'HTTP 502' } });
    expect(decide(rules(''), PAGE, 'h', POLICY)).not.toHaveProperty('robots');
  });

  it("Google's timeline disallows all in its disallow-all and site-down phases whatever onUnreachable says", () => {
    const allow = { ...POLICY, onUnreachable: 'allow' as const };
    for (const phase of ['disallow-all', 'site-down'] as const) {
      const down = entry({ source: 'unreachable', status: 0, outage: { since: 0, phase } });
      expect(decide(down, PAGE, 'h', allow)).toMatchObject({ allowed: false, reason: 'unreachable' });
    }
    const allowAll = entry({ source: 'unreachable', status: 0, outage: { since: 0, phase: 'allow-all' } });
    expect(decide(allowAll, PAGE, 'h', POLICY)).toMatchObject({ allowed: false, reason: 'unreachable' });
    expect(decide(allowAll, PAGE, 'h', allow)).toMatchObject({ allowed: true });
  });
});

describe('robotsTxtItself', () => {
  it('is always allowed (RFC 9309 2.2.2) and paced by minDelayMs', () => {
    expect(robotsTxtItself(new URL('https://example.test/robots.txt'), 'h', POLICY)).toMatchObject({
      allowed: true,
      source: 'robots.txt-itself',
      robotsUrl: 'https://example.test/robots.txt',
      delayMs: 1050,
      askedDelayMs: 1000,
    });
  });

  it('is paced as a page of its origin once that robots.txt is known: its Crawl-delay, capped', () => {
    const robotsTxt = new URL('https://example.test/robots.txt');
    const known = rules('User-agent: FooBot\nCrawl-delay: 2\n');
    expect(robotsTxtItself(robotsTxt, 'h', POLICY, known)).toMatchObject({
      delayMs: 2050,
      askedDelayMs: 2000,
    });
    const capped = { ...POLICY, maxCrawlDelayMs: 1500 };
    expect(robotsTxtItself(robotsTxt, 'h', capped, known)).toMatchObject({ askedDelayMs: 1500 });
    const ignored = { ...POLICY, respectCrawlDelay: false };
    expect(robotsTxtItself(robotsTxt, 'h', ignored, known)).toMatchObject({ askedDelayMs: 1000 });
  });
});

describe('withSafetyMargin', () => {
  it('adds 10% of the delay, at most 50 ms', () => {
    expect([0, 200, 1000, 5000].map(withSafetyMargin)).toEqual([0, 220, 1050, 5050]);
  });
});
