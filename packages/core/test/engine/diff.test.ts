/**
 * diffRobotsTxt: what changed for one crawler between two versions of a robots.txt.
 */
import { describe, expect, it } from 'vitest';
import { diffRobotsTxt, parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';

const rule = (directive: 'allow' | 'disallow', pattern: string, line: number) => ({
  directive,
  pattern,
  line,
});

describe('diffRobotsTxt', () => {
  it('sees no change when lines only move or repeat', () => {
    const before = 'User-agent: MyBot\nDisallow: /a\nAllow: /a/b\n';
    const after = '# reordered\nUser-agent: MyBot\nAllow: /a/b\nDisallow: /a\nDisallow: /a\n';
    const diff = diffRobotsTxt(before, after, 'MyBot');
    expect(diff).toEqual({
      productToken: 'MyBot',
      changed: false,
      added: [],
      removed: [],
      crawlDelay: {},
      sitemaps: { added: [], removed: [] },
    });
  });

  it('lists added and removed rules with the line of the version they are in', () => {
    const before = 'User-agent: MyBot\nDisallow: /private\nDisallow: /tmp\n';
    const after = 'User-agent: MyBot\nDisallow: /tmp\nAllow: /public\nDisallow: /secret\n';
    const diff = diffRobotsTxt(before, after, 'mybot');
    expect(diff.changed).toBe(true);
    expect(diff.added).toEqual([rule('allow', '/public', 3), rule('disallow', '/secret', 4)]);
    expect(diff.removed).toEqual([rule('disallow', '/private', 2)]);
  });

  it("compares the groups that apply to the token: another crawler's group changing is no change", () => {
    const before = 'User-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n';
    const after = 'User-agent: OtherBot\nAllow: /\n\nUser-agent: *\nDisallow: /x\n';
    expect(diffRobotsTxt(before, after, 'MyBot').changed).toBe(false);
    expect(diffRobotsTxt(before, after, 'OtherBot').changed).toBe(true);
  });

  it('follows the token from its own group to the * group when its group goes', () => {
    const before = 'User-agent: MyBot\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n';
    const after = 'User-agent: *\nDisallow: /x\n';
    const diff = diffRobotsTxt(before, after, 'MyBot');
    expect(diff.removed).toEqual([rule('disallow', '/', 2)]);
    expect(diff.added).toEqual([rule('disallow', '/x', 2)]);
  });

  it('counts a Crawl-delay change, reports sitemaps without counting them', () => {
    const before = 'User-agent: *\nCrawl-delay: 5\nSitemap: https://a.example/old.xml\n';
    const sitemapsOnly = 'User-agent: *\nCrawl-delay: 5\nSitemap: https://a.example/new.xml\n';
    const slower = 'User-agent: *\nCrawl-delay: 10\n';
    const diff = diffRobotsTxt(before, sitemapsOnly, 'MyBot');
    expect(diff.changed).toBe(false);
    expect(diff.sitemaps).toEqual({
      added: ['https://a.example/new.xml'],
      removed: ['https://a.example/old.xml'],
    });
    const delayed = diffRobotsTxt(before, slower, 'MyBot');
    expect(delayed.changed).toBe(true);
    expect(delayed.crawlDelay).toEqual({ before: 5, after: 10 });
    expect(diffRobotsTxt(slower, 'User-agent: *\n', 'MyBot').crawlDelay).toEqual({ before: 10 });
  });

  it('compares normalised patterns (escaping, %xx case) and leaves out derived index-page rules', () => {
    const before = 'User-agent: *\nDisallow: /caf%c3%a9\nAllow: /docs/index.html\n';
    const after = 'User-agent: *\nDisallow: /café\nAllow: /docs/index.html\n';
    const diff = diffRobotsTxt(before, after, 'MyBot');
    expect(diff.changed).toBe(false);
    const added = diffRobotsTxt('User-agent: *\n', before, 'MyBot').added;
    expect(added).toEqual([rule('disallow', '/caf%C3%A9', 2), rule('allow', '/docs/index.html', 3)]);
  });

  it('takes parsed files, also from the cache form (toJSON / fromJSON), and bytes', () => {
    const before = parseRobotsTxt('User-agent: *\nDisallow: /a\n');
    const after = RobotsTxt.fromJSON(parseRobotsTxt('User-agent: *\nDisallow: /b\n').toJSON());
    const diff = diffRobotsTxt(before, after, 'MyBot');
    expect(diff.added).toEqual([rule('disallow', '/b', 2)]);
    expect(diff.removed).toEqual([rule('disallow', '/a', 2)]);
    const bytes = new TextEncoder().encode('User-agent: *\nDisallow: /a\n');
    expect(diffRobotsTxt(bytes, before, 'MyBot').changed).toBe(false);
  });

  it('treats an empty file as no rules: every rule of the other is added or removed', () => {
    const diff = diffRobotsTxt('', 'User-agent: *\nDisallow: /\n', 'MyBot');
    expect(diff.added).toEqual([rule('disallow', '/', 2)]);
    expect(diffRobotsTxt('User-agent: *\nDisallow: /\n', '', 'MyBot').removed).toEqual([
      rule('disallow', '/', 2),
    ]);
  });

  it('throws a TypeError naming the argument of the wrong type', () => {
    expect(() => diffRobotsTxt(42 as unknown as string, '', 'MyBot')).toThrow(/before must be a RobotsTxt/);
    expect(() => diffRobotsTxt('', null as unknown as string, 'MyBot')).toThrow(/after .* got null/);
    expect(() => diffRobotsTxt('', '', 7 as unknown as string)).toThrow(/productToken must be a string/);
  });
});
