/**
 * Every ```ts block of the READMEs and docs/ compiles as pasted: each block is one file of a scratch
 * project that resolves the packages as a user's project does (the workspace packages' package.json
 * `exports`, so their built dist/ types, and the peers the repository installed), type-checked in one
 * run per compiler: the repository's TypeScript (5.9) and TypeScript 7 (test/helpers/typescript-7.ts).
 * A block that is a piece of a larger program is marked ```ts fragment and left out; fragments are
 * allowed on reference pages only, never where a user starts (the README, getting started, the
 * adapter pages).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typescript7 } from '../helpers/typescript-7.js';
import { blockErrors, type CodeBlock, codeBlocks } from './code-blocks.js';
import { markdownFiles } from './markdown-links.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
/** A build, an install or a tsc run on a machine shared with other test runs: minutes, not seconds. */
const STEP_TIMEOUT_MS = 240_000;

/** Pages where a block may be a fragment: the reference, read beside the code, never a first step. */
const REFERENCE_PAGES = [
  'docs/api.md',
  'docs/options.md',
  'docs/adapter-kit.md',
  'docs/engine.md',
  'docs/cli.md',
  'docs/architecture.md',
];

/**
 * What `tsc --init` writes today (TypeScript 5.9 and 7 alike), in a package of type module, with
 * Node's types (a user of node:fs installs @types/node) and no output.
 */
const COMPILER_OPTIONS = {
  module: 'nodenext',
  target: 'esnext',
  types: ['node'],
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  strict: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noUncheckedSideEffectImports: true,
  moduleDetection: 'force',
  skipLibCheck: true,
  noEmit: true,
};

/** A block that must not compile: proof that the compiler read the blocks and reports their errors. */
const SENTINEL: CodeBlock = {
  file: 'test/docs/code-blocks.test.ts',
  line: 0,
  fragment: false,
  code: "const count: number = 'one';",
};

const blocks = markdownFiles(ROOT).flatMap((file) =>
  codeBlocks(readFileSync(join(ROOT, file), 'utf8'), file),
);
const compiled = [...blocks.filter((block) => !block.fragment), SENTINEL];
const fileOf = new Map(compiled.map((block, i) => [`block${i}.ts`, block]));

let project: string | undefined;
const ts7 = await typescript7('docs code blocks');

beforeAll(async () => {
  // The blocks import the packages' dist/: it must match the sources (tsc -b is quick when up to date).
  await run('npm', ['run', 'build'], { cwd: ROOT, timeout: STEP_TIMEOUT_MS });
  project = await mkdtemp(join(tmpdir(), 'politely-doc-blocks-'));
  // The repository's node_modules, as a user's project has its own: @politely/* are the workspace
  // packages there, resolved through their package.json like installed ones.
  await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ['*.ts'] }),
  );
  for (const [name, block] of fileOf) await writeFile(join(project, name), `${block.code}\n`);
}, STEP_TIMEOUT_MS);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

/** tsc's errors for the whole project, by page line, and apart from them the sentinel's. */
async function typeCheck(tsc: string) {
  const result = await run(process.execPath, [tsc, '-p', project ?? '', '--pretty', 'false'], {
    cwd: project,
    timeout: STEP_TIMEOUT_MS,
    env: { ...process.env, NODE_OPTIONS: '' },
  }).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: `${error.stdout ?? ''}${error.stderr ?? String(error)}`,
  }));
  const errors = blockErrors(result.stdout, (name) => fileOf.get(name));
  const sentinel = errors.filter((error) => error.at === `${SENTINEL.file}:1`);
  return {
    errors: errors.filter((error) => !sentinel.includes(error)).map((e) => `${e.at} ${e.code} ${e.message}`),
    sentinel: sentinel.map((error) => error.code),
  };
}

describe('the TypeScript blocks of the READMEs and docs/', () => {
  it('are found, and fragments are marked only on reference pages', () => {
    expect(blocks.filter((block) => block.file === 'README.md').length).toBeGreaterThanOrEqual(3);
    const misplaced = blocks
      .filter((block) => block.fragment && !REFERENCE_PAGES.includes(block.file))
      .map((block) => `${block.file}:${block.line}`);
    expect(misplaced, 'a fragment where a user starts: make it a program that compiles').toEqual([]);
  });

  it(
    'compile as pasted under the repository TypeScript (5.9)',
    async () => {
      const { errors, sentinel } = await typeCheck(join(ROOT, 'node_modules/typescript/bin/tsc'));
      expect(errors).toEqual([]);
      expect(sentinel).toEqual(['TS2322']);
    },
    STEP_TIMEOUT_MS,
  );

  it.skipIf(ts7 === undefined)(
    'compile as pasted under TypeScript 7',
    async () => {
      const { errors, sentinel } = await typeCheck(ts7 ?? '');
      expect(errors).toEqual([]);
      expect(sentinel).toEqual(['TS2322']);
    },
    STEP_TIMEOUT_MS,
  );
});
