/**
 * AI usage preferences in robots.txt: IETF aipref Content-Usage (draft-ietf-aipref-attach, vocabulary
 * of draft-ietf-aipref-vocab) and Cloudflare's Content-Signal, as the engine reads them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';
import { parseContentUsageHeader, parseUsagePref, refusalOf } from '../../src/engine/usage.js';
import { referenceMatches } from './reference.js';

const BOT = 'FooBot';

describe('Content-Usage in robots.txt', () => {
  const robots = parseRobotsTxt(
    [
      'User-agent: *',
      'Allow: /',
      'Disallow: /private',
      'Content-Usage: train-ai=n',
      'Content-Usage: /ai-ok/ train-ai=y',
      'Content-Usage: /tie/ train-ai=y, search=y',
      'Content-Usage: /tie/ train-ai=n',
      'Content-Usage: /*.pdf$ search=n',
      'Content-Usage: /private train-ai=y',
    ].join('\n'),
  );

  it('a rule without a path covers every path', () => {
    expect(robots.usage('https://x.test/page', BOT)).toEqual({
      contentUsage: { 'train-ai': 'n' },
      lines: [4],
    });
  });

  it('the longest matching path pattern wins', () => {
    expect(robots.usage('https://x.test/ai-ok/page', BOT)?.contentUsage).toEqual({ 'train-ai': 'y' });
  });

  it('rules of the same length combine, and a no wins the tie', () => {
    expect(robots.usage('https://x.test/tie/a', BOT)).toEqual({
      contentUsage: { 'train-ai': 'n', search: 'y' },
      lines: [6, 7],
    });
  });

  it('patterns take * and $ as Allow/Disallow do', () => {
    expect(robots.usage('https://x.test/docs/a.pdf', BOT)?.contentUsage).toEqual({ search: 'n' });
    expect(robots.usage('https://x.test/docs/a.pdf?x', BOT)?.contentUsage).toEqual({ 'train-ai': 'n' });
  });

  it('a path the crawler may not fetch carries no preferences', () => {
    expect(robots.check('https://x.test/private/x', BOT).allowed).toBe(false);
    expect(robots.usage('https://x.test/private/x', BOT)).toBeUndefined();
  });

  it('keeps the Allow/Disallow verdicts and grouping unchanged', () => {
    const plain = parseRobotsTxt('User-agent: a\nUser-agent: b\nDisallow: /x\n');
    const withUsage = parseRobotsTxt(
      'User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n',
    );
    for (const agent of ['a', 'b', 'c']) {
      // The same verdict, from the same rule (one line further down).
      const verdict = withUsage.check('https://x.test/x', agent);
      const before = plain.check('https://x.test/x', agent);
      expect(verdict.allowed).toBe(before.allowed);
      expect(verdict.rule?.pattern).toBe(before.rule?.pattern);
    }
    expect(withUsage.usage('https://x.test/y', 'b')?.contentUsage).toEqual({ 'train-ai': 'n' });
  });

  it("applies to the agent's own group only", () => {
    const file = parseRobotsTxt(
      'User-agent: FooBot\nAllow: /\nContent-Usage: train-ai=n\n\nUser-agent: *\nAllow: /\n',
    );
    expect(file.usage('https://x.test/', 'FooBot')?.contentUsage).toEqual({ 'train-ai': 'n' });
    expect(file.usage('https://x.test/', 'OtherBot')).toBeUndefined();
  });

  it('keeps unknown labels and parameters are no error; a malformed value says nothing', () => {
    const file = parseRobotsTxt(
      'User-agent: *\nContent-Usage: train-ai=n;why="x", bots=y, future-thing=?1\nContent-Usage: /bad/ train-ai=maybe=n\n',
    );
    expect(file.usage('https://x.test/', BOT)?.contentUsage).toEqual({
      'train-ai': 'n',
      bots: 'y',
      'future-thing': '?1',
    });
    expect(file.usage('https://x.test/bad/x', BOT)?.contentUsage).toEqual({
      'train-ai': 'n',
      bots: 'y',
      'future-thing': '?1',
    });
  });

  it('survives toJSON / fromJSON', () => {
    const copy = RobotsTxt.fromJSON(JSON.parse(JSON.stringify(robots.toJSON())));
    for (const path of ['/page', '/ai-ok/x', '/tie/a', '/docs/a.pdf', '/private/x']) {
      expect(copy.usage(`https://x.test${path}`, BOT)).toEqual(robots.usage(`https://x.test${path}`, BOT));
    }
  });
});

describe('Content-Usage where the group has no Allow/Disallow rule (issue 35.4)', () => {
  // check() answers such a group without locating the path; usage() must still see it.
  it.each([
    ['no rule', 'User-agent: *\nContent-Usage: /nope/ train-ai=n\n'],
    ['an empty Disallow', 'User-agent: *\nDisallow:\nContent-Usage: /nope/ train-ai=n\n'],
  ])('a path-scoped line applies to its paths only (%s)', (_, body) => {
    const robots = parseRobotsTxt(body);
    expect(robots.usage('https://x.test/nope/secret', BOT)).toEqual({
      contentUsage: { 'train-ai': 'n' },
      lines: [body.includes('Disallow') ? 3 : 2],
    });
    expect(refusalOf(robots.usage('https://x.test/nope/secret', BOT), 'ai-train')).toBeDefined();
    expect(robots.usage('https://x.test/other', BOT)).toBeUndefined();
  });

  it('a longer path-scoped line wins over a line without a path', () => {
    const robots = parseRobotsTxt(
      'User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y\n',
    );
    expect(robots.usage('https://x.test/open/x', BOT)).toEqual({
      contentUsage: { 'train-ai': 'y' },
      lines: [3],
    });
    expect(robots.usage('https://x.test/closed', BOT)).toEqual({
      contentUsage: { 'train-ai': 'n' },
      lines: [2],
    });
    // Percent forms as Allow/Disallow take them (rfc: %6F is o).
    expect(robots.usage('https://x.test/%6Fpen/x', BOT)?.contentUsage).toEqual({ 'train-ai': 'y' });
  });
});

describe('Content-Usage property: many lines, indexed, agree with a linear reference', () => {
  const patternArb = fc.oneof(
    fc
      .array(fc.constantFrom('/', 'a', 'b', '*', '$', '.'), { maxLength: 6 })
      .map((chars) => `/${chars.join('')}`),
    fc.constantFrom('*', '/', undefined),
  );
  const lineArb = fc.record({
    pattern: patternArb,
    prefs: fc.constantFrom('train-ai=n', 'train-ai=y', 'search=y, train-ai=y', 'search=n', 'train-ai=?1'),
  });
  const pathArb = fc
    .array(fc.constantFrom('/', 'a', 'b', '.', '$'), { maxLength: 9 })
    .map((chars) => `/${chars.join('')}`);

  /** Longest matching lines, combined in file order with a no winning; no index, no lazy compile. */
  function reference(lines: readonly { pattern: string | undefined; prefs: string }[], path: string) {
    let longest = -1;
    let matched: number[] = [];
    lines.forEach((line, i) => {
      const pattern = line.pattern ?? '/';
      if (!referenceMatches(pattern, path)) return;
      if (pattern.length > longest) [longest, matched] = [pattern.length, []];
      if (pattern.length === longest) matched.push(i);
    });
    if (matched.length === 0) return undefined;
    const usage: Record<string, string> = {};
    for (const i of matched)
      for (const [key, value] of Object.entries(parseUsagePref(lines[i]?.prefs ?? '') ?? {}))
        if (usage[key] !== 'n') usage[key] = value;
    return { contentUsage: usage, lines: matched.map((i) => i + 2) };
  }

  it('for groups with and without an allow-all rule', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        // More paths than the matcher scans before it builds its index.
        fc.array(pathArb, { minLength: 20, maxLength: 30 }),
        (lines, allowAll, paths) => {
          const body = [
            'User-agent: *',
            ...lines.map((l) => `Content-Usage: ${l.pattern === undefined ? '' : `${l.pattern} `}${l.prefs}`),
            ...(allowAll ? ['Disallow:'] : []),
          ].join('\n');
          const robots = parseRobotsTxt(body);
          for (const path of paths) {
            const usage = robots.usage(`http://h${path}`, BOT);
            expect({ path, usage }).toEqual({ path, usage: reference(lines, path) });
          }
        },
      ),
      { seed: 3503, numRuns: 150 },
    );
  });
});

