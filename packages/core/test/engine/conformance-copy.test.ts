/**
 * The in-repo conformance JSON must stay a faithful copy of the shared research data it came from.
 * Checked whenever ../shared is beside the repository (always in CI); a fresh clone has only the copy.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { conformanceDir, sharedPath } from './shared-data.js';

const FILES = ['google-robotstxt-cases.json', 'google-robotstxt-other.json'] as const;
const hasShared = existsSync(sharedPath('conformance'));

// Missing in CI is a failure; elsewhere (a fresh clone) the check is skipped, loudly, as the corpus is.
if (!hasShared) {
  const message = `../shared/conformance is missing at ${sharedPath('conformance')}`;
  if (process.env.CI) throw new Error(`${message} (CI provides it)`);
  console.warn(
    `\n!!! ${message}: SKIPPING the check that the in-repo conformance copy (${conformanceDir}) equals it. To run it, put the shared data folder (with conformance/) beside the repository as ../shared, then rerun \`npx vitest run packages/core/test/engine/conformance-copy.test.ts\`. !!!\n`,
  );
}

describe.skipIf(!hasShared)('in-repo conformance data', () => {
  it.each(FILES)('%s is byte-identical to ../shared/conformance', (file) => {
    const copy = readFileSync(`${conformanceDir}${file}`);
    const original = readFileSync(sharedPath(`conformance/${file}`));
    expect(copy.equals(original)).toBe(true);
  });
});
