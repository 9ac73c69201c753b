import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, markdownFiles } from './markdown-links.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('Markdown links', () => {
  it('every relative link and #anchor in the READMEs, CHANGELOG and docs/ resolves', () => {
    const files = markdownFiles(ROOT);
    expect(files).toContain('README.md');
    expect(files).toContain('docs/options.md');
    expect(brokenLinks(ROOT, files)).toEqual([]);
  });

  it('reports a link to a missing file, a missing heading, and passes good ones', () => {
    const root = mkdtempSync(join(tmpdir(), 'politely-links-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(
        join(root, 'docs/a.md'),
        '# A page\n\n## Same\n\n## Same\n\n## `code` and [link](a.md)!\n',
      );
      writeFileSync(
        join(root, 'README.md'),
        [
          '[ok](docs/a.md) [ok](docs/a.md#same-1) [ok](docs/a.md#code-and-link) [ok](#top) [web](https://x.test/#y)',
          '<a id="top"></a>',
          '[gone](docs/b.md) [bad anchor](docs/a.md#same-2)',
          '[repo](https://github.com/politely-js/politely/blob/main/docs/a.md#same) [repo gone](https://github.com/politely-js/politely/tree/main/docs/c)',
          '```',
          '[in code](nowhere.md)',
          '```',
        ].join('\n'),
      );
      expect(brokenLinks(root, ['README.md', 'docs/a.md'])).toEqual([
        { file: 'README.md', line: 3, link: 'docs/b.md', why: 'no such file: docs/b.md' },
        { file: 'README.md', line: 3, link: 'docs/a.md#same-2', why: 'no heading #same-2 in docs/a.md' },
        {
          file: 'README.md',
          line: 4,
          link: 'https://github.com/politely-js/politely/tree/main/docs/c',
          why: 'no such file: docs/c',
        },
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('makes anchors as GitHub does', () => {
    expect([
      ...anchorsOf('# Options reference\n### withPoliteness: spacing\n## `a.b` (c)\n## a.b c\n'),
    ]).toEqual(['options-reference', 'withpoliteness-spacing', 'ab-c', 'ab-c-1']);
  });
});