describe('the usage lines in the memory estimate (issue 35.3)', () => {
  const disallows = Array.from({ length: 2000 }, (_, i) => `Disallow: /d${i}*x`);
  const usages = Array.from({ length: 2000 }, (_, i) => `Content-Usage: /u${i}*x train-ai=n`);

  it('counts the lines a parse keeps, and their compiled form once usage() is asked', () => {
    const plain = parseRobotsTxt(['User-agent: *', ...disallows].join('\n'));
    const withUsage = parseRobotsTxt(['User-agent: *', ...disallows, ...usages].join('\n'));
    for (const robots of [plain, withUsage]) robots.check('http://h/page', BOT);
    // The usage lines' chars alone are some 60 KB; what a parse keeps of each line is far more.
    const parsed = withUsage.estimateBytes() - plain.estimateBytes();
    expect(parsed).toBeGreaterThan(2000 * 200);
    for (let i = 0; i < 40; i++) withUsage.usage(`http://h/u${i}/x`, BOT);
    expect(withUsage.estimateBytes() - plain.estimateBytes()).toBeGreaterThan(2000 * 300);
  });
});

describe('Content-Signal in robots.txt', () => {
  it('inside a group, for that group', () => {
    const robots = parseRobotsTxt(
      'User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n\nUser-agent: FooBot\nAllow: /\n',
    );
    expect(robots.usage('https://x.test/', 'OtherBot')).toEqual({
      contentSignal: { search: 'yes', 'ai-train': 'no' },
      lines: [2],
    });
    expect(robots.usage('https://x.test/', 'FooBot')).toBeUndefined();
  });

  it('at file level, for every agent; a no from either line wins', () => {
    const robots = parseRobotsTxt(
      'Content-Signal: ai-train=no, search=yes\n\nUser-agent: FooBot\nContent-Signal: ai-train=yes, ai-input=no\nAllow: /\n',
    );
    expect(robots.usage('https://x.test/', 'FooBot')).toEqual({
      contentSignal: { 'ai-train': 'no', search: 'yes', 'ai-input': 'no' },
      lines: [1, 4],
    });
    expect(robots.usage('https://x.test/', 'Other')?.contentSignal).toEqual({
      'ai-train': 'no',
      search: 'yes',
    });
    const copy = RobotsTxt.fromJSON(robots.toJSON());
    expect(copy.usage('https://x.test/', 'FooBot')).toEqual(robots.usage('https://x.test/', 'FooBot'));
  });

  it('an omitted signal is no preference', () => {
    const robots = parseRobotsTxt('User-agent: *\nContent-Signal: search=yes\n');
    const usage = robots.usage('https://x.test/', BOT);
    expect(refusalOf(usage, 'ai-train')).toBeUndefined();
    expect(refusalOf(usage, 'search')).toBeUndefined();
  });
});

