/**
 * Google's robots_test.cc expectations, run straight from ../shared/conformance (145 verdicts).
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';
import { type GoogleCase, readSharedJson } from './shared-data.js';

const cases = readSharedJson<GoogleCase[]>('conformance/google-robotstxt-cases.json');

describe('Google robotstxt conformance: robots_test.cc verdicts', () => {
  it('has all 145 cases', () => {
    expect(cases).toHaveLength(145);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const robots = parseRobotsTxt(c.robotstxt);
    expect(robots.isAllowed(c.url, c.useragent), c.note).toBe(c.allowed);
    // The same answer from bytes, and after a JSON round trip (what the cache stores).
    expect(parseRobotsTxt(new TextEncoder().encode(c.robotstxt)).isAllowed(c.url, c.useragent)).toBe(
      c.allowed,
    );
    const revived = RobotsTxt.fromJSON(JSON.parse(JSON.stringify(robots.toJSON())));
    expect(revived.isAllowed(c.url, c.useragent)).toBe(c.allowed);
  });
});
