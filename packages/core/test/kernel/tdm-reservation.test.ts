/**
 * TDMRep after a response (W3C TDM Reservation Protocol): the header's and the meta tag's values,
 * and their precedence over the origin's tdmrep.json (the file, then the header, then the meta tag).
 */
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/kernel/decision.js';
import {
  isTdmPurpose,
  readTdmPolicy,
  readTdmReservation,
  tdmRefusal,
} from '../../src/kernel/tdm-reservation.js';

const allowed: Decision = {
  allowed: true,
  reason: 'allowed',
  url: 'https://site.test/a/page',
  robotsUrl: 'https://site.test/robots.txt',
  productToken: 'FooBot',
  source: 'robots.txt',
  delayMs: 0,
  hostKey: 'site.test',
  purpose: 'ai-train',
};
const fileSays = (reserved: boolean): Decision => ({
  ...allowed,
  tdm: { reserved, source: 'tdmrep.json', location: '/a/', policy: 'https://site.test/file-policy' },
});

describe('TDMRep header and meta values', () => {
  it.each([
    ['1', 1],
    [' 0 ', 0],
    [['1', '1'], 1],
    ['1, 1', 1],
    ['1\n0', undefined],
    [['1', '0'], undefined],
    ['yes', undefined],
    ['true', undefined],
    ['2', undefined],
    ['', undefined],
    [null, undefined],
  ] as const)('tdm-reservation %j reads as %s (any other value is unset)', (value, expected) => {
    expect(readTdmReservation(value)).toBe(expected);
  });

  it('tdm-policy: an http(s) URL, a relative one resolved against the page', () => {
    expect(readTdmPolicy('/policy', 'https://site.test/a/page')).toBe('https://site.test/policy');
    expect(readTdmPolicy('javascript:alert(1)')).toBeUndefined();
    expect(readTdmPolicy('  ')).toBeUndefined();
  });

  it('only ai-train and ai-input are text and data mining', () => {
    expect([isTdmPurpose('ai-train'), isTdmPurpose('ai-input'), isTdmPurpose('search')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(isTdmPurpose(undefined)).toBe(false);
  });
});

describe('precedence: the file, then the header, then the meta tag', () => {
  it('a header 1 refuses what the file left open, with the header policy', () => {
    expect(tdmRefusal(fileSays(false), { reservation: '1', policy: 'https://p.test/h' })).toMatchObject({
      allowed: false,
      reason: 'tdm-reserved',
      tdm: { reserved: true, source: 'header', policy: 'https://p.test/h' },
    });
  });

  it("a header 0 overrides the file's 1", () => {
    expect(tdmRefusal(fileSays(true), { reservation: '0' })).toBeUndefined();
  });

  it("a meta 0 overrides the header's 1, and a meta 1 the header's 0", () => {
    expect(tdmRefusal(allowed, { reservation: '1' }, { reservation: ['0'] })).toBeUndefined();
    expect(tdmRefusal(allowed, { reservation: '0' }, { reservation: ['1'] })).toMatchObject({
      tdm: { source: 'meta' },
    });
  });

  it('an unset header leaves the file standing; an odd value is unset', () => {
    expect(tdmRefusal(fileSays(true), { reservation: 'maybe' })).toMatchObject({
      tdm: { source: 'tdmrep.json', policy: 'https://site.test/file-policy' },
    });
    expect(tdmRefusal(allowed, { reservation: 'maybe' })).toBeUndefined();
  });

  it('refuses nothing without a TDM purpose', () => {
    expect(tdmRefusal({ ...allowed, purpose: 'search' }, { reservation: '1' })).toBeUndefined();
    const { purpose: _none, ...noPurpose } = allowed;
    expect(tdmRefusal(noPurpose as Decision, { reservation: '1' })).toBeUndefined();
  });
});
