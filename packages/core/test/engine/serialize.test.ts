/**
 * toJSON / fromJSON: what a cache stores. Round trips keep every verdict, line, delay and flag.
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';

const body = [
  'Sitemap: https://a/s.xml',
  'User-agent: foobot',
  'User-agent: *',
  'Crawl-delay: 1.5',
  'Disallow: /private',
  'Allow: /private/index.html',
  'Disallow: /*.gif$',
  '',
  'User-agent: barbot',
  'Disallow: /',
].join('\n');

const urls = ['http://a/', 'http://a/private/x', 'http://a/private/', 'http://a/x.gif', 'http://a/x.gif?y'];

function roundTrip(robots: RobotsTxt): RobotsTxt {
  return RobotsTxt.fromJSON(JSON.parse(JSON.stringify(robots)));
}

describe('RobotsTxt JSON', () => {
  it('round-trips verdicts, deciding lines, crawl-delays, sitemaps, truncated and byteLength', () => {
    for (const options of [{}, { maxBytes: 100 }]) {
      const robots = parseRobotsTxt(body, options);
      const revived = roundTrip(robots);
      for (const agent of ['foobot', 'barbot', 'other']) {
        for (const url of urls) expect(revived.check(url, agent)).toEqual(robots.check(url, agent));
        expect(revived.crawlDelay(agent)).toBe(robots.crawlDelay(agent));
      }
      expect(revived.sitemaps).toEqual(robots.sitemaps);
      expect(revived.truncated).toBe(robots.truncated);
      expect(revived.byteLength).toBe(robots.byteLength);
      expect(revived.toJSON()).toEqual(robots.toJSON());
    }
  });

  it('keeps the compatibility options', () => {
    const robots = parseRobotsTxt('User-agent: bot\nDisallow: /a*\n', {
      precedence: 'first',
      wildcards: false,
      agentMatching: 'substring',
    });
    const revived = roundTrip(robots);
    expect(revived.isAllowed('http://h/a*', 'MyBot/1.0')).toBe(false);
    expect(revived.isAllowed('http://h/ab', 'MyBot/1.0')).toBe(true);
  });

  it('is versioned and holds rules, not the body (comments and junk are not stored)', () => {
    const commented = `# ${'a long comment line explaining the policy '.repeat(20)}\n${body}\nHost: a\n`;
    const json = parseRobotsTxt(commented).toJSON();
    expect(json.v).toBe(1);
    expect(JSON.stringify(json)).not.toContain('comment');
    expect(JSON.stringify(json).length).toBeLessThan(commented.length);
  });

  it.each([
    [null, /got null/],
    ['x', /got string/],
    [{ v: 2, b: 0, g: [] }, /unsupported version 2/],
    [{ b: 0, g: [] }, /unsupported version undefined/],
    [{ v: 1, g: [] }, /b \(byteLength\)/],
    [{ v: 1, b: 0, g: {} }, /g \(groups\)/],
    [{ v: 1, b: 0, g: [{ a: [1], r: [] }] }, /g\[0\]\.a/],
    [{ v: 1, b: 0, g: [{ a: [], r: [1] }] }, /g\[0\]\.r/],
    [{ v: 1, b: 0, g: [{ a: [], r: [0, '/x'] }] }, /non-zero integer line/],
    [{ v: 1, b: 0, g: [{ a: [], r: [1, 2] }] }, /pattern string/],
    [{ v: 1, b: 0, g: [], s: [1] }, /sitemaps/],
    [{ v: 1, b: 0, g: [], o: { p: 'last' } }, /o\.p/],
  ])('rejects %j with a TypeError naming the problem', (value, message) => {
    expect(() => RobotsTxt.fromJSON(value)).toThrow(TypeError);
    expect(() => RobotsTxt.fromJSON(value)).toThrow(message);
  });
});
