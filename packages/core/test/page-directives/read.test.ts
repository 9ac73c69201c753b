import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headMetaTags } from '../../src/page-directives/html-head.js';
import { readPageDirectives } from '../../src/page-directives/read.js';

const read = (headers: Record<string, string | string[]>, body?: string, agent = 'MyBot/1.0') =>
  readPageDirectives({ headers, ...(body === undefined ? {} : { body }) }, agent);

describe('readPageDirectives: X-Robots-Tag', () => {
  it('reads a comma list for everyone, case-insensitively', () => {
    const got = read({ 'X-Robots-Tag': 'NoIndex, NOFOLLOW' });
    expect(got).toMatchObject({ noindex: true, nofollow: true, noarchive: false, unknown: [] });
    expect(got.rules).toEqual([
      { source: 'header', rule: 'noindex' },
      { source: 'header', rule: 'nofollow' },
    ]);
  });

  it('applies a prefixed line to that agent only, and the rules after the prefix too', () => {
    expect(read({ 'x-robots-tag': 'otherbot: noindex, nofollow' })).toMatchObject({
      noindex: false,
      nofollow: false,
    });
    expect(read({ 'x-robots-tag': 'MYBOT: noindex, nofollow' })).toMatchObject({
      noindex: true,
      nofollow: true,
    });
    // Several header lines (Node's array, or Playwright/Puppeteer's line break): one scope each.
    expect(read({ 'x-robots-tag': ['otherbot: nofollow', 'noarchive'] })).toMatchObject({
      nofollow: false,
      noarchive: true,
    });
    expect(read({ 'x-robots-tag': 'otherbot: nofollow\nnoarchive' })).toMatchObject({
      nofollow: false,
      noarchive: true,
    });
    expect(read({ 'x-robots-tag': 'noarchive, mybot: nosnippet, otherbot: noindex' })).toMatchObject({
      noarchive: true,
      nosnippet: true,
      noindex: false,
    });
  });

  it('keeps rawHeaders lines apart where a joined record would merge them', () => {
    const source = {
      headers: { 'x-robots-tag': 'otherbot: noindex, nofollow' },
      rawHeaders: ['X-Robots-Tag', 'otherbot: noindex', 'X-Robots-Tag', 'nofollow'],
    };
    expect(readPageDirectives(source, 'mybot')).toMatchObject({ noindex: false, nofollow: true });
  });

  it('does not take a valued rule for a user agent, and rejoins a date split at its comma', () => {
    const got = read({
      'x-robots-tag':
        'unavailable_after: Fri, 25 Jun 2010 15:00:00 GMT, max-snippet: 20, max-image-preview: standard',
    });
    expect(got.unavailableAfter?.toISOString()).toBe('2010-06-25T15:00:00.000Z');
    expect(got).toMatchObject({ maxSnippet: 20, maxImagePreview: 'standard', unknown: [] });
    expect(
      read({ 'x-robots-tag': 'mybot: unavailable_after: 2030-01-02' }).unavailableAfter?.toISOString(),
    ).toBe('2030-01-02T00:00:00.000Z');
  });

  it('none is noindex + nofollow; all, index and follow restrict nothing; unknown rules are kept', () => {
    expect(read({ 'x-robots-tag': 'none' })).toMatchObject({ noindex: true, nofollow: true });
    expect(read({ 'x-robots-tag': 'all, index, follow, noai, noimageai, Frobnicate' })).toMatchObject({
      noindex: false,
      nofollow: false,
      noai: true,
      noimageai: true,
      unknown: ['frobnicate'],
    });
  });

  it('combines to the more restrictive: smallest limits, earliest date, invalid values kept as unknown', () => {
    const got = read({
      'x-robots-tag': [
        'max-snippet: -1, max-video-preview: 30, max-image-preview: large',
        'max-snippet: 50, max-video-preview: -1, max-image-preview: none',
        'unavailable_after: 2031-01-01, unavailable_after: 2030-01-01, unavailable_after: someday',
        'max-snippet: many, max-image-preview: huge',
      ],
    });
    expect(got).toMatchObject({ maxSnippet: 50, maxVideoPreview: 30, maxImagePreview: 'none' });
    expect(got.unavailableAfter?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect(got.unknown).toEqual(['unavailable_after:someday', 'max-snippet:many', 'max-image-preview:huge']);
    expect(read({ 'x-robots-tag': 'max-snippet: 0' }).nosnippet).toBe(true);
  });

  it('reads a fetch Headers object, and nothing from no headers', () => {
    const headers = new Headers([
      ['x-robots-tag', 'noindex'],
      ['x-robots-tag', 'nofollow'],
    ]);
    expect(readPageDirectives({ headers }, 'mybot')).toMatchObject({ noindex: true, nofollow: true });
    expect(readPageDirectives({}, 'mybot')).toMatchObject({ noindex: false, nofollow: false, rules: [] });
  });

  it('takes a Politeness-like agent and refuses an agent with no product token', () => {
    expect(
      readPageDirectives({ headers: { 'x-robots-tag': 'mybot: noindex' } }, { productToken: 'MyBot' })
        .noindex,
    ).toBe(true);
    expect(() => readPageDirectives({}, '/1.0')).toThrow(TypeError);
    expect(() => readPageDirectives({}, undefined as never)).toThrow(/agent must be/);
  });
});

describe('readPageDirectives: meta tags', () => {
  const page = (head: string, body = '<p>hello</p>') =>
    `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

  it('reads robots and our product token, case-insensitively, and adds them to the headers', () => {
    const got = read(
      { 'x-robots-tag': 'noarchive' },
      page(
        '<META NAME="Robots" CONTENT="NoFollow"><meta content="noindex" name=mybot><meta name="otherbot" content="nosnippet">',
      ),
    );
    expect(got).toMatchObject({ noarchive: true, nofollow: true, noindex: true, nosnippet: false });
    expect(got.rules).toEqual([
      { source: 'header', rule: 'noarchive' },
      { source: 'meta', rule: 'nofollow' },
      { source: 'meta', agent: 'mybot', rule: 'noindex' },
    ]);
  });

  it('does not scan a body whose Content-Type is not HTML', () => {
    const body = page('<meta name="robots" content="nofollow">');
    expect(read({ 'content-type': 'text/html; charset=utf-8' }, body).nofollow).toBe(true);
    expect(read({ 'content-type': 'application/xhtml+xml' }, body).nofollow).toBe(true);
    expect(read({ 'content-type': 'text/plain' }, body).nofollow).toBe(false);
  });

  it('reads bytes, and meta tags handed over from a DOM instead of the body', () => {
    const bytes = new TextEncoder().encode(page('<meta name="robots" content="noindex">'));
    expect(readPageDirectives({ body: bytes }, 'mybot').noindex).toBe(true);
    expect(
      readPageDirectives({ body: bytes, meta: [{ name: 'robots', content: 'nofollow' }] }, 'mybot'),
    ).toMatchObject({ noindex: false, nofollow: true });
  });
});

describe('headMetaTags: the head only, as an HTML parser sees it', () => {
  it('reads quoted, unquoted and repeated attributes and decodes references', () => {
    expect(
      headMetaTags(
        `<meta name=robots content=nofollow><meta name='a' name="b" content="x &amp; y&#44;z"/><meta charset=utf-8>`,
      ),
    ).toEqual([
      { name: 'robots', content: 'nofollow' },
      { name: 'a', content: 'x & y,z' },
      { name: null, content: null },
    ]);
  });

  it('skips comments, scripts, styles and titles', () => {
    const html = `<head><!-- <meta name="robots" content="c1"> --><script>document.write('<meta name="robots" content="s1">')</script>
      <style>/* <meta name=robots content=s2> */</style><title><meta name=robots content=t1></title>
      <meta name="robots" content="real"></head>`;
    expect(headMetaTags(html)).toEqual([{ name: 'robots', content: 'real' }]);
  });

  it('stops where the body begins: <body>, a body element, </body>, </html> or text', () => {
    const tag = '<meta name="robots" content="late">';
    expect(headMetaTags(`<head></head><body>${tag}`)).toEqual([]);
    expect(headMetaTags(`<head></head></body>${tag}`)).toEqual([]);
    expect(headMetaTags(`<head></html>${tag}`)).toEqual([]);
    expect(headMetaTags(`<html><body>${tag}`)).toEqual([]);
    expect(headMetaTags(`<html><meta name=a content=1><div>${tag}`)).toEqual([{ name: 'a', content: '1' }]);
    expect(headMetaTags(`<html>Hello ${tag}`)).toEqual([]);
    expect(headMetaTags(`\ufeff<?xml version="1.0"?>\n<html><HEAD>${tag}`)).toEqual([
      { name: 'robots', content: 'late' },
    ]);
  });

  it('gives up cleanly on truncated markup', () => {
    expect(headMetaTags('<head><meta name="robots" content="noindex')).toEqual([]);
    expect(headMetaTags('<head><!-- never closed <meta name=robots content=x>')).toEqual([]);
    expect(headMetaTags('')).toEqual([]);
  });
});

describe('what a site sends never throws', () => {
  const markup = fc.string({
    unit: fc.constantFrom(
      '<',
      '>',
      '/',
      '!',
      '-',
      '=',
      '"',
      "'",
      ' ',
      'meta',
      'name',
      'content',
      'robots',
      'script',
      'head',
      'a',
      '&',
      '#',
      ';',
      'x',
    ),
  });

  it('any body, header line or meta tag gives a parsed form, and only our rules', () => {
    fc.assert(
      fc.property(markup, fc.array(fc.string()), fc.string(), (body, lines, content) => {
        const got = readPageDirectives(
          {
            headers: { 'x-robots-tag': lines },
            body,
            meta: body.length % 2 ? null : [{ name: 'robots', content }],
          },
          'mybot',
        );
        expect(typeof got.nofollow).toBe('boolean');
        for (const rule of got.rules) expect(rule.agent === undefined || rule.agent === 'mybot').toBe(true);
      }),
    );
  });

  it('a meta tag found in the head is read whatever surrounds it in the head', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            '<title>x</title>',
            '<!-- c -->',
            '<link rel=x>',
            '<script>"<body>"</script>',
            '\n',
          ),
        ),
        (before) => {
          const html = `<html><head>${before.join('')}<meta name="robots" content="nofollow"></head><body><p>x</p></body></html>`;
          expect(readPageDirectives({ body: html }, 'mybot').nofollow).toBe(true);
        },
      ),
    );
  });
});
