/**
 * Reading rate-limit headers: the draft's RateLimit / RateLimit-Policy lists, the older RateLimit-*
 * and X-RateLimit-* triples (Reset as delta seconds, epoch seconds, epoch ms or an HTTP-date), the
 * most restrictive quota winning, and garbage read as nothing.
 */
import { describe, expect, it } from 'vitest';
import { readRateLimit } from '../../src/signals/rate-limit-headers.js';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);

describe('readRateLimit', () => {
  it('RateLimit r remaining in t seconds: t / r between starts, until the reset', () => {
    expect(readRateLimit({ ratelimit: '"default";r=5;t=10' }, NOW)).toEqual({
      header: 'RateLimit',
      policy: 'default',
      remaining: 5,
      resetMs: 10_000,
      spacingMs: 2000,
      forMs: 10_000,
    });
  });

  it('none remaining holds the host until the reset; one remaining lands at the reset', () => {
    expect(readRateLimit({ ratelimit: '"default";r=0;t=30' }, NOW)).toMatchObject({ spacingMs: 30_000 });
    expect(readRateLimit({ ratelimit: '"default";r=1;t=30' }, NOW)).toMatchObject({ spacingMs: 30_000 });
  });

  it('reads a Fetch Headers, token names, and several lines of one field', () => {
    const headers = new Headers();
    headers.append('RateLimit', 'burst;r=50;t=5');
    headers.append('RateLimit', '"day";r=10;t=100');
    expect(readRateLimit(headers, NOW)).toMatchObject({ policy: 'day', spacingMs: 10_000 });
    // Node gives repeated unknown headers as one joined string, browsers join them with newlines.
    expect(readRateLimit({ ratelimit: 'burst;r=50;t=5\n"day";r=10;t=100' }, NOW)).toMatchObject({
      policy: 'day',
    });
    expect(readRateLimit({ ratelimit: ['burst;r=50;t=5', '"day";r=10;t=100'] }, NOW)).toMatchObject({
      policy: 'day',
    });
    // A record built by hand, names as the site spelled them.
    expect(readRateLimit({ RateLimit: '"a";r=1;t=4' }, NOW)).toMatchObject({ policy: 'a', spacingMs: 4000 });
  });

  it('the widest spacing of all the quotas described wins', () => {
    const reading = readRateLimit(
      {
        ratelimit: '"burst";r=9;t=1',
        'ratelimit-policy': '"burst";q=10;w=1, "daily";q=1000;w=86400',
        'x-ratelimit-remaining': '100',
        'x-ratelimit-reset': '60',
      },
      NOW,
    );
    // burst: 1000/9 ms; daily policy (no RateLimit item for it): 86.4 s; legacy: 600 ms.
    expect(reading).toMatchObject({ header: 'RateLimit-Policy', policy: 'daily', spacingMs: 86_400 });
  });

  it('a RateLimit item without t is reset within its policy window', () => {
    const reading = readRateLimit({ ratelimit: '"a";r=4', 'ratelimit-policy': '"a";q=10;w=8' }, NOW);
    expect(reading).toMatchObject({
      remaining: 4,
      quota: 10,
      windowMs: 8000,
      resetMs: 8000,
      spacingMs: 2000,
    });
    // Without a window nothing says when: nothing paces.
    expect(readRateLimit({ ratelimit: '"a";r=4' }, NOW)).toBeUndefined();
  });

  it('a policy counting something else than requests (qu) does not pace', () => {
    const bytes = { ratelimit: '"b";r=10;t=60', 'ratelimit-policy': '"b";q=1000;qu="content-bytes";w=60' };
    expect(readRateLimit(bytes, NOW)).toBeUndefined();
    expect(readRateLimit({ 'ratelimit-policy': '"b";q=10;qu="content-bytes";w=60' }, NOW)).toBeUndefined();
    expect(readRateLimit({ 'ratelimit-policy': '"r";q=10;qu="requests";w=60' }, NOW)).toMatchObject({
      spacingMs: 6000,
    });
  });

  it('legacy Reset as delta seconds, epoch seconds, epoch ms or an HTTP-date', () => {
    const at = (reset: string) =>
      readRateLimit(
        { 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': reset, 'x-ratelimit-limit': '60' },
        NOW,
      );
    expect(at('20')).toEqual({
      header: 'X-RateLimit-Remaining',
      remaining: 4,
      resetMs: 20_000,
      quota: 60,
      spacingMs: 5000,
      forMs: 20_000,
    });
    expect(at(String(NOW / 1000 + 20))).toMatchObject({ resetMs: 20_000, spacingMs: 5000 });
    expect(at(String(NOW + 20_000))).toMatchObject({ resetMs: 20_000 });
    expect(at(new Date(NOW + 20_000).toUTCString())).toMatchObject({ resetMs: 20_000 });
    // The obsolete asctime form is an HTTP-date too; an ISO date, which Date.parse takes, is not.
    expect(at('Thu Nov 26 12:00:20 2026')).toMatchObject({ resetMs: 20_000 });
    expect(at('2026-11-26T12:00:20Z')).toBeUndefined();
    // A timestamp in the past is stale: no pace from it.
    expect(at(String(NOW / 1000 - 5))).toBeUndefined();
    expect(readRateLimit({ 'ratelimit-remaining': '2', 'ratelimit-reset': '8' }, NOW)).toMatchObject({
      header: 'RateLimit-Remaining',
      spacingMs: 4000,
    });
  });

  it('garbage is read as nothing, never thrown', () => {
    const garbage = [
      { ratelimit: 'r=5;t=10;;' },
      { ratelimit: '"default";r=-1;t=10' },
      { ratelimit: '"default";r=5;t=-3' },
      { ratelimit: '"default";r=abc;t=10' },
      { ratelimit: '"default";r=2.5;t=10' },
      { ratelimit: '("a" "b");r=1;t=10' },
      { ratelimit: `"x";r=1;t=${'9'.repeat(5000)}` },
      { 'ratelimit-policy': '"p";q=0;w=0' },
      { 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': '10' },
      { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': 'soon' },
      { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '-10' },
      { 'x-ratelimit-remaining': '5' },
      { 'x-ratelimit-limit': '100' },
      { ratelimit: 12 },
      {},
    ];
    for (const headers of garbage)
      expect(readRateLimit(headers, NOW), JSON.stringify(headers)).toBeUndefined();
    expect(readRateLimit(undefined, NOW)).toBeUndefined();
    const throwing = {
      get() {
        throw new Error('broken headers');
      },
    };
    expect(readRateLimit(throwing, NOW)).toBeUndefined();
  });
});