describe('purposes against both vocabularies', () => {
  it.each([
    ['ai-train', { contentUsage: { 'train-ai': 'n' } }, 'Content-Usage', 'train-ai'],
    ['ai-train', { contentSignal: { 'ai-train': 'no' } }, 'Content-Signal', 'ai-train'],
    ['search', { contentUsage: { search: 'n' } }, 'Content-Usage', 'search'],
    ['search', { contentSignal: { search: 'no' } }, 'Content-Signal', 'search'],
    ['ai-input', { contentSignal: { 'ai-input': 'no' } }, 'Content-Signal', 'ai-input'],
    // They disagree: the no wins.
    [
      'ai-train',
      { contentUsage: { 'train-ai': 'y' }, contentSignal: { 'ai-train': 'no' } },
      'Content-Signal',
      'ai-train',
    ],
    [
      'ai-train',
      { contentUsage: { 'train-ai': 'n' }, contentSignal: { 'ai-train': 'yes' } },
      'Content-Usage',
      'train-ai',
    ],
  ] as const)('%s refused by %j', (purpose, prefs, by, label) => {
    expect(refusalOf(prefs, purpose)).toEqual({ purpose, by, label, source: 'robots.txt' });
  });

  it.each([
    ['ai-input', { contentUsage: { 'train-ai': 'n', search: 'n' } }],
    ['ai-train', { contentUsage: { search: 'n' }, contentSignal: { search: 'no', 'ai-input': 'no' } }],
    ['search', { contentUsage: { 'train-ai': 'n', search: 'y' } }],
    ['ai-train', { contentUsage: { 'train-ai': '?1' } }],
  ] as const)('%s not refused by %j', (purpose, prefs) => {
    expect(refusalOf(prefs, purpose)).toBeUndefined();
  });
});

