/**
 * RFC 9309 behaviour, by section. Google-only behaviour lives in google-only.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';

const allowed = (body: string, url: string, agent = 'FooBot') => parseRobotsTxt(body).isAllowed(url, agent);

describe('RFC 9309 2.1 protocol definition: groups and lines', () => {
  it('reads field names case-insensitively and allows whitespace around the colon', () => {
    expect(allowed('USER-AGENT : foobot\nDISALLOW :/x', 'http://a/x')).toBe(false);
    expect(allowed('user-agent:foobot\ndisallow:/x', 'http://a/x')).toBe(false);
  });

  it('ends lines at CR, LF and CRLF alike', () => {
    for (const eol of ['\n', '\r', '\r\n']) {
      const robots = parseRobotsTxt(['User-agent: foobot', 'Disallow: /x', 'Allow: /x/y'].join(eol));
      expect(robots.isAllowed('http://a/x', 'FooBot')).toBe(false);
      expect(robots.check('http://a/x/y', 'FooBot')).toEqual({
        allowed: true,
        rule: { directive: 'allow', pattern: '/x/y', line: 3 },
      });
    }
  });

  it('treats # as the start of a comment anywhere on a line', () => {
    const robots = parseRobotsTxt('# hello\nUser-agent: foobot # me\nDisallow: /x # not /y\n');
    expect(robots.check('http://a/x', 'foobot').rule).toEqual({
      directive: 'disallow',
      pattern: '/x',
      line: 3,
    });
    expect(robots.isAllowed('http://a/y', 'foobot')).toBe(true);
  });

  it('lets a group list several user-agents and continue past blank lines between them', () => {
    const robots = parseRobotsTxt('User-agent: a\n\nUser-agent: b\nDisallow: /\n');
    expect(robots.isAllowed('http://x/', 'a')).toBe(false);
    expect(robots.isAllowed('http://x/', 'b')).toBe(false);
    expect(robots.isAllowed('http://x/', 'c')).toBe(true);
  });

  it('starts a new group at a user-agent line that follows rules', () => {
    const robots = parseRobotsTxt('User-agent: a\nDisallow: /a\nUser-agent: b\nDisallow: /b\n');
    expect(robots.isAllowed('http://x/b', 'a')).toBe(true);
    expect(robots.isAllowed('http://x/a', 'b')).toBe(true);
    expect(robots.isAllowed('http://x/a', 'a')).toBe(false);
  });

  it('lets the last group have no rules, allowing everything', () => {
    expect(allowed('User-agent: *\nDisallow: /\nUser-agent: foobot\n', 'http://a/x')).toBe(true);
  });
});

describe('RFC 9309 2.2.1 the user-agent line', () => {
  it('compares the product token case-insensitively', () => {
    expect(allowed('User-agent: FOOBOT\nDisallow: /', 'http://a/', 'foobot')).toBe(false);
    expect(allowed('User-agent: foobot\nDisallow: /', 'http://a/', 'FooBot')).toBe(false);
  });

  it('merges several groups that name the same agent', () => {
    const robots = parseRobotsTxt(
      'User-agent: foobot\nDisallow: /a\n\nUser-agent: x\nAllow: /\n\nUser-agent: foobot\nDisallow: /b\n',
    );
    expect(robots.isAllowed('http://h/a', 'foobot')).toBe(false);
    expect(robots.check('http://h/b', 'foobot').rule?.line).toBe(8);
  });

  it('merges several * groups', () => {
    const robots = parseRobotsTxt(
      'User-agent: *\nDisallow: /a\nUser-agent: x\nAllow: /\nUser-agent: *\nDisallow: /b\n',
    );
    expect(robots.isAllowed('http://h/a', 'foobot')).toBe(false);
    expect(robots.isAllowed('http://h/b', 'foobot')).toBe(false);
  });

  it('falls back to the * group when no group names the agent', () => {
    expect(allowed('User-agent: other\nAllow: /\nUser-agent: *\nDisallow: /', 'http://a/')).toBe(false);
  });

  it('uses only the agent-specific group, ignoring * completely', () => {
    const body = 'User-agent: *\nDisallow: /private\n\nUser-agent: foobot\nDisallow: /tmp\n';
    expect(allowed(body, 'http://a/private')).toBe(true);
    expect(allowed(body, 'http://a/tmp')).toBe(false);
  });

  it('allows everything when there is neither a matching group nor a * group', () => {
    expect(allowed('User-agent: other\nDisallow: /', 'http://a/')).toBe(true);
    expect(parseRobotsTxt('').check('http://a/', 'foobot')).toEqual({ allowed: true });
  });

  it('compares the caller token whole: "Foo Bar" is not "Foo"', () => {
    expect(allowed('User-agent: Foo Bar\nDisallow: /', 'http://a/', 'Foo Bar')).toBe(true);
    expect(allowed('User-agent: Foo Bar\nDisallow: /', 'http://a/', 'Foo')).toBe(false);
  });
});

describe('RFC 9309 2.2.2 the allow and disallow lines', () => {
  it('matches from the first octet of the path, case-sensitively', () => {
    expect(allowed('User-agent: *\nDisallow: /Fish', 'http://a/fish')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /Fish', 'http://a/Fish.html')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /fish', 'http://a/x/fish')).toBe(true);
  });

  it('matches against path, params and query, not the fragment or host', () => {
    expect(allowed('User-agent: *\nDisallow: /a?b', 'http://h/a?b=1#frag')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /a;p', 'http://h/a;p?q')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /frag', 'http://h/b#/frag')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /host', 'http://host/b')).toBe(true);
  });

  it('allows when no rule matches or the group has no rules', () => {
    expect(allowed('User-agent: *\nDisallow: /x', 'http://a/y')).toBe(true);
    expect(allowed('User-agent: *\n', 'http://a/y')).toBe(true);
  });

  it('never blocks with an empty pattern', () => {
    expect(parseRobotsTxt('User-agent: *\nDisallow:\n').check('http://a/', 'x')).toEqual({ allowed: true });
    expect(allowed('User-agent: *\nDisallow:\nDisallow: /x', 'http://a/x')).toBe(false);
  });

  it('ignores rules before the first user-agent line', () => {
    expect(allowed('Disallow: /\nUser-agent: *\nDisallow: /x', 'http://a/y')).toBe(true);
  });

  it('reports the deciding rule with its normalised pattern and 1-based line', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /caf\u00e9\n');
    expect(robots.check('http://a/caf%C3%A9/menu', 'x')).toEqual({
      allowed: false,
      rule: { directive: 'disallow', pattern: '/caf%C3%A9', line: 2 },
    });
  });
});

describe('RFC 9309 2.2.2 longest match', () => {
  const body =
    'User-agent: *\nAllow: /p\nDisallow: /\nDisallow: /page\nAllow: /page/public\nDisallow: /*.gif$\n';

  it('lets the most specific (longest) match win', () => {
    const robots = parseRobotsTxt(body);
    expect(robots.check('http://a/page/x', 'x').rule).toEqual({
      directive: 'disallow',
      pattern: '/page',
      line: 4,
    });
    expect(robots.check('http://a/page/public/x', 'x').rule?.pattern).toBe('/page/public');
    expect(robots.check('http://a/pa', 'x').rule?.pattern).toBe('/p');
    expect(robots.check('http://a/other', 'x').rule?.pattern).toBe('/');
    expect(robots.check('http://a/p/i.gif', 'x').rule?.pattern).toBe('/*.gif$');
  });

  it('lets allow win a tie in length', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /ab\nAllow: /a*\n');
    expect(robots.check('http://h/abc', 'x')).toEqual({
      allowed: true,
      rule: { directive: 'allow', pattern: '/a*', line: 3 },
    });
  });

  it('counts wildcards in the length: /*.html (7) beats /page (5)', () => {
    expect(allowed('User-agent: *\nAllow: /page\nDisallow: /*.html', 'http://h/page.html')).toBe(false);
  });

  it('reports the first of equally long rules of the same kind', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /a*\nDisallow: /*b\n');
    expect(robots.check('http://h/ab', 'x').rule?.line).toBe(2);
  });

  it('does not depend on rule order', () => {
    const lines = ['Allow: /p', 'Disallow: /', 'Disallow: /page', 'Allow: /page/public', 'Disallow: /*.gif$'];
    const reversed = parseRobotsTxt(`User-agent: *\n${[...lines].reverse().join('\n')}`);
    const forward = parseRobotsTxt(`User-agent: *\n${lines.join('\n')}`);
    for (const path of ['/page/x', '/page/public/x', '/pa', '/other', '/p/i.gif', '/page/public/a.gif']) {
      expect(reversed.isAllowed(path, 'x')).toBe(forward.isAllowed(path, 'x'));
    }
  });
});

describe('RFC 9309 2.2.2 percent-encoding', () => {
  it('escapes non-ASCII octets in rules, and compares the URL as given', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /\u30c4\n');
    expect(robots.isAllowed('http://a/%E3%83%84', 'x')).toBe(false);
    // The matcher never encodes the URL: a raw character is the caller's to encode.
    expect(robots.isAllowed('http://a/\u30c4', 'x')).toBe(true);
  });

  it("percentEncoding 'google': upper-cases %xx in rules and decodes nothing", () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /a%2fb\nDisallow: /%62az\nDisallow: /private\n', {
      percentEncoding: 'google',
    });
    expect(robots.isAllowed('http://h/a%2Fb', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/a/b', 'x')).toBe(true);
    expect(robots.isAllowed('http://h/baz', 'x')).toBe(true);
    expect(robots.isAllowed('http://h/%70rivate/x', 'x')).toBe(true);
  });

  it('by default decodes unreserved %XX in the path and the patterns, and compares the rest upper-cased', () => {
    const robots = parseRobotsTxt(
      'User-agent: *\nDisallow: /private\nDisallow: /a%2fb\nDisallow: /%62az\nDisallow: /t%7E\n',
    );
    // The path's unreserved octets: /%70rivate and /priv%61te are /private.
    expect(robots.check('http://h/%70rivate/secret2', 'x')).toMatchObject({
      allowed: false,
      rule: { pattern: '/private', line: 2 },
    });
    expect(robots.isAllowed('http://h/priv%61te', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/PRIV%61te', 'x')).toBe(true);
    // The patterns' unreserved octets: %62 is b, %7E is ~.
    expect(robots.check('http://h/baz', 'x')).toMatchObject({ allowed: false, rule: { pattern: '/baz' } });
    expect(robots.isAllowed('http://h/t~', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/t%7e', 'x')).toBe(false);
    // Reserved octets stay encoded, compared upper-cased: %2F is not a path separator.
    expect(robots.isAllowed('http://h/a%2fb', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/a%2Fb', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/a/b', 'x')).toBe(true);
    // %2A is a literal star, never a wildcard; a lone % stays as it is.
    expect(parseRobotsTxt('User-agent: *\nDisallow: /a%2Ab\n').isAllowed('http://h/axxb', 'x')).toBe(true);
    expect(parseRobotsTxt('User-agent: *\nDisallow: /100%\n').isAllowed('http://h/100%', 'x')).toBe(false);
  });

  it('the mode survives a JSON round trip, and old JSON without it is brought to the RFC form', () => {
    const google = parseRobotsTxt('User-agent: *\nDisallow: /%70rivate\n', { percentEncoding: 'google' });
    const revived = RobotsTxt.fromJSON(JSON.parse(JSON.stringify(google.toJSON())));
    expect(revived.isAllowed('http://h/private', 'x')).toBe(true);
    const older = { v: 1, b: 30, g: [{ a: ['*'], r: [-2, '/%70rivate'] }] };
    expect(RobotsTxt.fromJSON(older).isAllowed('http://h/private/x', 'x')).toBe(false);
  });
});

describe('RFC 9309 2.2.3 special characters', () => {
  it('lets * match any sequence, / included, in any position', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /a*c\nDisallow: *.gif\n');
    expect(robots.isAllowed('http://h/a/b/c', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/ac', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/x/y.gif?z', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/ab', 'x')).toBe(true);
  });

  it('anchors a pattern with a final $', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /a$\nDisallow: /*.php$\n');
    expect(robots.isAllowed('http://h/a', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/ab', 'x')).toBe(true);
    expect(robots.isAllowed('http://h/x.php', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/x.php?y', 'x')).toBe(true);
  });

  it('treats $ before the end as a literal', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /a$b\n');
    expect(robots.isAllowed('http://h/a$b', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/a', 'x')).toBe(true);
  });

  it('collapses runs of * without changing the answer', () => {
    const one = parseRobotsTxt('User-agent: *\nDisallow: /a*b$\n');
    const many = parseRobotsTxt('User-agent: *\nDisallow: /a****b$\n');
    for (const path of ['/ab', '/axxb', '/abx', '/a', '/b']) {
      expect(many.isAllowed(`http://h${path}`, 'x')).toBe(one.isAllowed(`http://h${path}`, 'x'));
    }
  });
});

describe('RFC 9309 2.2.4 other records', () => {
  it('collects every Sitemap line, trimmed, from any position, without ending a group', () => {
    const robots = parseRobotsTxt(
      'Sitemap: https://a/1.xml\nUser-agent: foobot\nSitemap:   https://a/2.xml  \nUser-agent: barbot\nDisallow: /\nsite-map: https://a/3.xml\n',
    );
    expect(robots.sitemaps).toEqual(['https://a/1.xml', 'https://a/2.xml', 'https://a/3.xml']);
    expect(robots.isAllowed('http://a/', 'foobot')).toBe(false);
    expect(robots.isAllowed('http://a/', 'barbot')).toBe(false);
  });

  it('ignores unknown records without ending a group', () => {
    expect(
      allowed('User-agent: foobot\nHost: a\nNoindex: /\nUser-agent: bar\nDisallow: /', 'http://a/'),
    ).toBe(false);
  });
});

describe('RFC 9309 2.3.1.5 parse errors: every line that parses is used', () => {
  it('skips junk lines and keeps the rest', () => {
    const robots = parseRobotsTxt('<html>\nUser-agent: *\nthis is not a rule at all\nDisallow: /x\n}{:::\n');
    expect(robots.isAllowed('http://a/x', 'foobot')).toBe(false);
    expect(robots.isAllowed('http://a/y', 'foobot')).toBe(true);
  });
});

describe('RFC 9309 2.5 limits', () => {
  it('parses at least 512,000 bytes by default', () => {
    const filler = '# filler line that is not a rule at all, just padding the body\n'.repeat(8_000);
    const body = `User-agent: *\n${filler}Disallow: /late\n`;
    expect(new TextEncoder().encode(body).length).toBeGreaterThan(500_000);
    expect(new TextEncoder().encode(body).length).toBeLessThan(512_000);
    const robots = parseRobotsTxt(body);
    expect(robots.truncated).toBe(false);
    expect(robots.isAllowed('http://a/late', 'x')).toBe(false);
  });

  it('cuts at maxBytes, reports it, and drops the partial last line', () => {
    const body = 'User-agent: *\nDisallow: /a\nAllow: /abc/def\n';
    const cut = parseRobotsTxt(body, { maxBytes: body.indexOf('def') });
    expect(cut.truncated).toBe(true);
    expect(cut.byteLength).toBe(body.indexOf('def'));
    // `Allow: /abc/def` cut to `Allow: /abc/` would allow /abc/x; the partial line is dropped instead.
    expect(cut.isAllowed('http://h/abc/x', 'x')).toBe(false);
    const whole = parseRobotsTxt(body);
    expect(whole.truncated).toBe(false);
    expect(whole.byteLength).toBe(body.length);
  });

  it('keeps a last line that ends exactly at the limit', () => {
    const body = 'User-agent: *\nDisallow: /a\nDisallow: /b\n';
    const robots = parseRobotsTxt(body, { maxBytes: body.indexOf('\nDisallow: /b') });
    expect(robots.truncated).toBe(true);
    expect(robots.isAllowed('http://h/a', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/b', 'x')).toBe(true);
  });
});
