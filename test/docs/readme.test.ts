/**
 * The README is for users first, and keeps two promises to the others: near its top, the set-up
 * contract CI and a clone rely on (`npm ci && npm test` passes, `npm run demo` runs), and a link to
 * every page of the manual, so a page added to docs/ is never one a reader cannot find from it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

describe('README.md', () => {
  it('says near its top that on a fresh clone `npm ci && npm test` passes and `npm run demo` runs', () => {
    const top = README.split('\n').slice(0, 15).join('\n');
    expect(top).toMatch(/fresh clone/);
    expect(top).toContain('`npm ci && npm test` passes');
    expect(top).toContain('`npm run demo` runs');
  });

  it('links every page of the manual', () => {
    const pages = readdirSync(resolve(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    const linked = new Set([...README.matchAll(/\]\(docs\/([^)#]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });
});