describe('RFC 9651 dictionary (usage-pref) and the Content-Usage header', () => {
  it.each([
    ['train-ai=n', { 'train-ai': 'n' }],
    ['train-ai=y, search=n', { 'train-ai': 'y', search: 'n' }],
    ['train-ai=y,\tsearch=n', { 'train-ai': 'y', search: 'n' }],
    [
      'a=1, b="x\\"y", c=?0, d=:aGk=:, e=(y n);p, f=1.5, g=@12, h',
      {
        a: '1',
        b: '"x\\"y"',
        c: '?0',
        d: ':aGk=:',
        e: '(y n);p',
        f: '1.5',
        g: '@12',
        h: '?1',
      },
    ],
    ['train-ai=y, train-ai=n', { 'train-ai': 'n' }],
    ['', {}],
  ])('%j', (text, expected) => {
    expect({ ...parseUsagePref(text) }).toEqual(expected);
  });

  it.each(['Train-AI=n', 'train-ai=', 'train-ai=n,', 'train-ai n', '=n', 'a="open', 'a=?2', 'a=1.2345'])(
    'rejects %j',
    (text) => {
      expect(parseUsagePref(text)).toBeUndefined();
    },
  );

  it('joins several header lines; absent or malformed is undefined', () => {
    expect(parseContentUsageHeader(['train-ai=n', 'search=y'])).toEqual({ 'train-ai': 'n', search: 'y' });
    expect(parseContentUsageHeader(' train-ai=n ')).toEqual({ 'train-ai': 'n' });
    expect(parseContentUsageHeader(undefined)).toBeUndefined();
    expect(parseContentUsageHeader('train-ai=[n]')).toBeUndefined();
  });
});

describe('lint', () => {
  const codes = (body: string) =>
    lintRobotsTxt(body)
      .filter((d) => d.code.includes('usage') || d.code.includes('signal') || d.code.endsWith('directive'))
      .map((d) => [d.line, d.severity, d.code]);

  it('a signal outside any group, a rule outside any group', () => {
    expect(
      codes('Content-Signal: ai-train=no\nContent-Usage: train-ai=n\nUser-agent: *\nAllow: /\n'),
    ).toEqual([
      [1, 'info', 'signal-outside-group'],
      [2, 'warning', 'usage-outside-group'],
    ]);
  });

  it('malformed values and unexpected values for known labels; unknown labels are fine', () => {
    expect(
      codes(
        [
          'User-agent: *',
          'Content-Usage: train-ai=no',
          'Content-Usage: /x/ train-ai',
          'Content-Usage: train-ai n',
          'Content-Signal: ai-train=n',
          'Content-Signal: ai-train',
          'Content-Usage: future=?1, search=y',
          'Content-Signal: search=yes, new-signal=maybe',
        ].join('\n'),
      ),
    ).toEqual([
      [2, 'warning', 'invalid-usage-preference'],
      [3, 'warning', 'invalid-usage-preference'],
      [4, 'warning', 'invalid-usage-preference'],
      [5, 'warning', 'invalid-usage-preference'],
      [6, 'warning', 'invalid-usage-preference'],
    ]);
  });
});
