import { describe, expect, it } from 'vitest';
import { freshUntil, retryAt } from '../../src/fetch/freshness.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const DAY = 86_400_000;
const limits = { cacheTtlMs: DAY, unreachableRetryMs: 60_000 };

describe('freshUntil: caching headers within [1 min, cacheTtlMs] (RFC 9309 2.4)', () => {
  it.each([
    ['no headers', {}, DAY],
    ['max-age=3600', { cacheControl: 'max-age=3600' }, 3_600_000],
    ['s-maxage wins over max-age (shared cache)', { cacheControl: 'max-age=3600, s-maxage=7200' }, 7_200_000],
    ['max-age above the cap', { cacheControl: 'public, max-age=31536000' }, DAY],
    ['max-age=0 hits the floor', { cacheControl: 'max-age=0' }, 60_000],
    ['no-store hits the floor', { cacheControl: 'no-store' }, 60_000],
    ['no-cache hits the floor', { cacheControl: 'No-Cache, max-age=3600' }, 60_000],
    ['quoted max-age', { cacheControl: 'max-age="600"' }, 600_000],
    // RFC 9111 1.2.2 / 4.2.1: an invalid or ambiguous max-age is stale, so the floor applies.
    ['garbage max-age is stale', { cacheControl: 'max-age=soon' }, 60_000],
    ['negative max-age is stale', { cacheControl: 'max-age=-1' }, 60_000],
    ['fractional max-age is stale', { cacheControl: 'max-age=1.5' }, 60_000],
    ['empty max-age is stale', { cacheControl: 'max-age=' }, 60_000],
    ['max-age without a value is stale', { cacheControl: 'public, max-age' }, 60_000],
    ['duplicate max-age that disagree are stale', { cacheControl: 'max-age=3600, max-age=86400' }, 60_000],
    ['duplicate max-age that agree are used', { cacheControl: 'max-age=3600, max-age=3600' }, 3_600_000],
    [
      'garbage s-maxage is stale even with a valid max-age',
      { cacheControl: 's-maxage=x, max-age=3600' },
      60_000,
    ],
    ['Expires in 2 h', { expires: new Date(NOW + 7_200_000).toUTCString() }, 7_200_000],
    [
      'max-age beats Expires',
      { cacheControl: 'max-age=600', expires: new Date(NOW + 7_200_000).toUTCString() },
      600_000,
    ],
    ['invalid Expires means expired', { expires: '0' }, 60_000],
    ['Expires in the past', { expires: new Date(NOW - 1000).toUTCString() }, 60_000],
  ])('%s', (_name, headers, lifetime) => {
    expect(freshUntil(NOW, headers, limits) - NOW).toBe(lifetime);
  });

  it('a cacheTtlMs below the floor wins (the floor never lengthens the configured maximum)', () => {
    expect(freshUntil(NOW, { cacheControl: 'max-age=0' }, { ...limits, cacheTtlMs: 5000 }) - NOW).toBe(5000);
  });
});

describe('retryAt: unreachable backoff (RFC 9309 2.3.1.4)', () => {
  it('doubles per consecutive failure up to 1 h', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 50].map(
      (failures) => retryAt(NOW, failures, undefined, limits) - NOW,
    );
    expect(delays).toEqual([
      60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });

  it('honours Retry-After (seconds or date) within [floor, 1 h]', () => {
    expect(retryAt(NOW, 1, '300', limits) - NOW).toBe(300_000);
    expect(retryAt(NOW, 5, '300', limits) - NOW).toBe(300_000);
    expect(retryAt(NOW, 1, new Date(NOW + 600_000).toUTCString(), limits) - NOW).toBe(600_000);
    expect(retryAt(NOW, 1, '0', limits) - NOW).toBe(60_000);
    expect(retryAt(NOW, 1, '86400', limits) - NOW).toBe(3_600_000);
    expect(retryAt(NOW, 2, 'whenever', limits) - NOW).toBe(120_000);
  });
});
