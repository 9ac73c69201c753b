/**
 * Google-only behaviour (google/robotstxt goes beyond RFC 9309 here); the conformance README lists it.
 */
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, parseRobotsTxt, productTokenOf } from '../../src/engine/index.js';

const allowed = (body: string, url: string, agent = 'FooBot') => parseRobotsTxt(body).isAllowed(url, agent);

describe('Google-only: accepted typos', () => {
  it.each(['disalow', 'dissallow', 'dissalow', 'diasllow', 'disallaw', 'Disallowed'])(
    'reads "%s" as disallow',
    (key) => {
      expect(allowed(`User-agent: *\n${key}: /x`, 'http://a/x')).toBe(false);
    },
  );

  it.each(['useragent', 'user agent', 'User-Agents'])('reads "%s" as user-agent', (key) => {
    expect(allowed(`${key}: foobot\nDisallow: /`, 'http://a/')).toBe(false);
  });

  it('accepts no typo of allow', () => {
    expect(allowed('User-agent: *\nDisallow: /\nalow: /x', 'http://a/x')).toBe(false);
  });
});

describe('Google-only: missing colon', () => {
  it('accepts whitespace as the separator when the line is exactly two tokens', () => {
    expect(allowed('user-agent foobot\ndisallow /x', 'http://a/x')).toBe(false);
  });

  it('ignores the line when it has more tokens', () => {
    expect(allowed('user-agent: foobot\ndisallow /x /y', 'http://a/x')).toBe(true);
  });
});

describe('Google-only: user-agent values', () => {
  it('reads the value up to the first character outside A-Za-z_-', () => {
    expect(allowed('User-agent: FooBot/2.1\nDisallow: /', 'http://a/')).toBe(false);
    expect(allowed('User-agent: FooBot2000\nDisallow: /', 'http://a/')).toBe(false);
    expect(allowed('User-agent: FooBot, BarBot\nDisallow: /', 'http://a/', 'BarBot')).toBe(true);
  });

  it('treats "* anything" as global but "*bot" as nobody', () => {
    expect(allowed('User-agent: * all bots\nDisallow: /', 'http://a/')).toBe(false);
    expect(allowed('User-agent: *bot\nDisallow: /', 'http://a/')).toBe(true);
  });

  it('matches nobody with an empty or numeric value', () => {
    expect(allowed('User-agent:\nDisallow: /', 'http://a/')).toBe(true);
    expect(allowed('User-agent: 123\nDisallow: /', 'http://a/')).toBe(true);
  });

  it('prefers a specific group even when it has no rules', () => {
    expect(allowed('User-agent: *\nDisallow: /\nUser-agent: foobot\nCrawl-delay: 5\n', 'http://a/')).toBe(
      true,
    );
  });
});

describe('Google-only: index.html is the directory', () => {
  it('lets Allow: /dir/index.html also allow /dir/', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /\nAllow: /dir/index.html\n');
    expect(robots.isAllowed('http://a/dir/', 'x')).toBe(true);
    expect(robots.isAllowed('http://a/dir/index.html', 'x')).toBe(true);
    expect(robots.isAllowed('http://a/dir/other', 'x')).toBe(false);
  });

  it('does not apply to Disallow', () => {
    expect(allowed('User-agent: *\nDisallow: /dir/index.htm', 'http://a/dir/')).toBe(true);
  });
});

describe('Google-only: line length limit', () => {
  it(`keeps the first ${MAX_LINE_BYTES} bytes of a line and still parses them`, () => {
    const head = `Disallow: /${'a'.repeat(MAX_LINE_BYTES - 11)}`;
    expect(head.length).toBe(MAX_LINE_BYTES);
    const robots = parseRobotsTxt(`User-agent: *\n${head}bbbb\nDisallow: /next\n`);
    const pattern = head.slice('Disallow: '.length);
    expect(robots.check(`http://a${pattern}zzz`, 'x').rule?.pattern).toBe(pattern);
    expect(robots.isAllowed('http://a/next', 'x')).toBe(false);
  });
});

describe('Google-only: byte order mark', () => {
  it.each([
    ['full', [0xef, 0xbb, 0xbf]],
    ['partial EF BB', [0xef, 0xbb]],
    ['partial EF', [0xef]],
  ])('skips a %s BOM at the start', (_name, bom) => {
    const text = new TextEncoder().encode('User-agent: *\nDisallow: /x\n');
    const body = new Uint8Array([...bom, ...text]);
    expect(parseRobotsTxt(body).isAllowed('http://a/x', 'y')).toBe(false);
  });

  it('makes a line with a BOM elsewhere unparseable', () => {
    expect(allowed('User-agent: *\n\ufeffDisallow: /x\n', 'http://a/x')).toBe(true);
  });
});

describe('productTokenOf', () => {
  it.each([
    ['MyBot/1.0 (+https://x)', 'MyBot'],
    ['Googlebot-News', 'Googlebot-News'],
    ['my_bot 2', 'my_bot'],
    ['123bot', ''],
    ['', ''],
  ])('%j -> %j', (ua, token) => {
    expect(productTokenOf(ua)).toBe(token);
  });
});
