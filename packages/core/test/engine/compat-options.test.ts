/**
 * Seed-compatibility ParseOptions (default off): older parsers' precedence, literal wildcards,
 * substring agent matching.
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../src/engine/index.js';

describe('compatibility options', () => {
  it("precedence: 'first' lets the first matching rule in file order decide", () => {
    const body = 'User-agent: *\nDisallow:\nDisallow: /a\nAllow: /a/b\n';
    expect(parseRobotsTxt(body, { precedence: 'first' }).check('http://h/a/b', 'x').rule?.directive).toBe(
      'disallow',
    );
    expect(parseRobotsTxt(body).check('http://h/a/b', 'x').rule?.directive).toBe('allow');
  });

  it('wildcards: false reads * and $ literally', () => {
    const robots = parseRobotsTxt(
      'User-agent: *\nDisallow: /*.gif$\nAllow: /dir/index.html\nDisallow: /dir/\n',
      {
        wildcards: false,
      },
    );
    expect(robots.isAllowed('http://h/x.gif', 'x')).toBe(true);
    expect(robots.isAllowed('http://h/*.gif$', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/dir/', 'x')).toBe(false);
  });

  it("agentMatching: 'substring' finds the line's token anywhere in the caller's agent", () => {
    const body = 'User-agent: googlebot\nDisallow: /\nUser-agent: *\nAllow: /\n';
    const robots = parseRobotsTxt(body, { agentMatching: 'substring' });
    expect(robots.isAllowed('http://h/', 'Mozilla/5.0 (compatible; Googlebot/2.1)')).toBe(false);
    expect(robots.isAllowed('http://h/', 'Bingbot')).toBe(true);
    expect(parseRobotsTxt(body).isAllowed('http://h/', 'Mozilla/5.0 (compatible; Googlebot/2.1)')).toBe(true);
  });

  it('rejects unknown option values', () => {
    expect(() => parseRobotsTxt('', { precedence: 'last' as never })).toThrow(/precedence/);
    expect(() => parseRobotsTxt('', { agentMatching: 'regex' as never })).toThrow(/agentMatching/);
    expect(() => parseRobotsTxt('', { wildcards: 'no' as never })).toThrow(/wildcards/);
  });
});
