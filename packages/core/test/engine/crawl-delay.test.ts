/**
 * Crawl-delay (not in RFC 9309; the de-facto extension): seconds, fractional kept, garbage ignored.
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/engine/index.js';

const delay = (value: string) => parseRobotsTxt(`User-agent: *\nCrawl-delay: ${value}\n`).crawlDelay('x');

describe('Crawl-delay', () => {
  it.each([
    ['10', 10],
    ['0.5', 0.5],
    ['.5', 0.5],
    ['10.0', 10],
    ['0', 0],
    ['3 # seconds', 3],
  ])('reads %j as %d s', (value, seconds) => {
    expect(delay(value)).toBe(seconds);
  });

  it.each(['-1', 'NaN', '[5]', '1e80', '10s', '0100-0800', '', 'Infinity', '5,5'])('ignores %j', (value) => {
    expect(delay(value)).toBeUndefined();
  });

  it('caps absurd values at one day', () => {
    expect(delay('99999999')).toBe(86_400);
  });

  it('comes from the selected group only', () => {
    const robots = parseRobotsTxt(
      'User-agent: *\nCrawl-delay: 5\nDisallow: /y\n\nUser-agent: foobot\nCrawl-delay: 2\nDisallow: /x\n',
    );
    expect(robots.crawlDelay('foobot')).toBe(2);
    expect(robots.crawlDelay('other')).toBe(5);
    // No rule between the two user-agent lines: one group, so foobot gets its delay.
    expect(
      parseRobotsTxt('User-agent: *\nCrawl-delay: 5\nUser-agent: foobot\nDisallow: /x').crawlDelay('foobot'),
    ).toBe(5);
    expect(
      parseRobotsTxt('User-agent: foobot\nDisallow: /\nUser-agent: *\nCrawl-delay: 5').crawlDelay('foobot'),
    ).toBeUndefined();
  });

  it('takes the first valid value of merged groups, in file order', () => {
    const robots = parseRobotsTxt(
      'User-agent: foobot\nCrawl-delay: oops\nDisallow: /a\nUser-agent: foobot\nCrawl-delay: 7\nCrawl-delay: 9\nUser-agent: foobot\nCrawl-delay: 3\n',
    );
    expect(robots.crawlDelay('FooBot')).toBe(7);
    expect(robots.forAgent('foobot').crawlDelay).toBe(7);
  });

  it('ignores a Crawl-delay before any user-agent line', () => {
    expect(parseRobotsTxt('Crawl-delay: 4\nUser-agent: *\nDisallow: /x').crawlDelay('x')).toBeUndefined();
  });
});
