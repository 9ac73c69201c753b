/**
 * The version matrix runs only the test files whose imports reach a peer package, or Node's network
 * stack (scripts/matrix/select.ts). A file the selection misses is a peer regression the matrix cannot
 * see, so these cases show it follows every way a test reaches a package: helpers, workspace sources,
 * spawned workers, dynamic imports, mocks. And that it does not count what a run never loads.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { specifiers, testFileDeps } from '../../scripts/matrix/select.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

describe('specifiers', () => {
  it('reads every run-time import form and leaves type-only imports out', () => {
    const text = [
      "import got from 'got';",
      'import {',
      '  a,',
      '  b,',
      "} from './multi.js';",
      "import type { Keyv } from 'keyv';",
      "import { type Redis, createClient } from 'redis';",
      "export { x } from './re-export.js';",
      "export type { Y } from './types-only.js';",
      "export * from './star.js';",
      "import './side-effect.js';",
      "const late = await import('ioredis');",
      "vi.mock('@crawlee/core');",
      "const WORKER = new URL('./worker.ts', import.meta.url);",
      "const DATA = new URL('./fixture.json', import.meta.url);",
    ].join('\n');
    expect(specifiers(text).sort()).toEqual(
      [
        'got',
        './multi.js',
        'redis',
        './re-export.js',
        './star.js',
        './side-effect.js',
        'ioredis',
        '@crawlee/core',
        './worker.ts',
      ].sort(),
    );
  });
});

describe('testFileDeps on a scratch repository', () => {
  const root = mkdtempSync(join(tmpdir(), 'matrix-select-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  write('package.json', JSON.stringify({ workspaces: ['packages/core'] }));
  write(
    'packages/core/package.json',
    JSON.stringify({
      name: '@politely/core',
      exports: { '.': { default: './dist/index.js' }, './cache': { default: './dist/public/cache.js' } },
    }),
  );
  for (const name of ['got', 'redis', 'keyv', 'vitest', 'left-pad']) {
    write(`node_modules/${name}/package.json`, JSON.stringify({ name }));
  }
  // The sources: the index uses Node's HTTP client (a source's own use is not the test's), the cache
  // subpath loads keyv.
  write('packages/core/src/index.ts', "import { request } from 'node:http';\nexport const r = request;\n");
  write('packages/core/src/public/cache.ts', "import { Keyv } from 'keyv';\nexport const K = Keyv;\n");
  write(
    'test/helpers/hosts.ts',
    "import { createServer } from 'node:http';\nexport const s = createServer;\n",
  );
  write('test/helpers/client.ts', "import got from 'got';\nexport default got;\n");
  write('test/worker.ts', "import { createClient } from 'redis';\ncreateClient();\n");
  const files = {
    'test/engine.test.ts': "import { it } from 'vitest';\nimport { r } from '@politely/core';\n",
    'test/helper.test.ts': "import client from './helpers/client.js';\n",
    'test/worker.test.ts': "const WORKER = new URL('./worker.ts', import.meta.url);\n",
    'test/cache.test.ts': "import { K } from '@politely/core/cache';\n",
    'test/server.test.ts': "import { s } from './helpers/hosts.js';\n",
    'test/unknown.test.ts': "import pad from 'left-pad';\n",
    'test/layering.test.ts': "const rule = `\nimport { a } from 'x'`;\nimport { it } from 'vitest';\n",
  };
  for (const [file, text] of Object.entries(files)) write(file, text);
  const deps = new Map(testFileDeps(root, Object.keys(files)).map((dep) => [dep.file, dep]));

  it('follows helpers, workspace subpaths and spawned workers to the peers', () => {
    expect(deps.get('test/helper.test.ts')?.peers).toEqual(['got']);
    expect(deps.get('test/worker.test.ts')?.peers).toEqual(['redis']);
    expect(deps.get('test/cache.test.ts')?.peers).toEqual(['keyv']);
  });

  it('counts a package it does not know as a peer, and neither test tools nor names no run loads', () => {
    expect(deps.get('test/unknown.test.ts')?.peers).toEqual(['left-pad']);
    expect(deps.get('test/layering.test.ts')?.peers).toEqual([]);
    expect(deps.get('test/engine.test.ts')?.peers).toEqual([]);
  });

  it("sees Node's network stack where the test side uses it, not inside the sources", () => {
    expect(deps.get('test/server.test.ts')?.nodeIo).toBe('test/helpers/hosts.ts uses node:http');
    expect(deps.get('test/engine.test.ts')?.nodeIo).toBeUndefined();
  });
});

describe('testFileDeps on this repository', () => {
  it('selects the adapters, store and scheduler suites with the peers they load, and not the engine', () => {
    const files = [
      'packages/got-hook/test/pacing.test.ts',
      'packages/crawlee-plugin/test/crawlee-releases.test.ts',
      'test/fleet/fleet.test.ts',
      'test/cache-store/stores.test.ts',
      'packages/core/test/schedule/redis-scheduler.test.ts',
      'packages/fetch/test/pacing.test.ts',
      'packages/core/test/engine/rfc9309.test.ts',
    ];
    const deps = new Map(testFileDeps(REPO, files).map((dep) => [dep.file, dep]));
    expect(deps.get('packages/got-hook/test/pacing.test.ts')?.peers).toContain('got');
    expect(deps.get('packages/crawlee-plugin/test/crawlee-releases.test.ts')?.peers).toEqual(
      expect.arrayContaining(['@crawlee/core', '@crawlee/http']),
    );
    // The fleet's processes load node-redis in the worker script, not in the test file.
    expect(deps.get('test/fleet/fleet.test.ts')?.peers).toContain('redis');
    expect(deps.get('test/cache-store/stores.test.ts')?.peers).toEqual(
      expect.arrayContaining(['keyv', '@keyv/redis']),
    );
    expect(deps.get('packages/core/test/schedule/redis-scheduler.test.ts')?.peers).toEqual(
      expect.arrayContaining(['redis', 'ioredis']),
    );
    // Node's own fetch, no peer: run on the cells' other Node versions.
    expect(deps.get('packages/fetch/test/pacing.test.ts')?.peers).toEqual([]);
    expect(deps.get('packages/fetch/test/pacing.test.ts')?.nodeIo).toBeDefined();
    expect(deps.get('packages/core/test/engine/rfc9309.test.ts')).toMatchObject({
      peers: [],
      nodeIo: undefined,
    });
  });
});
