/**
 * The version matrix: `npm run matrix` runs every cell, `npm run matrix -- node22-latest` one of them,
 * `--list` shows them, `--fresh` reinstalls everything (CI does). For each cell: copy the repository into
 * the cell's folder, install the cell's versions (all cells at once), then one cell after another:
 * assert the versions its imports resolve to, type-check the packages' sources against them, run the
 * suites with the cell's Node. Prints a table and exits 1 when a cell failed or could not install.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  copySources,
  installIsCurrent,
  MatrixSetupError,
  markInstalled,
  matrixRoot,
  writeCellManifest,
} from './cell-folder.js';
import { CELLS, type Cell, peerDependencies, SUITES } from './cells.js';
import { binDir, type NodeBinary, nodeBinary } from './node-binary.js';
import { capture, run, tail } from './processes.js';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));

interface Outcome {
  readonly cell: Cell;
  versions?: Record<string, string>;
  types?: 'ok' | 'FAIL';
  passed?: number;
  failed?: number;
  skipped?: number;
  seconds?: number;
  /** `file > test` for every failed test. */
  failedTests?: string[];
  /** Set when the cell failed; the first reason. */
  problem?: string;
}

function usage(): string {
  return [
    'usage: npm run matrix -- [--fresh] [--list] [cell ...]',
    `  cells: ${CELLS.map((cell) => cell.name).join(', ')}`,
    '  --fresh  reinstall Node and packages from the registry instead of reusing earlier installs',
    '  POLITELY_MATRIX_DIR  where cells live (default $TMPDIR/politely-matrix, TMPDIR defaulting to /tmp)',
  ].join('\n');
}

function parseArgs(argv: readonly string[]): { cells: Cell[]; fresh: boolean; list: boolean } {
  const names = argv.filter((arg) => !arg.startsWith('--'));
  const flags = argv.filter((arg) => arg.startsWith('--'));
  const unknownFlag = flags.find((flag) => !['--fresh', '--list', '--help'].includes(flag));
  const unknownCell = names.find((name) => !CELLS.some((cell) => cell.name === name));
  if (flags.includes('--help') || unknownFlag !== undefined || unknownCell !== undefined) {
    if (unknownFlag !== undefined) console.error(`matrix: unknown option ${unknownFlag}`);
    if (unknownCell !== undefined) console.error(`matrix: unknown cell ${unknownCell}`);
    console.error(usage());
    process.exit(flags.includes('--help') && unknownFlag === undefined && unknownCell === undefined ? 0 : 2);
  }
  const cells = names.length === 0 ? [...CELLS] : CELLS.filter((cell) => names.includes(cell.name));
  return { cells, fresh: flags.includes('--fresh'), list: flags.includes('--list') };
}

/** Copies and installs one cell; throws MatrixSetupError when the registry or npm says no. */
async function prepare(root: string, cell: Cell, fresh: boolean): Promise<void> {
  const cellDir = join(root, cell.name);
  if (fresh) rmSync(cellDir, { recursive: true, force: true });
  const files = await copySources(repo, cellDir);
  const stamp = writeCellManifest(repo, cell, cellDir);
  if (installIsCurrent(cellDir, stamp)) {
    console.log(`matrix: ${cell.name}: ${files} files copied, install reused`);
    return;
  }
  // A changed manifest is installed afresh: an old lock or tree would keep versions the new ranges
  // still accept (keyv 5.4 for `5`).
  rmSync(cellDir, { recursive: true, force: true });
  await copySources(repo, cellDir);
  writeCellManifest(repo, cell, cellDir);
  const started = Date.now();
  const logFile = join(root, `${cell.name}.install.log`);
  const code = await run('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd: cellDir,
    logFile,
  });
  if (code !== 0) throw new MatrixSetupError(`npm install failed (exit ${code}):\n${tail(logFile)}`);
  markInstalled(cellDir, stamp);
  console.log(`matrix: ${cell.name}: ${files} files copied, installed in ${secondsSince(started)} s`);
}

