/**
 * Rule sets of INDEX_FROM_RULES rules or more are indexed by literal prefix (matcher.ts): they must give
 * the reference matcher's verdict, rule for rule, on paths built to hit their prefixes, their wildcards,
 * their `$` anchors and nothing at all, before the index is built (the first checks scan) and after.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostileRobotsTxt } from '../../../../test/helpers/hostile-robots.js';
import { parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';
import { INDEX_FROM_RULES } from '../../src/engine/matcher.js';
import { referenceRules, referenceVerdict } from './reference.js';

/** Paths near a pattern: the pattern with wildcards filled in, cut short, extended, or a sibling. */
function pathsNear(pattern: string, seed: number): string[] {
  const filled = pattern.replace(/\$$/, '').replace(/\*+/g, seed % 2 ? 'x/y' : '');
  return [
    filled,
    `${filled}/more`,
    filled.slice(0, Math.max(1, filled.length - 2)),
    `${filled}z`,
    `/${filled}`,
  ];
}

describe('indexed matcher (large rule sets)', () => {
  it('agrees with the reference matcher on a hostile file of thousands of wildcard rules', () => {
    const body = hostileRobotsTxt(3, 200_000);
    const robots = parseRobotsTxt(body);
    const rules = referenceRules(robots.toJSON(), 'bot');
    expect(rules.length).toBeGreaterThanOrEqual(INDEX_FROM_RULES);
    const agent = robots.forAgent('bot');
    let disallowed = 0;
    for (let i = 0; i < rules.length; i += 37) {
      for (const path of pathsNear((rules[i] as { pattern: string }).pattern, i)) {
        const verdict = agent.check(`https://example.com${path}`);
        expect(verdict, path).toEqual(referenceVerdict(rules, path));
        if (!verdict.allowed) disallowed++;
      }
    }
    // The paths did reach rules, not only the default allow.
    expect(disallowed).toBeGreaterThan(100);
    // The reference matcher is linear per check over thousands of rules: CPU-heavy on a busy machine
    // (66 s under a load of 20 on 2 cores). The limit only catches a hang.
  }, 300_000);

  it('agrees with the reference matcher on random sets over a tiny alphabet (many shared prefixes)', () => {
    const pattern = fc.stringMatching(/^\/[ab*/]{0,6}\$?$/);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), pattern), {
          minLength: INDEX_FROM_RULES,
          maxLength: 1100,
        }),
        fc.array(fc.stringMatching(/^\/[ab/]{0,8}$/), { minLength: 20, maxLength: 20 }),
        (list, paths) => {
          const body = `User-agent: *\n${list.map(([allow, p]) => `${allow ? 'Allow' : 'Disallow'}: ${p}`).join('\n')}\n`;
          const robots = parseRobotsTxt(body);
          const rules = referenceRules(robots.toJSON(), 'bot');
          const agent = robots.forAgent('bot');
          // Twice: the first checks scan, the later ones use the index.
          for (const path of [...paths, ...paths])
            expect(agent.check(`https://e.com${path}`)).toEqual(referenceVerdict(rules, path));
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('indexed matcher: prefixes with chars above U+00FF', () => {
  // A parse escapes every pattern to ASCII, but stored JSON may hold any char: `Ł` (U+0141) must not
  // be read as `A` (0x41), its low byte, once the index is built.
  it('tells `/Ł` from `/A` before and after the index is built', () => {
    const r: (number | string)[] = [];
    for (let i = 0; i < INDEX_FROM_RULES + 4; i++) r.push(-(i + 2), `/dir${i}/`);
    r.push(-100, '/Łx', 101, '/Ax');
    const robots = RobotsTxt.fromJSON({ v: 1, b: 100, g: [{ a: ['*'], r }], o: { e: 'google' } });
    for (let round = 0; round < 40; round++) {
      expect(robots.isAllowed('https://e.com/Ax', 'bot')).toBe(true);
      expect(robots.check('https://e.com/Łx', 'bot')).toMatchObject({ allowed: false, rule: { line: 100 } });
    }
  });
});

describe('indexed matcher: the first level by a path second char', () => {
  // The index looks a path `/c...` up in the block of prefixes that start with `/` and c (c below 128),
  // and falls back to the whole index for other paths. The alphabet reaches every edge of that table:
  // prefixes that sort before `/` (`.`), the empty prefix of a leading `*`, `/` alone, chars just below
  // and at 128 (DEL, U+0080), above 255 (`Ł`), and a path of one char.
  const alphabet = ['/', '*', 'a', '.', '\u007f', '\u0080', 'Ł'];
  const chars = (max: number) =>
    fc.array(fc.constantFrom(...alphabet), { maxLength: max }).map((c) => c.join(''));
  it('agrees with the reference matcher around the edges of the first level', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), chars(5), fc.boolean()), {
          minLength: INDEX_FROM_RULES,
          maxLength: 300,
        }),
        fc.array(
          chars(6).map((rest) => `/${rest.replaceAll('*', 'a')}`),
          { minLength: 20, maxLength: 20 },
        ),
        (list, paths) => {
          const r = list.flatMap(([allow, pattern, anchored], i) => [
            allow ? i + 2 : -(i + 2),
            anchored && pattern.length > 0 ? `${pattern}$` : pattern,
          ]);
          const robots = RobotsTxt.fromJSON({ v: 1, b: 100, g: [{ a: ['*'], r }], o: { e: 'google' } });
          const rules = referenceRules(robots.toJSON(), 'bot');
          const agent = robots.forAgent('bot');
          // Twice: the first checks scan, the later ones use the index.
          for (const path of [...paths, ...paths, ...paths])
            expect(agent.check(`https://e.com${path}`), path).toEqual(referenceVerdict(rules, path));
        },
      ),
      { numRuns: 60 },
    );
  });
});
