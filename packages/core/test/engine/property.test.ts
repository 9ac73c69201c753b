/**
 * Property tests (fast-check). Fixed seed and few runs by default; POLITELY_FUZZ=long runs many more.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt, RobotsTxt, readRobotsTxtLines } from '../../src/engine/index.js';
import { referenceRules, referenceVerdict } from './reference.js';

const long = process.env.POLITELY_FUZZ === 'long';
// Long runs take a fresh seed each time (fast-check prints it with any counterexample).
const params = (runs: number): fc.Parameters<unknown> =>
  long ? { numRuns: runs * 50 } : { seed: 9309, numRuns: runs };

const keys = [
  'User-agent',
  'user-agent',
  'useragent',
  'Allow',
  'Disallow',
  'disalow',
  'Sitemap',
  'Crawl-delay',
  'Host',
  'x',
];
const separators = [': ', ':', ' : ', ' ', '\t', '', '::'];
const eols = ['\n', '\r\n', '\r'];
const valueChars = [
  '/',
  'a',
  'b',
  '*',
  '$',
  '%',
  '2',
  'F',
  '#',
  ' ',
  '\u00e9',
  '\u30c4',
  '?',
  '=',
  '.',
  '\0',
];

const grammarLine = fc
  .tuple(
    fc.constantFrom(...keys, '', '#', '\ufeff', ' '),
    fc.constantFrom(...separators),
    fc.array(fc.constantFrom(...valueChars, 'foobot', '*'), { maxLength: 8 }).map((parts) => parts.join('')),
  )
  .map(([key, separator, value]) => `${key}${separator}${value}`);

const grammarBody = fc
  .tuple(fc.array(grammarLine, { maxLength: 30 }), fc.constantFrom(...eols))
  .map(([lines, eol]) => lines.join(eol));

describe('engine property: parsing is total', () => {
  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2_000 }), fc.string(), (bytes, url) => {
        const robots = parseRobotsTxt(bytes);
        expect(typeof robots.isAllowed(url, 'foobot')).toBe('boolean');
        lintRobotsTxt(bytes);
        const revived = RobotsTxt.fromJSON(JSON.parse(JSON.stringify(robots.toJSON())));
        expect(revived.check(url, 'foobot')).toEqual(robots.check(url, 'foobot'));
      }),
      params(300),
    );
  });

  it('never throws on grammar-shaped input, and line records cover every line', () => {
    fc.assert(
      fc.property(grammarBody, fc.string({ maxLength: 20 }), (body, url) => {
        const robots = parseRobotsTxt(body);
        robots.check(url, 'foobot');
        robots.crawlDelay('foobot');
        const lines = readRobotsTxtLines(body);
        expect(lines.map((line) => line.line)).toEqual(lines.map((_, i) => i + 1));
        lintRobotsTxt(body, { charset: 'windows-1252' });
      }),
      params(300),
    );
  });
});

/** Small alphabets so that random patterns and paths actually meet. */
const patternArb = fc
  .array(fc.constantFrom('/', 'a', 'b', '*', '$', '.'), { minLength: 0, maxLength: 7 })
  .map((chars) => `/${chars.join('')}`);
const pathArb = fc
  .array(fc.constantFrom('/', 'a', 'b', '.', '$'), { maxLength: 10 })
  .map((chars) => `/${chars.join('')}`);
const ruleArb = fc.record({
  allow: fc.boolean(),
  pattern: fc.oneof(patternArb, fc.constantFrom('*', '*$', '/', '$')),
});

function bodyOf(
  groups: readonly { agents: readonly string[]; rules: readonly { allow: boolean; pattern: string }[] }[],
) {
  return groups
    .map((group) =>
      [
        ...group.agents.map((agent) => `User-agent: ${agent}`),
        ...group.rules.map((rule) => `${rule.allow ? 'Allow' : 'Disallow'}: ${rule.pattern}`),
      ].join('\n'),
    )
    .join('\n\n');
}

