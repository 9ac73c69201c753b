/**
 * docs/options.md is generated from the option tables and their doc comments (scripts/options-doc.ts):
 * an option added, removed or re-defaulted in a table, or a doc comment edited, without regenerating
 * the file fails here, and a doc comment stating a default its table does not have fails the generator.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateOptionsDoc, OPTIONS_DOC } from '../../scripts/options-doc.js';

describe('docs/options.md', () => {
  it('is what the option tables and their doc comments generate', () => {
    const generated = generateOptionsDoc();
    const written = readFileSync(OPTIONS_DOC, 'utf8');
    // Compared line by line first, so the failure names the first option that differs.
    const first = generated.split('\n').findIndex((line, i) => line !== written.split('\n')[i]);
    expect(
      written === generated,
      written === generated
        ? ''
        : `docs/options.md differs from the option tables (first at line ${first + 1}: ` +
            `${JSON.stringify(generated.split('\n')[first])}): run npm run docs:options`,
    ).toBe(true);
  }, 120_000);
});
