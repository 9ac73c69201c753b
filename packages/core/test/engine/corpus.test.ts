/**
 * Real-world files: every body in ../shared/corpus/robots parses and lints without throwing, and on
 * every path x agent of ../shared/corpus/urls.jsonl the fast matcher agrees with the slow reference
 * (and with itself after a JSON round trip).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt, RobotsTxt } from '../../src/engine/index.js';
import { canonicalPath } from '../../src/engine/percent.js';
import { referenceRules, referenceVerdict } from './reference.js';
import { CORPUS_HOW_TO, hasCorpus, sharedPath } from './shared-data.js';

/**
 * Above this many rules for one agent the O(rules x pattern x path) reference is skipped to keep the
 * default run light; POLITELY_FUZZ=long compares every file.
 */
const REFERENCE_RULE_LIMIT = process.env.POLITELY_FUZZ === 'long' ? Number.POSITIVE_INFINITY : 500;
/** The differential runs in this many tests, each over a slice of urls.jsonl. */
const SLICES = 8;

interface UrlsLine {
  readonly file: string;
  readonly paths: readonly string[];
  readonly agents: readonly string[];
}

// The corpus lives in ../shared beside the repository (CI has it). Missing there is a failure; on a
// developer machine without it the suite is skipped with a loud message.
if (!hasCorpus) {
  const message = `the shared corpus is missing at ${sharedPath('corpus/robots')}`;
  if (process.env.CI) throw new Error(`${message} (CI must provide ../shared beside the repository)`);
  console.warn(
    `\n!!! ${message}: SKIPPING the real-world corpus tests. To run them, ${CORPUS_HOW_TO}. !!!\n`,
  );
}

describe.skipIf(!hasCorpus)('real-world corpus', () => {
  const files = hasCorpus ? readdirSync(sharedPath('corpus/robots')).sort() : [];

  it('parses and lints all 2,476 files without throwing', () => {
    expect(files).toHaveLength(2_476);
    let truncated = 0;
    for (const file of files) {
      const body = new Uint8Array(readFileSync(sharedPath(`corpus/robots/${file}`)));
      const robots = parseRobotsTxt(body);
      if (robots.truncated) truncated++;
      expect(robots.byteLength).toBe(Math.min(body.length, 512_000));
      lintRobotsTxt(body);
    }
    // The corpus README counts 13 bodies above 500 KiB; those above 512,000 bytes are cut.
    expect(truncated).toBeGreaterThan(0);
    expect(truncated).toBeLessThanOrEqual(13);
  }, 120_000);

  const lines = hasCorpus
    ? readFileSync(sharedPath('corpus/urls.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as UrlsLine)
    : [];
  // In slices, each its own test: one test of ~300,000 checks took 178 s under load 38 on 2 cores
  // (8 s of CPU), close to any time limit; a slice takes an eighth of it.
  const slices = Array.from({ length: SLICES }, (_, i) => {
    const from = Math.floor((i * lines.length) / SLICES);
    const to = Math.floor(((i + 1) * lines.length) / SLICES);
    return { first: from + 1, last: to, lines: lines.slice(from, to) };
  });
  const totals = { slices: 0, compared: 0, skipped: 0 };

  it.each(slices)(
    'agrees with the reference matcher on every path x agent of urls.jsonl lines $first-$last',
    ({ lines: slice }) => {
      let compared = 0;
      let skipped = 0;
      let checks = 0;
      const disagreements: string[] = [];
      for (const { file, paths, agents } of slice) {
        const robots = parseRobotsTxt(new Uint8Array(readFileSync(sharedPath(`corpus/robots/${file}`))));
        const json = robots.toJSON();
        const revived = RobotsTxt.fromJSON(JSON.parse(JSON.stringify(json)));
        checks += agents.length * paths.length;
        for (const agent of agents) {
          const rules = referenceRules(json, agent);
          const useReference = rules.length <= REFERENCE_RULE_LIMIT;
          for (const path of paths) {
            const url = `https://example.com${path}`;
            const verdict = robots.check(url, agent);
            const shown = JSON.stringify(verdict);
            if (JSON.stringify(revived.check(url, agent)) !== shown) {
              disagreements.push(`${file} ${agent} ${path}: changed by the JSON round trip`);
            }
            if (!useReference) {
              skipped++;
              continue;
            }
            compared++;
            // The reference gets the path the URL contract defines: fragment removed.
            // ... and in the default RFC 9309 form: unreserved %XX decoded, other %xx upper-cased.
            const bare = path.split('#')[0] || '/';
            const expected = referenceVerdict(rules, canonicalPath(bare, 0, bare.length) ?? bare);
            if (shown !== JSON.stringify(expected)) {
              disagreements.push(`${file} ${agent} ${path}: ${shown} vs ${JSON.stringify(expected)}`);
            }
          }
        }
      }
      expect(disagreements.slice(0, 5)).toEqual([]);
      expect(compared + skipped).toBe(checks);
      totals.slices++;
      totals.compared += compared;
      totals.skipped += skipped;
    },
    120_000,
  );

  it('compares over 290,000 checks of all 2,476 lines, under 2% skipped (huge rule sets)', (context) => {
    expect(lines).toHaveLength(2_476);
    // The totals are the slices': run on its own (a -t filter), there is nothing to add up.
    if (totals.slices < SLICES) context.skip();
    expect(totals.compared).toBeGreaterThan(290_000);
    expect(totals.skipped).toBeLessThan(totals.compared / 50);
    console.info(
      `corpus differential: ${totals.compared} checks agree with the reference, ${totals.skipped} skipped (huge rule sets)`,
    );
  });
});
