/**
 * Google's robots_test.cc expectations, run from the in-repo copy in ./conformance (145 verdicts).
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';
import { type GoogleCase, readConformanceJson } from './shared-data.js';

const cases = readConformanceJson<GoogleCase[]>('google-robotstxt-cases.json');

/**
 * The cases where RFC 9309 2.2.2 (our default, `percentEncoding: 'rfc'`) and Google's literal
 * comparison disagree: Google does not decode %XX of unreserved octets. The suite runs in Google mode;
 * in RFC mode each of these gives the opposite verdict, and every other case the same one.
 */
const RFC_DIFFERS = ['ID_Encoding/6'];
const GOOGLE = { percentEncoding: 'google' } as const;

describe('Google robotstxt conformance: robots_test.cc verdicts', () => {
  it('has all 145 cases', () => {
    expect(cases).toHaveLength(145);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const robots = parseRobotsTxt(c.robotstxt, GOOGLE);
    expect(robots.isAllowed(c.url, c.useragent), c.note).toBe(c.allowed);
    // The same answer from bytes, and after a JSON round trip (what the cache stores).
    expect(parseRobotsTxt(new TextEncoder().encode(c.robotstxt), GOOGLE).isAllowed(c.url, c.useragent)).toBe(
      c.allowed,
    );
    const revived = RobotsTxt.fromJSON(JSON.parse(JSON.stringify(robots.toJSON())));
    expect(revived.isAllowed(c.url, c.useragent)).toBe(c.allowed);
  });

  it('in RFC 9309 mode (the default), exactly the listed cases differ from Google', () => {
    const differing = cases
      .filter((c) => parseRobotsTxt(c.robotstxt).isAllowed(c.url, c.useragent) !== c.allowed)
      .map((c) => c.id);
    expect(differing).toEqual(RFC_DIFFERS);
  });
});
