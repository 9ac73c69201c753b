/**
 * The tdmrep.json file read and matched (W3C TDM Reservation Protocol, Community Group Final Report,
 * 2024, "TDM File on the Origin Server"): location patterns with `*` and `$`, prefix matching,
 * unreserved octets decoded, the first matching rule in array order, malformed files.
 */
import { describe, expect, it } from 'vitest';
import { matchTdmRep, parseTdmRep, type TdmRepRule } from '../../src/public/engine.js';

function rules(json: unknown): readonly TdmRepRule[] {
  const parsed = parseTdmRep(JSON.stringify(json), 'https://site.test/.well-known/tdmrep.json');
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.rules;
}

const at = (file: readonly TdmRepRule[], path: string) => matchTdmRep(file, `https://site.test${path}`);

describe('tdmrep.json rules', () => {
  it('reads location, tdm-reservation and tdm-policy (a relative policy resolved against the file)', () => {
    expect(
      rules([
        { location: '/', 'tdm-reservation': 1, 'tdm-policy': '/policy.json' },
        { location: '/free/', 'tdm-reservation': 0 },
      ]),
    ).toEqual([
      { location: '/', reservation: 1, policy: 'https://site.test/policy.json' },
      { location: '/free/', reservation: 0 },
    ]);
  });

  it('matches a location as a prefix, case-sensitively', () => {
    const file = rules([{ location: '/books', 'tdm-reservation': 1 }]);
    expect(at(file, '/books')).toBeDefined();
    expect(at(file, '/books/1?page=2')).toBeDefined();
    expect(at(file, '/booksellers')).toBeDefined();
    expect(at(file, '/Books/1')).toBeUndefined();
    expect(at(file, '/news')).toBeUndefined();
  });

  it('* matches any run of chars and $ ends the path', () => {
    const file = rules([
      { location: '/*.pdf$', 'tdm-reservation': 1 },
      { location: '/shop/*/images/', 'tdm-reservation': 1 },
    ]);
    expect(at(file, '/a/b/report.pdf')?.location).toBe('/*.pdf$');
    expect(at(file, '/report.pdf?download')).toBeUndefined();
    expect(at(file, '/report.pdfx')).toBeUndefined();
    expect(at(file, '/shop/42/images/x.png')?.location).toBe('/shop/*/images/');
    expect(at(file, '/shop/images/')).toBeUndefined();
  });

  it('a literal $ is written %24 and matches a $ in the URL', () => {
    const file = rules([{ location: '/price%24', 'tdm-reservation': 1 }]);
    expect(at(file, '/price$list')).toBeDefined();
    expect(at(file, '/price%24list')).toBeDefined();
    expect(at(file, '/price')).toBeUndefined();
  });

  it('decodes percent-encoded unreserved octets on both sides, and no others', () => {
    const file = rules([
      { location: '/%62ooks/', 'tdm-reservation': 1 },
      { location: '/a%2Fb', 'tdm-reservation': 1 },
    ]);
    expect(at(file, '/books/1')?.location).toBe('/%62ooks/');
    expect(at(file, '/b%6Foks/1')?.location).toBe('/%62ooks/');
    expect(at(file, '/a%2fb')?.location).toBe('/a%2Fb');
    expect(at(file, '/a/b')).toBeUndefined();
  });

  it('the first matching rule in array order wins, not the longest', () => {
    const file = rules([
      { location: '/books/', 'tdm-reservation': 1 },
      { location: '/books/open/', 'tdm-reservation': 0 },
    ]);
    expect(at(file, '/books/open/1')).toEqual({ location: '/books/', reservation: 1 });
    const reversed = rules([
      { location: '/books/open/', 'tdm-reservation': 0 },
      { location: '/books/', 'tdm-reservation': 1 },
    ]);
    expect(at(reversed, '/books/open/1')?.reservation).toBe(0);
  });

  it('a large file is matched as robots.txt rules are (the prefix index, first in array order), and hostile patterns answer', () => {
    // A file of thousands of rules (a 500 KB tdmrep.json holds about 6,700) is compiled once into
    // robots.txt's matcher; every answer must still be the first rule in array order that matches,
    // checked here against the spec read literally: a regular expression per location.
    const json: { location: string; 'tdm-reservation': 0 | 1 }[] = [];
    for (let i = 0; i < 6_700; i++) {
      const kind = i % 4;
      const location =
        kind === 0
          ? `/section${i % 97}/`
          : kind === 1
            ? `/item/${i}`
            : kind === 2
              ? `*/tag${i % 31}/*.pdf$`
              : `/a${i % 13}*b$`;
      json.push({ location, 'tdm-reservation': (i % 2) as 0 | 1 });
    }
    const file = rules(json);
    const literal = (location: string) => {
      const anchored = location.endsWith('$');
      const body = (anchored ? location.slice(0, -1) : location)
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*');
      return new RegExp(`^${body}${anchored ? '$' : ''}`, 's');
    };
    const oracle = json.map((rule) => literal(rule.location));
    const paths = [
      '/section5/page',
      '/item/101',
      '/item/1017x',
      '/x/tag7/file.pdf',
      '/x/tag7/file.pdf?x',
      '/a3zzzb',
      '/a3zzzbc',
      '/nothing/here',
      '/',
    ];
    // Past the first few checks the index is built: both ways are checked.
    for (let round = 0; round < 40; round++) {
      for (const path of paths) {
        const expected = json[oracle.findIndex((pattern) => pattern.test(path))];
        expect(at(file, path)?.location, `${path} (round ${round})`).toBe(expected?.location);
      }
    }
    // A location of 500,000 stars and one that cannot match ten thousand times over: answers, not hangs.
    const stars = rules([{ location: `/${'*'.repeat(500_000)}x$`, 'tdm-reservation': 1 }]);
    expect(at(stars, `/${'y'.repeat(2_000)}x`)).toBeDefined();
    expect(at(stars, `/${'y'.repeat(2_000)}`)).toBeUndefined();
  });

  it('no rule matching leaves the URL unset', () => {
    expect(at(rules([]), '/x')).toBeUndefined();
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['not an array', '{"location": "/"}', /not a JSON array/],
    ['an entry that is no object', '[1]', /rule 0: not an object/],
    ['no location', '[{"tdm-reservation": 1}]', /location/],
    ['a location that is no path', '[{"location": "books", "tdm-reservation": 1}]', /not a path pattern/],
    ['a reservation that is a string', '[{"location": "/", "tdm-reservation": "1"}]', /not 0 or 1/],
    ['a reservation of 2', '[{"location": "/", "tdm-reservation": 2}]', /not 0 or 1/],
    ['no reservation', '[{"location": "/"}]', /not 0 or 1/],
    [
      'a policy that is no string',
      '[{"location": "/", "tdm-reservation": 1, "tdm-policy": 3}]',
      /tdm-policy/,
    ],
  ])('a file with %s is malformed as a whole', (_name, text, error) => {
    const parsed = parseTdmRep(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toMatch(error);
  });

  it('a BOM before the JSON is read past', () => {
    expect(parseTdmRep('\ufeff[{"location": "/", "tdm-reservation": 1}]').ok).toBe(true);
  });
});
