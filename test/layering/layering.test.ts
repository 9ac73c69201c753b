/**
 * The layering holds in the code, not by discipline: every import of the published sources is checked
 * against the table in layers.ts. The checker's own cases below show it catches each kind of break.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkImport,
  checkRepository,
  coreEntryPoints,
  importCircles,
  importsOf,
  REPO_ROOT,
} from './layers.js';

const entryPoints = coreEntryPoints(REPO_ROOT);
const value = (specifier: string) => ({ specifier, typeOnly: false });
const type = (specifier: string) => ({ specifier, typeOnly: true });

describe('layering', () => {
  it('no import in the published sources breaks it', () => {
    expect(checkRepository(REPO_ROOT)).toEqual([]);
  });

  it('no two core files need each other, directly or round a circle', () => {
    expect(importCircles(REPO_ROOT)).toEqual([]);
  });

  it('finds a circle where there is one, type imports too', () => {
    const root = mkdtempSync(join(tmpdir(), 'circles-'));
    try {
      mkdirSync(join(root, 'packages/core/src/facade'), { recursive: true });
      const write = (file: string, text: string) =>
        writeFileSync(join(root, 'packages/core/src', file), text);
      write('facade/a.ts', "import type { B } from './b.js';\nexport type A = B;\n");
      write('facade/b.ts', "import { c } from '../c.js';\nexport type B = string;\nexport const b = c;\n");
      write('c.ts', "import type { A } from './facade/a.js';\nexport const c: A = '';\n");
      write('d.ts', "import { c } from './c.js';\nexport const d = c;\n");
      expect(importCircles(root)).toEqual([
        'packages/core/src/c.ts -> packages/core/src/facade/a.ts -> packages/core/src/facade/b.ts -> packages/core/src/c.ts',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  describe('the checker', () => {
    it('reads every form of import, and whether it is erased at runtime', () => {
      const text = [
        "import { a } from './a.js';",
        "import type { B } from './b.js';",
        "import { type C, type D } from './c.js';",
        "import { type E, f } from './e.js';",
        "export { g } from './g.js';",
        "export type { H } from './h.js';",
        "let i: import('./i.js').I;",
        "const j = await import('./j.js');",
        "import './k.js';",
      ].join('\n');
      expect(importsOf('x.ts', text)).toEqual([
        value('./a.js'),
        type('./b.js'),
        type('./c.js'),
        value('./e.js'),
        value('./g.js'),
        type('./h.js'),
        type('./i.js'),
        value('./j.js'),
        value('./k.js'),
      ]);
    });

    it('fails a lower layer that reaches up to the facade', () => {
      expect(checkImport('packages/core/src/cache/x.ts', type('../facade/types.js'), entryPoints)).toBe(
        'cache may not import facade',
      );
      expect(checkImport('packages/core/src/schedule/x.ts', type('../facade/options.js'), entryPoints)).toBe(
        'schedule may not import facade',
      );
      expect(checkImport('packages/core/src/fetch/x.ts', value('../cli/main.js'), entryPoints)).toBe(
        'fetch may not import cli',
      );
      expect(checkImport('packages/core/src/kernel/x.ts', value('../schedule/clock.js'), entryPoints)).toBe(
        'kernel may not import schedule',
      );
    });

    it('lets the kernel name engine types but never run engine code', () => {
      expect(checkImport('packages/core/src/kernel/x.ts', type('../engine/types.js'), entryPoints)).toBe(
        undefined,
      );
      expect(checkImport('packages/core/src/kernel/x.ts', value('../engine/index.js'), entryPoints)).toBe(
        'kernel may not import engine (types only)',
      );
    });

    it('keeps the engine pure', () => {
      expect(checkImport('packages/core/src/engine/x.ts', value('node:fs'), entryPoints)).toBe(
        'the engine is pure: no Node I/O modules',
      );
      expect(checkImport('packages/core/src/engine/x.ts', value('../fetch/fetcher.js'), entryPoints)).toBe(
        'engine may not import fetch',
      );
      expect(checkImport('packages/core/src/engine/x.ts', value('../kernel/errors.js'), entryPoints)).toBe(
        undefined,
      );
    });

    it("lets browser interception name the facade's types, never run the facade or be imported below", () => {
      expect(checkImport('packages/core/src/browser/x.ts', type('../facade/types.js'), entryPoints)).toBe(
        undefined,
      );
      expect(
        checkImport('packages/core/src/browser/x.ts', value('../facade/politeness.js'), entryPoints),
      ).toBe('browser may not import facade (types only)');
      expect(
        checkImport('packages/core/src/browser/x.ts', value('../schedule/in-flight.js'), entryPoints),
      ).toBe('browser may not import schedule');
      expect(
        checkImport('packages/core/src/facade/politeness.ts', value('../browser/page-guard.js'), entryPoints),
      ).toBe('facade may not import browser');
      expect(
        checkImport('packages/core/src/public/browser.ts', value('../browser/page-guard.js'), entryPoints),
      ).toBe(undefined);
      expect(
        checkImport('packages/crawlee-plugin/src/x.ts', value('@politely/core/browser'), entryPoints),
      ).toBe(undefined);
    });

    it('places every core folder in a layer', () => {
      expect(checkImport('packages/core/src/extra/x.ts', value('../kernel/abort.js'), entryPoints)).toBe(
        'packages/core/src/extra/x.ts is in no layer: add its folder to CORE_LAYERS',
      );
    });

    it('keeps adapters on the core entry points and apart from each other', () => {
      expect(checkImport('packages/got-hook/src/x.ts', value('@politely/core'), entryPoints)).toBe(undefined);
      expect(
        checkImport('packages/got-hook/src/x.ts', value('../../core/src/kernel/errors.js'), entryPoints),
      ).toBe('@politely/got imports only its own files by path');
      expect(
        checkImport('packages/fetch/src/x.ts', value('@politely/core/src/options.js'), entryPoints),
      ).toMatch(/^@politely\/fetch imports the core only through its entry points/);
      expect(checkImport('packages/crawlee-plugin/src/x.ts', value('@politely/got'), entryPoints)).toBe(
        'adapters never import each other (@politely/crawlee)',
      );
    });
  });
});
