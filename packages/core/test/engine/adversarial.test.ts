/**
 * Hostile and broken input: never a throw, never a blow-up, answers that still make sense.
 */
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';

describe('adversarial input', () => {
  it('reads a line up to a NUL byte, as Google does', () => {
    const body = new TextEncoder().encode('User-agent: *\nDisallow: /a\0/b\nDisallow: /c\0\0\0\n');
    const robots = parseRobotsTxt(body);
    expect(robots.check('http://h/a/b', 'x').rule?.pattern).toBe('/a');
    expect(robots.isAllowed('http://h/c', 'x')).toBe(false);
  });

  it('parses a body of NULs and random control bytes', () => {
    const body = new Uint8Array(10_000).map((_, i) => (i * 7919) % 32);
    expect(parseRobotsTxt(body).isAllowed('http://h/', 'x')).toBe(true);
  });

  it('survives a 1 MB line, keeping only its head', () => {
    const body = `User-agent: *\nDisallow: /${'x'.repeat(1_000_000)}\nDisallow: /after\n`;
    const robots = parseRobotsTxt(body, { maxBytes: 2_000_000 });
    expect(robots.isAllowed('http://h/after', 'x')).toBe(false);
    expect(robots.isAllowed(`http://h/${'x'.repeat(20_000)}`, 'x')).toBe(false);
    expect(robots.isAllowed('http://h/xx', 'x')).toBe(true);
  });

  it('collapses 10,000 * into one without cost or change of meaning', () => {
    const robots = parseRobotsTxt(`User-agent: *\nDisallow: /a${'*'.repeat(10_000)}z$\n`);
    expect(robots.isAllowed(`http://h/a${'b'.repeat(5_000)}z`, 'x')).toBe(false);
    expect(robots.isAllowed(`http://h/a${'b'.repeat(5_000)}`, 'x')).toBe(true);
  });

  it('treats regex-looking rules as plain text', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /(a+)+$\nDisallow: /[a-z]\nDisallow: /.\n');
    expect(robots.isAllowed(`http://h/${'a'.repeat(5_000)}!`, 'x')).toBe(true);
    expect(robots.isAllowed('http://h/(a+)+', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/[a-z]', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/b', 'x')).toBe(true);
    expect(robots.isAllowed('http://h/.x', 'x')).toBe(false);
  });

  it('caps Crawl-delay: 1e80-style values instead of overflowing', () => {
    expect(parseRobotsTxt(`User-agent: *\nCrawl-delay: 1${'0'.repeat(80)}\n`).crawlDelay('x')).toBe(86_400);
    expect(parseRobotsTxt('User-agent: *\nCrawl-delay: 1e80\n').crawlDelay('x')).toBeUndefined();
  });

  it('reads an HTML error page as having no rules, and lints it as an error', () => {
    const html =
      '<!DOCTYPE html>\n<html><head><title>404</title></head>\n<body>Not found: /robots.txt</body></html>\n';
    expect(parseRobotsTxt(html).isAllowed('http://h/', 'x')).toBe(true);
    expect(
      lintRobotsTxt(html)
        .filter((d) => d.severity === 'error')
        .map((d) => d.code),
    ).toEqual(['html-body']);
  });

  it('keeps its answers when a large, mostly-markup body holds only a few rules', () => {
    const markup = `<div class="x">${'lorem ipsum '.repeat(20)}</div>\n`.repeat(200);
    const body = `${markup}User-agent: *\nDisallow: /private-area-of-the-site/\nSitemap: https://h/sitemap-index.xml\n${markup}`;
    const robots = parseRobotsTxt(body);
    expect(robots.check('http://h/private-area-of-the-site/x', 'x').rule?.pattern).toBe(
      '/private-area-of-the-site/',
    );
    expect(robots.sitemaps).toEqual(['https://h/sitemap-index.xml']);
    expect(RobotsTxt.fromJSON(robots.toJSON()).isAllowed('http://h/private-area-of-the-site/', 'x')).toBe(
      false,
    );
  });

  it('handles many groups and rules', () => {
    const groups = Array.from(
      { length: 2_000 },
      (_, i) => `User-agent: bot${'abcdefghij'[i % 10]}${i}\nDisallow: /`,
    );
    const body = `${groups.join('\n')}\nUser-agent: *\n${Array.from({ length: 5_000 }, (_, i) => `Disallow: /p${i}/`).join('\n')}\n`;
    const robots = parseRobotsTxt(body);
    expect(robots.isAllowed('http://h/p4999/x', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/p5000/x', 'x')).toBe(true);
    // `botj1999` is read as the token `botj` (digits end a token), whose group disallows everything.
    expect(robots.isAllowed('http://h/', 'botj')).toBe(false);
    expect(robots.isAllowed('http://h/', 'botk')).toBe(true);
  });

  it('rejects arguments of the wrong type with a TypeError naming them', () => {
    expect(() => parseRobotsTxt(42 as unknown as string)).toThrow(
      /body must be a string or a Uint8Array, got `42` \(number\)/,
    );
    expect(() => parseRobotsTxt('', { maxBytes: '1' as unknown as number })).toThrow(/maxBytes/);
    expect(() => parseRobotsTxt('', { bogus: 1 } as never)).toThrow(/Unknown parseRobotsTxt option `bogus`/);
    expect(() => parseRobotsTxt('').isAllowed(undefined as unknown as string, 'x')).toThrow(TypeError);
    expect(() => parseRobotsTxt('').isAllowed('/', 3 as unknown as string)).toThrow(TypeError);
  });
});