describe('engine property: longest match', () => {
  it('gives a verdict that does not depend on rule order', () => {
    fc.assert(
      fc.property(
        fc
          .array(ruleArb, { minLength: 1, maxLength: 25 })
          .chain((rules) =>
            fc.tuple(fc.constant(rules), fc.shuffledSubarray(rules, { minLength: rules.length })),
          ),
        fc.array(pathArb, { minLength: 1, maxLength: 10 }),
        ([rules, shuffled], paths) => {
          const a = parseRobotsTxt(bodyOf([{ agents: ['*'], rules }]));
          const b = parseRobotsTxt(bodyOf([{ agents: ['*'], rules: shuffled }]));
          for (const path of paths) {
            const left = a.check(`http://h${path}`, 'x');
            const right = b.check(`http://h${path}`, 'x');
            expect(right.allowed).toBe(left.allowed);
            expect(right.rule?.pattern.length).toBe(left.rule?.pattern.length);
          }
        },
      ),
      params(300),
    );
  });

  it('agrees with the slow reference matcher, rule for rule', () => {
    const agents = fc.constantFrom('*', 'foobot', 'barbot', 'FooBot/1.0');
    const groupArb = fc.record({
      agents: fc.array(agents, { minLength: 1, maxLength: 2 }),
      rules: fc.array(ruleArb, { maxLength: 40 }),
    });
    fc.assert(
      fc.property(
        fc.array(groupArb, { minLength: 1, maxLength: 4 }),
        fc.array(pathArb, { maxLength: 12 }),
        (groups, paths) => {
          const robots = parseRobotsTxt(bodyOf(groups));
          const json = robots.toJSON();
          for (const agent of ['foobot', 'barbot', 'other']) {
            const rules = referenceRules(json, agent);
            for (const path of paths)
              expect(robots.check(`http://h${path}`, agent)).toEqual(referenceVerdict(rules, path));
          }
        },
      ),
      params(400),
    );
  });
});

describe('engine property: matching cost is linear', () => {
  // Work is estimated by counting the characters String#indexOf/startsWith/endsWith can look at
  // while the matcher runs: the matcher's only primitive operations on the path.
  const originals = {
    indexOf: String.prototype.indexOf,
    startsWith: String.prototype.startsWith,
    endsWith: String.prototype.endsWith,
  };
  let work = 0;
  function instrument(): void {
    String.prototype.indexOf = function (this: string, search: string, position?: number) {
      const from = position ?? 0;
      work += Math.max(1, this.length - from) * Math.max(1, search.length);
      return originals.indexOf.call(this, search, position);
    };
    String.prototype.startsWith = function (this: string, search: string, position?: number) {
      work += Math.max(1, search.length);
      return originals.startsWith.call(this, search, position);
    };
    String.prototype.endsWith = function (this: string, search: string, length?: number) {
      work += Math.max(1, search.length);
      return originals.endsWith.call(this, search, length);
    };
  }
  afterEach(() => Object.assign(String.prototype, originals));

  function workFor(stars: number): number {
    // The classic backtracking killer: `/*a*a*a...*b` against `/aaaa...a` (no b).
    const robots = parseRobotsTxt(`User-agent: *\nDisallow: /${'*a'.repeat(stars)}*b\n`);
    const path = `/${'a'.repeat(stars * 4)}`;
    robots.isAllowed(path, 'x'); // compile outside the measurement
    work = 0;
    instrument();
    const allowed = robots.isAllowed(path, 'x');
    Object.assign(String.prototype, originals);
    expect(allowed).toBe(true);
    return work;
  }

  it('grows at most linearly in pattern x path as wildcards double', () => {
    fc.assert(
      fc.property(fc.integer({ min: 8, max: long ? 2_000 : 200 }), (n) => {
        const single = workFor(n);
        const double = workFor(2 * n);
        // Pattern and path both double, so pattern x path may grow 4x; exponential backtracking would
        // explode far past that.
        expect(double / single).toBeLessThanOrEqual(4.5);
        expect(single).toBeLessThanOrEqual(2 * (2 * n + 3) * (4 * n + 1));
      }),
      params(20),
    );
  });
});
