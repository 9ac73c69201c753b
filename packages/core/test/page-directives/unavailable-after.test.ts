/**
 * `unavailable_after` dates: the formats Google's robots meta tag specification names (RFC 822,
 * RFC 850, ISO 8601) and nothing else; what `Date.parse` would guess (`1` as 2001-01-01) is ignored
 * and kept in `unknown` (issue 35).
 */
import { describe, expect, it } from 'vitest';
import { readPageDirectives } from '../../src/page-directives/read.js';

const fromHeader = (value: string) =>
  readPageDirectives({ headers: { 'x-robots-tag': `unavailable_after: ${value}` } }, 'mybot');
const fromMeta = (value: string) =>
  readPageDirectives({ body: `<meta name="robots" content="unavailable_after: ${value}">` }, 'mybot');

const DOCUMENTED = [
  // Google's own examples.
  ['25 Jun 2010 15:00:00 PST', '2010-06-25T23:00:00.000Z'],
  ['2020-09-21', '2020-09-21T00:00:00.000Z'],
  // RFC 822 (RFC 1123's four-digit years, the weekday optional, seconds optional).
  ['Fri, 25 Jun 2010 15:00:00 GMT', '2010-06-25T15:00:00.000Z'],
  ['Fri,25 Jun 2010 15:00 +0200', '2010-06-25T13:00:00.000Z'],
  ['5 JUN 30 08:00:00 EDT', '2030-06-05T12:00:00.000Z'],
  ['5 Jun 99 08:00:00 UT', '1999-06-05T08:00:00.000Z'],
  // RFC 850.
  ['Friday, 25-Jun-10 15:00:00 GMT', '2010-06-25T15:00:00.000Z'],
  ['Sunday, 06-Nov-1994 08:49:37 CST', '1994-11-06T14:49:37.000Z'],
  // ISO 8601 (extended and basic), RFC 3339's space.
  ['2030-06-25T15:00Z', '2030-06-25T15:00:00.000Z'],
  ['2030-06-25T15:00:30.25+02:00', '2030-06-25T13:00:30.250Z'],
  ['2030-06-25t15:00:30-0130', '2030-06-25T16:30:30.000Z'],
  ['2030-06-25 15:00:30+02', '2030-06-25T13:00:30.000Z'],
  ['2030-06-25T15:00:30', '2030-06-25T15:00:30.000Z'],
  ['20300625', '2030-06-25T00:00:00.000Z'],
  ['20300625T150030Z', '2030-06-25T15:00:30.000Z'],
  ['2024-02-29', '2024-02-29T00:00:00.000Z'],
] as const;

const NOT_DATES = [
  '1',
  '2030',
  '2030-06',
  'June 25 2030',
  '25 Jun 2030',
  '2030/06/25',
  '06/25/2030',
  'tomorrow',
  '2030-06-31',
  '2023-02-29',
  '2030-13-01',
  '2030-06-25T24:00:00Z',
  '2030-06-25T15:60Z',
  '2030-06-25T15:00+25:00',
  '25 Jun 2030 15:00:00 CET',
  '25 Jun 2030 15:00:00 A',
  '25 Jun 2030 15:00:00',
  'Fri 25 Jun 2030 15:00:00 GMT',
  '2030-W26-2',
  '2030-176',
  '+002030-06-25',
  `${'9'.repeat(1000)}-01-01`,
];

describe('unavailable_after', () => {
  it('reads the documented formats, from a header and from a meta tag', () => {
    for (const [value, expected] of DOCUMENTED) {
      for (const read of [fromHeader, fromMeta]) {
        const got = read(value);
        expect(got.unavailableAfter?.toISOString(), value).toBe(expected);
        expect(got.unknown, value).toEqual([]);
      }
    }
  });

  it('reads nothing else: no date, and the rule kept as unknown', () => {
    for (const value of NOT_DATES) {
      for (const read of [fromHeader, fromMeta]) {
        const got = read(value);
        expect(got.unavailableAfter, value).toBeUndefined();
        expect(got.unknown, value).toHaveLength(1);
      }
    }
  });

  it('the earliest valid date wins, an invalid one does not count', () => {
    const got = readPageDirectives(
      {
        headers: {
          'x-robots-tag': [
            'unavailable_after: 1',
            'unavailable_after: 2031-01-01',
            'unavailable_after: 2030-01-01',
          ],
        },
      },
      'mybot',
    );
    expect(got.unavailableAfter?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(got.unknown).toEqual(['unavailable_after:1']);
  });
});