/** Asserts the versions, type-checks, runs the suites. Fills in `outcome`. */
async function runCell(root: string, node: NodeBinary, outcome: Outcome): Promise<void> {
  const { cell } = outcome;
  const cellDir = join(root, cell.name);
  const path = [binDir(node)];
  const banner = `matrix: ${cell.name} on Node ${node.major} (${node.source})`;
  console.log(`\n${'='.repeat(banner.length)}\n${banner}\n${'='.repeat(banner.length)}`);

  const expected = JSON.stringify({ node: cell.node, packages: peerDependencies(cell.versions) });
  const check = await capture(node.path, ['--import', 'tsx', 'scripts/matrix/check-versions.ts', expected], {
    cwd: cellDir,
    path,
  });
  if (check.code !== 0) {
    outcome.problem = check.stderr.trim() || `version check exited ${check.code}`;
    console.error(outcome.problem);
    return;
  }
  outcome.versions = (JSON.parse(check.stdout) as { versions: Record<string, string> }).versions;
  console.log(
    `matrix: ${cell.name} loads ${Object.entries(outcome.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}`,
  );

  const typecheck = await run(node.path, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.matrix.json'], {
    cwd: cellDir,
    path,
  });
  outcome.types = typecheck === 0 ? 'ok' : 'FAIL';
  if (typecheck !== 0) outcome.problem = "the packages' sources do not type-check against these versions";

  const report = join(root, `${cell.name}.vitest.json`);
  rmSync(report, { force: true });
  const vitest = await run(
    node.path,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...SUITES,
    ],
    { cwd: cellDir, path },
  );
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      numTodoTests: number;
      numFailedTestSuites: number;
      testResults: {
        name: string;
        status: string;
        assertionResults: { fullName: string; status: string }[];
      }[];
    };
    outcome.passed = json.numPassedTests;
    outcome.failed = json.numFailedTests;
    outcome.skipped = json.numPendingTests + json.numTodoTests;
    outcome.failedTests = json.testResults.flatMap((file) => {
      const path = relative(cellDir, file.name);
      const failed = file.assertionResults.filter((test) => test.status === 'failed');
      if (failed.length === 0 && file.status === 'failed') return [`${path} (did not load)`];
      return failed.map((test) => `${path} > ${test.fullName}`);
    });
    if (json.numFailedTestSuites > 0 && json.numFailedTests === 0) {
      outcome.problem ??= `${json.numFailedTestSuites} test file(s) failed to load`;
    }
  }
  if (vitest !== 0) outcome.problem ??= `vitest exited ${vitest}`;
  if ((outcome.failed ?? 0) > 0) outcome.problem = `${outcome.failed} test(s) failed`;
}

function secondsSince(started: number): number {
  return Math.round((Date.now() - started) / 1000);
}

function summary(outcomes: readonly Outcome[]): string {
  const columns = ['node', 'got', 'keyv', '@keyv/redis', 'redis', 'ioredis', '@crawlee/core'] as const;
  const header = ['cell', ...columns, 'types', 'passed', 'failed', 'skipped', 'time', 'result'];
  const rows = outcomes.map((outcome) => [
    outcome.cell.name,
    ...columns.map((column) => outcome.versions?.[column] ?? '-'),
    outcome.types ?? '-',
    String(outcome.passed ?? '-'),
    String(outcome.failed ?? '-'),
    String(outcome.skipped ?? '-'),
    outcome.seconds === undefined ? '-' : `${outcome.seconds} s`,
    outcome.problem === undefined ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  const problems = outcomes
    .filter((outcome) => outcome.problem !== undefined)
    .flatMap((outcome) => [
      `  ${outcome.cell.name}: ${(outcome.problem ?? '').split('\n')[0]}`,
      ...(outcome.failedTests ?? []).map((test) => `    ${test}`),
    ]);
  return [
    line(header),
    ...rows.map(line),
    ...(problems.length > 0 ? ['', 'failures:', ...problems] : []),
  ].join('\n');
}

async function main(): Promise<number> {
  const { cells, fresh, list } = parseArgs(process.argv.slice(2));
  if (list) {
    for (const cell of cells) {
      const versions = Object.entries(peerDependencies(cell.versions))
        .map(([name, spec]) => `${name}@${spec}`)
        .join(' ');
      console.log(`${cell.name}: Node ${cell.node}, ${versions}\n  ${cell.why}`);
    }
    return 0;
  }
  const started = Date.now();
  const root = matrixRoot(repo);
  console.log(`matrix: ${cells.length} cell(s) in ${root}${fresh ? ' (fresh installs)' : ''}`);

  // Every download at once: the Node binaries and the cells' packages.
  const majors = [...new Set(cells.map((cell) => cell.node))];
  const [prepared, installedNodes] = await Promise.all([
    Promise.allSettled(cells.map((cell) => prepare(root, cell, fresh))),
    Promise.allSettled(majors.map((major) => nodeBinary(root, major, fresh))),
  ]);
  const settledNodes = new Map(majors.map((major, i) => [major, installedNodes[i]]));
  const outcomes: Outcome[] = cells.map((cell) => ({ cell }));
  console.log(`matrix: installs done in ${secondsSince(started)} s`);

  for (const [i, outcome] of outcomes.entries()) {
    const setup = prepared[i];
    const node = settledNodes.get(outcome.cell.node);
    const cellStarted = Date.now();
    if (setup?.status === 'rejected') {
      outcome.problem = `cannot install: ${describe(setup.reason)}`;
    } else if (node?.status !== 'fulfilled') {
      outcome.problem = `no Node ${outcome.cell.node}: ${describe(node?.reason)}`;
    } else {
      await runCell(root, node.value, outcome);
    }
    if (outcome.problem !== undefined)
      console.error(`matrix: ${outcome.cell.name} FAILED: ${outcome.problem}`);
    outcome.seconds = secondsSince(cellStarted);
  }

  console.log(`\nmatrix summary (${secondsSince(started)} s in all; logs and reports in ${root})\n`);
  console.log(summary(outcomes));
  return outcomes.some((outcome) => outcome.problem !== undefined) ? 1 : 0;
}

function describe(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof MatrixSetupError ? `matrix: ${error.message}` : error);
    process.exit(1);
  },
);
