/**
 * lintRobotsTxt: one diagnostic per problem, on the line it is on, with a stable code.
 */
import { describe, expect, it } from 'vitest';
import { LINT_CODES, lintRobotsTxt } from '../../src/engine/index.js';

const codesAt = (body: string, options?: Parameters<typeof lintRobotsTxt>[1]) =>
  lintRobotsTxt(body, options).map((d) => `${d.line}:${d.code}`);

describe('lintRobotsTxt', () => {
  it('is silent on a clean file', () => {
    expect(
      lintRobotsTxt(
        'User-agent: *\nDisallow: /private\nAllow: /*.css$\nCrawl-delay: 2\nSitemap: https://a/s.xml\n',
      ),
    ).toEqual([]);
  });

  it('reports each problem on its line', () => {
    const body = [
      'Disallow: /early', // 1 rule outside any group
      'User-agent: Googlebot/2.1', // 2 shortened
      'Disalow: /typo', // 3 typo
      'Disallow /nocolon', // 4 missing colon
      'Crawl-delay: soon', // 5 invalid crawl-delay
      'Disallow: private', // 6 pattern start
      'Foo: bar', // 7 unknown
      'Host: example.com', // 8 ignored
      'this is junk', // 9 unparsable
      'User-agent: 123', // 10 invalid user-agent
      `Disallow: /${'a'.repeat(17_000)}`, // 11 too long
    ].join('\n');
    expect(codesAt(body)).toEqual([
      '1:rule-outside-group',
      '2:user-agent-shortened',
      '3:accepted-typo',
      '4:missing-colon',
      '5:invalid-crawl-delay',
      '6:invalid-pattern-start',
      '7:unknown-directive',
      '8:ignored-directive',
      '9:unparsable-line',
      '10:invalid-user-agent',
      '11:line-too-long',
    ]);
  });

  it('reports a file cut at maxBytes and HTML served as robots.txt', () => {
    // Cut inside line 2: the partial line is dropped and the cut is reported where it happened.
    expect(codesAt('User-agent: *\nDisallow: /a\nDisallow: /b\n', { maxBytes: 20 })).toEqual([
      '2:file-truncated',
    ]);
    expect(codesAt('<html><body>hi</body></html>')).toContain('1:html-body');
  });

  it('warns about a Sitemap line that is not an absolute http(s) URL: crawlers ignore it', () => {
    const body = [
      'Sitemap: /sitemap.xml', // 1 relative
      'Sitemap: example.com/sitemap.xml', // 2 no scheme
      'Sitemap: ftp://example.com/sitemap.xml', // 3 not http(s)
      'Sitemap: https://example.com/sitemap.xml',
      'Site-map: https://example.com/typo.xml', // 5 a typo, but a full URL
      'Sitemap:', // empty: nothing to say
    ].join('\n');
    expect(codesAt(body)).toEqual([
      '1:sitemap-not-absolute',
      '2:sitemap-not-absolute',
      '3:sitemap-not-absolute',
      '5:accepted-typo',
    ]);
    expect(lintRobotsTxt('Sitemap: /s.xml')[0]?.message).toContain('sitemaps.org');
  });

  it('gives every diagnostic a severity, a message and a code from LINT_CODES', () => {
    const found = lintRobotsTxt('Disallow: /\nUser-agent: *\nFoo bar baz\nDissallow: x\n');
    expect(found.length).toBeGreaterThan(0);
    for (const d of found) {
      expect(LINT_CODES).toContain(d.code);
      expect(['error', 'warning', 'info']).toContain(d.severity);
      expect(d.message.length).toBeGreaterThan(0);
    }
  });
});
