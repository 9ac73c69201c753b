/**
 * docs/options.md is generated from the option tables and their doc comments (scripts/options-doc.ts):
 * an option added, removed or re-defaulted in a table, or a doc comment edited, without regenerating
 * the file fails here, and a doc comment stating a default its table does not have fails the generator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateOptionsDoc, OPTIONS_DOC, optionInterfaces, REPO_ROOT } from '../../scripts/options-doc.js';

/**
 * The doc comment of each property of an interface, read from the source text with no help from the
 * compiler (whose JSDoc reading is what the generator uses): whitespace folded, as the page has it.
 */
function writtenComments(source: string, name: string): { property: string; text: string }[] {
  const start = source.search(new RegExp(`^export interface ${name}\\b[^{]*\\{`, 'm'));
  if (start === -1) throw new Error(`no interface ${name}`);
  const body = source.slice(start, source.indexOf('\n}', start));
  return [...body.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(?:readonly\s+)?(\w+)\??:/g)].map((m) => ({
    property: m[2] ?? '',
    text: (m[1] ?? '')
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, ''))
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim(),
  }));
}

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

  it("holds every option's doc comment whole (none cut at an `@`, as `@keyv/redis` once was)", () => {
    const page = readFileSync(OPTIONS_DOC, 'utf8');
    const comments = optionInterfaces().flatMap(({ file, name }) =>
      writtenComments(readFileSync(join(REPO_ROOT, file), 'utf8'), name).map((c) => ({ ...c, name })),
    );
    expect(comments.length).toBeGreaterThan(80);
    const missing = comments.filter((c) => !page.includes(c.text)).map((c) => `${c.name}.${c.property}`);
    expect(missing, 'doc comments not on docs/options.md as written').toEqual([]);
  });
});
