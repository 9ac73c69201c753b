/**
 * What npm users get: the four packages are packed with `npm pack`, the tarballs installed into a
 * scratch project in the OS temp folder (offline from the npm cache `npm ci` filled), and used the way a
 * consumer would: an ESM program, a CommonJS program (require of ESM packages, Node >= 20.19 / 22.12),
 * and `tsc --noEmit` under `moduleResolution: node16` and `bundler`. Also checks what the tarballs hold:
 * LICENSE, no src/, no source maps nor a `sourceMappingURL` pointing at one, no repo-only `source`
 * export condition, no relative links in the README.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** npm, install and tsc on a machine shared with other test runs: minutes, not seconds. */
const SETUP_TIMEOUT_MS = 300_000;
const STEP_TIMEOUT_MS = 120_000;

/**
 * @politely/crawlee depends on @politely/core only (got is not pulled into Crawlee projects). Set to
 * false only if a dependency on another politely package is ever needed again.
 */
const CRAWLEE_DEPENDS_ON_CORE_ONLY = true;

const PACKAGES = [
  { name: '@politely/core', dir: 'packages/core' },
  { name: '@politely/got', dir: 'packages/got-hook' },
  { name: '@politely/fetch', dir: 'packages/fetch' },
  { name: '@politely/crawlee', dir: 'packages/crawlee-plugin' },
] as const;

interface PackEntry {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

/** The version the repository itself installed, so the scratch install finds it in the npm cache. */
async function installedVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
  return manifest.version as string;
}

/** <temp>/politely-pack-*: tarballs/ and consumer/, removed at the end. */
let workDir: string | undefined;
/** The consumer project, where every command runs. */
let scratch: string;
const packed = new Map<string, PackEntry>();

