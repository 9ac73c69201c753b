import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/kernel/retry-after.js';

const NOW = Date.UTC(2026, 10, 21, 8, 0, 0); // Sat, 21 Nov 2026 08:00:00 GMT

describe('retryAfterMs (RFC 9110 10.2.3)', () => {
  it.each([
    ['120', 120_000],
    ['0', 0],
    [' 5 ', 5000],
    ['007', 7000],
  ])('delay-seconds %j -> %d ms', (value, ms) => {
    expect(retryAfterMs(value, NOW)).toBe(ms);
  });

  it.each([
    ['IMF-fixdate', 'Sat, 21 Nov 2026 08:01:30 GMT', 90_000],
    ['IMF-fixdate, lower case', 'sat, 21 nov 2026 08:00:10 gmt', 10_000],
    ['obsolete RFC 850', 'Saturday, 21-Nov-26 08:00:05 GMT', 5000],
    ['asctime', 'Sat Nov 21 08:02:00 2026', 120_000],
    ['asctime, one-digit day', 'Tue Dec  1 08:00:00 2026', 10 * 86_400_000],
    ['at now', 'Sat, 21 Nov 2026 08:00:00 GMT', 0],
  ])('HTTP-date (%s)', (_form, value, ms) => {
    expect(retryAfterMs(value, NOW)).toBe(ms);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['negative', '-5'],
    ['fraction', '1.5'],
    ['words', 'soon'],
    ['past date', 'Fri, 20 Nov 2026 08:00:00 GMT'],
    ['impossible date', 'Mon, 31 Feb 2027 08:00:00 GMT'],
    ['not GMT', 'Sat, 21 Nov 2026 08:01:30 PST'],
    ['ISO 8601', '2026-11-21T09:00:00Z'],
    ['hour 25', 'Sat, 21 Nov 2026 25:00:00 GMT'],
  ])('ignores %s', (_name, value) => {
    expect(retryAfterMs(value, NOW)).toBeUndefined();
  });

  it('reads a two-digit RFC 850 year more than 50 years ahead as the past century', () => {
    // "99" in 2026 is 1999, long past, so no backoff; "30" is 2030.
    expect(retryAfterMs('Friday, 01-Jan-99 00:00:00 GMT', NOW)).toBeUndefined();
    expect(retryAfterMs('Tuesday, 01-Jan-30 00:00:00 GMT', NOW)).toBe(Date.UTC(2030, 0, 1) - NOW);
  });
});

describe('retryAfterMs: delay-seconds too large to represent', () => {
  it('counts as 2^31 s (RFC 9111 1.2.2), a long wait for callers to cap, not Infinity', () => {
    expect(retryAfterMs('9'.repeat(400), NOW)).toBe(2 ** 31 * 1000);
    expect(retryAfterMs('99999999999', NOW)).toBe(2 ** 31 * 1000);
  });
});