async function inScratch(command: string, args: string[]) {
  return run(command, args, {
    cwd: scratch,
    timeout: STEP_TIMEOUT_MS,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'politely-pack-'));
  // dist/ must match the sources being tested (tsc -b is incremental: quick when up to date).
  await run('npm', ['run', 'build'], { cwd: ROOT, timeout: STEP_TIMEOUT_MS });
  const tarballs = join(workDir, 'tarballs');
  await mkdir(tarballs);
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--pack-destination', tarballs, ...PACKAGES.flatMap((p) => ['-w', p.dir])],
    { cwd: ROOT, timeout: STEP_TIMEOUT_MS },
  );
  const entries = JSON.parse(stdout) as (PackEntry & { name: string })[];
  for (const entry of entries) packed.set(entry.name, entry);

  const project = join(workDir, 'consumer');
  await mkdir(project);
  scratch = project;
  const dependencies: Record<string, string> = {};
  for (const { name } of PACKAGES)
    dependencies[name] = `file:${join(tarballs, packed.get(name)?.filename ?? '')}`;
  // Peers the consumer brings itself, pinned to what the repo installed (already in the npm cache).
  for (const peer of ['got', '@crawlee/core', 'typescript', '@types/node']) {
    dependencies[peer] = await installedVersion(peer);
  }
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'politely-consumer', private: true, type: 'module', dependencies }, null, 2),
  );
  await writeFile(join(project, 'esm.mjs'), ESM_CONSUMER);
  await writeFile(join(project, 'cjs.cjs'), CJS_CONSUMER);
  await writeFile(join(project, 'consumer.ts'), TS_CONSUMER);
  for (const [name, options] of Object.entries(TSCONFIGS)) {
    await writeFile(
      join(project, `tsconfig.${name}.json`),
      JSON.stringify({ compilerOptions: options, files: ['consumer.ts'] }, null, 2),
    );
  }
  await inScratch('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Exercises all four packages and prints what a test can compare. */
const ESM_CONSUMER = `
import { createPoliteness, politenessOf as corePolitenessOf } from '@politely/core';
import { politeGot, politenessOf } from '@politely/got';
import { politeFetch, politenessOf as fetchPolitenessOf } from '@politely/fetch';
import { withPoliteness } from '@politely/crawlee';
import { parseRobotsTxt, readRobotsTxtLines } from '@politely/core/engine';
import { robotsLocation } from '@politely/core/fetch';
import { createMemoryScheduler } from '@politely/core/scheduler';
import { createMemoryStore } from '@politely/core/cache';
import { createPageGuard } from '@politely/core/browser';
import { adapterKit } from '@politely/core/adapter';
const robots = parseRobotsTxt('User-agent: *\\nDisallow: /private\\n');
const scheduler = createMemoryScheduler();
await scheduler.close();
const options = withPoliteness({ requestHandler() {} }, { userAgent: 'PackBot/1.0', logger: false });
const politeness = politenessOf(politeGot({ userAgent: 'PackBot/1.0', logger: false }));
console.log(JSON.stringify({
  private: robots.isAllowed('https://a.test/private/x', 'PackBot'),
  public: robots.isAllowed('https://a.test/public', 'PackBot'),
  token: createPoliteness({ userAgent: 'PackBot/1.0' }).productToken,
  gotToken: politeness.productToken,
  fetch: typeof politeFetch({ userAgent: 'PackBot/1.0', logger: false }),
  crawleeQueue: typeof (options.requestManager ?? options.requestQueue),
  crawleeClient: options.httpClient?.constructor?.name,
  onePolitenessOf: politenessOf === corePolitenessOf && fetchPolitenessOf === corePolitenessOf,
  crawleeToken: fetchPolitenessOf(options).productToken,
  subpaths: [
    readRobotsTxtLines('User-agent: *\\n').length,
    robotsLocation('https://a.test/x').robotsUrl,
    scheduler.kind,
    typeof createMemoryStore().get,
    typeof createPageGuard(createPoliteness({ userAgent: 'PackBot/1.0', logger: false })).install,
    adapterKit(politeness).sendUserAgent,
  ],
}));
`;

const CJS_CONSUMER = `
const { parseRobotsTxt } = require('@politely/core/engine');
const { politeGot } = require('@politely/got');
const { politeFetch } = require('@politely/fetch');
const { withPoliteness } = require('@politely/crawlee');
const robots = parseRobotsTxt('User-agent: *\\nDisallow: /private\\n');
console.log(JSON.stringify({
  private: robots.isAllowed('https://a.test/private/x', 'PackBot'),
  got: typeof politeGot,
  fetch: typeof politeFetch,
  crawlee: typeof withPoliteness,
}));
`;

const TS_CONSUMER = `
import { createPoliteness, type Decision, type PolitenessOptions } from '@politely/core';
import { type RobotsTxtLine, readRobotsTxtLines } from '@politely/core/engine';
import { type Scheduler, createMemoryScheduler } from '@politely/core/scheduler';
import { type PageGuard, createPageGuard } from '@politely/core/browser';
import { type AdapterKit, adapterKit } from '@politely/core/adapter';
import { politeGot } from '@politely/got';
import { politeFetch } from '@politely/fetch';
import { withPoliteness } from '@politely/crawlee';
const pacing: PolitenessOptions['pacing'] = { minDelayMs: 500 };
const options: PolitenessOptions = { userAgent: 'PackBot/1.0', pacing };
const politeness = createPoliteness(options);
export async function verdict(url: string): Promise<boolean> {
  const decision: Decision = await politeness.check(url);
  return decision.allowed;
}
export const hooks = politeGot(politeness).hooks;
export const fetchPolitely: (input: string) => Promise<Response> = politeFetch(politeness);
export const crawlerOptions = withPoliteness({ maxRequestsPerCrawl: 10 }, politeness);
export const lines: RobotsTxtLine[] = readRobotsTxtLines('User-agent: *');
export const scheduler: Scheduler = createMemoryScheduler();
export const pages: PageGuard = createPageGuard(politeness, { subresources: 'allow' });
export const kit: AdapterKit = adapterKit(politeness);
export function reason(
  decision: Decision,
): 'disallowed' | 'unreachable' | 'crawl-delay-too-long' | 'usage-refused' | 'rate-limited' | 'tdm-reserved' | undefined {
  return decision.allowed ? undefined : decision.reason;
}
// @ts-expect-error: a misspelt option must not type-check
export const typo: PolitenessOptions = { userAgent: 'PackBot/1.0', minDelay: 500 };
// @ts-expect-error: an option that moved into a group (pacing.minDelayMs) must not type-check at the top
export const flat: PolitenessOptions = { userAgent: 'PackBot/1.0', minDelayMs: 500 };
// @ts-expect-error: clock is internal, no part of the published type
export const clocked: PolitenessOptions = { userAgent: 'PackBot/1.0', clock: { now: Date.now, sleep: async () => {} } };
`;

const STRICT = { strict: true, noEmit: true, skipLibCheck: true, types: ['node'], target: 'ES2022' };
const TSCONFIGS = {
  node16: { ...STRICT, module: 'node16', moduleResolution: 'node16' },
  // `source` among the consumer's conditions must not reach our .ts sources (it is not published).
  bundler: { ...STRICT, module: 'esnext', moduleResolution: 'bundler', customConditions: ['source'] },
};

describe('published packages', () => {
  it.each(PACKAGES)('$name tarball: dist and LICENSE, no src/, no source maps', ({ name }) => {
    const files = packed.get(name)?.files.map((f) => f.path) ?? [];
    expect(files).toContain('LICENSE');
    expect(files).toContain('README.md');
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(
      files.filter(
        (f) => f.startsWith('src/') || f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
  });

  // Maps ship with the sources they point to or not at all: a `sourceMappingURL` to a file that is not
  // in the tarball makes bundlers (source-map-loader) and debuggers warn or 404.
  it.each(PACKAGES)('$name: no shipped file points at a source map', async ({ name }) => {
    const files = packed.get(name)?.files.map((f) => f.path) ?? [];
    const pointing: string[] = [];
    for (const file of files.filter((f) => /\.(c|m)?js$|\.d\.ts$/.test(f))) {
      const text = await readFile(join(scratch, 'node_modules', name, file), 'utf8');
      if (/^\/\/# sourceMappingURL=/m.test(text)) pointing.push(file);
    }
    expect(pointing).toEqual([]);
  });

  it.each(PACKAGES)(
    '$name manifest: no source condition, metadata, absolute README links',
    async ({ name }) => {
      const installed = join(scratch, 'node_modules', name);
      const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
      expect(JSON.stringify(manifest.exports)).not.toContain('source');
      expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
      for (const [subpath, target] of Object.entries(manifest.exports)) {
        if (subpath === '.' || subpath === './package.json') continue;
        const file = (target as { default: string }).default.slice(2);
        expect(packed.get(name)?.files.map((f) => f.path)).toContain(file);
        expect(packed.get(name)?.files.map((f) => f.path)).toContain(file.replace(/\.js$/, '.d.ts'));
      }
      expect(manifest).toMatchObject({
        license: 'MIT',
        sideEffects: false,
        engines: { node: '^20.19.0 || >=22.12.0' },
        repository: { url: 'git+https://github.com/politely-js/politely.git' },
        bugs: { url: 'https://github.com/politely-js/politely/issues' },
      });
      expect(manifest.homepage).toMatch(/^https:\/\/github\.com\/politely-js\/politely\//);
      expect(manifest.keywords).toContain('robots.txt');
      expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toContain(
        'Copyright (c) 2026 the politely authors',
      );
      const readme = await readFile(join(installed, 'README.md'), 'utf8');
      const relative = [...readme.matchAll(/\]\(([^)]+)\)/g)]
        .map((m) => m[1] ?? '')
        .filter((target) => !/^(https?:|mailto:|#)/.test(target));
      expect(relative).toEqual([]);
      // Every peer package.json asks for is named in the README (the Crawlee one named only @crawlee/core).
      for (const peer of Object.keys(manifest.peerDependencies ?? {}))
        expect(readme).toContain(`\`${peer}\``);
      // Read on npm, away from the repository: its commands and paths appear only as links to it.
      const unlinked = readme.replace(/\[[^\]]*\]\(https?:[^)]*\)/g, '');
      expect(unlinked.match(/\b(npm run|npm test|npx tsx|tsx) [\w/.:-]+/g) ?? []).toEqual([]);
      expect(unlinked.match(/(?<![\w/.@-])(test|bench|scripts|examples|packages)\/[\w./-]*/g) ?? []).toEqual(
        [],
      );
    },
  );

  it('@politely/crawlee dependencies', async () => {
    const manifest = JSON.parse(
      await readFile(join(scratch, 'node_modules/@politely/crawlee/package.json'), 'utf8'),
    );
    const dependencies = Object.keys(manifest.dependencies ?? {}).sort();
    if (CRAWLEE_DEPENDS_ON_CORE_ONLY) expect(dependencies).toEqual(['@politely/core']);
    else expect(dependencies).toContain('@politely/core');
  });

  it('an ESM consumer imports all four and gets verdicts', async () => {
    const { stdout } = await inScratch(process.execPath, ['esm.mjs']);
    expect(JSON.parse(stdout)).toEqual({
      private: false,
      public: true,
      token: 'PackBot',
      gotToken: 'PackBot',
      fetch: 'function',
      crawleeQueue: 'object',
      crawleeClient: 'PoliteHttpClient',
      onePolitenessOf: true,
      crawleeToken: 'PackBot',
      subpaths: [2, 'https://a.test/robots.txt', 'memory', 'function', 'function', true],
    });
    // The consumer's own `source` condition finds nothing of ours to load.
    const withSource = await inScratch(process.execPath, ['--conditions=source', 'esm.mjs']);
    expect(JSON.parse(withSource.stdout).private).toBe(false);
  });

  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const requireEsm = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22;
  // require() of ES modules is unflagged only from Node 20.19 and 22.12 (the packages' engines range).
  it.runIf(requireEsm)('a CommonJS consumer require()s all four', async () => {
    const { stdout } = await inScratch(process.execPath, ['--no-warnings', 'cjs.cjs']);
    expect(JSON.parse(stdout)).toEqual({
      private: false,
      got: 'function',
      fetch: 'function',
      crawlee: 'function',
    });
  });

  // A whole tsc run: on a busy 2-core machine it outlasts the default 30 s, so it gets a step's limit.
  it.each(Object.keys(TSCONFIGS))(
    'tsc --noEmit passes under moduleResolution %s',
    async (name) => {
      const tsc = join(scratch, 'node_modules/typescript/bin/tsc');
      const result = await inScratch(process.execPath, [tsc, '-p', `tsconfig.${name}.json`]).catch(
        (error: { stdout?: string }) => ({ stdout: `FAILED\n${error.stdout ?? String(error)}` }),
      );
      expect(result.stdout).toBe('');
    },
    STEP_TIMEOUT_MS,
  );
});
