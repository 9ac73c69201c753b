/**
 * The version matrix: `npm run matrix` runs every cell, `npm run matrix -- node22-latest` one of them,
 * `--list` shows them and the test files each runs, `--fresh` reinstalls everything (CI does).
 * Prints a table and exits 1 when a cell failed or could not install.
 *
 * What a cell runs, and why that is enough (it took 1,655 s for three cells of 569 tests, each cell
 * running the whole of nine test folders one file at a time after the other cells):
 * - Only the test files whose outcome can differ from `npm test`'s (select.ts, read from the imports):
 *   every file whose imports reach a peer package (got, Keyv, @keyv/redis, node-redis, ioredis, any
 *   @crawlee/*, or a package select.ts does not know) runs in every cell; a file that uses Node's
 *   network stack or processes but no peer runs in the cells whose Node is not the one running this
 *   script, since on that very binary, with the same sources and no peer, it is `npm test`'s run again.
 *   The rest (the engine, fake-clock logic, in-memory stores) is ECMAScript the cells do not change.
 * - Cells with the same peer versions (node22-latest, node24-latest) install once: the second gets a
 *   hard-linked copy of the first's folder, and the type check (tsc does not depend on the Node that
 *   runs it) is done once and reported for both.
 * - Each cell starts as soon as its own install and Node are there, and the cells run side by side
 *   (three files at once, one a cell): most slow files wait on real delays and Redis failovers, not on
 *   the CPU. `--workers N` gives each cell's vitest N workers (default 1, see DEFAULT_WORKERS);
 *   `--serial` runs one cell after another with the output on the console, as before.
 * Order of a cell: assert the versions its imports resolve to, type-check the packages' sources against
 * them, run its test files with the cell's Node; the output goes to <matrix folder>/<cell>.log.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  copyInstall,
  copySources,
  installIsCurrent,
  MatrixSetupError,
  markInstalled,
  matrixRoot,
  writeCellManifest,
} from './cell-folder.js';
import { CELLS, type Cell, peerDependencies } from './cells.js';
import { binDir, type NodeBinary, nodeBinary } from './node-binary.js';
import { capture, run, tail } from './processes.js';
import { allTestFiles, type TestFileDeps, testFileDeps } from './select.js';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/**
 * Vitest workers per cell unless `--workers` says otherwise: one, as `npm test` has on 2 cores. With
 * two each (six files at once, three cells) on a shared machine at load 12-55, wire-pacing, Redis
 * failover and cluster tests that bring their own CPU burners failed (2026-11-27, 2,729 s): raise it
 * when the suite is safe to run several files side by side (vitest.config.ts, issue 21.5).
 */
const DEFAULT_WORKERS = 1;

interface Outcome {
  readonly cell: Cell;
  versions?: Record<string, string>;
  /** `ok`, `FAIL`, or `ok (node22-latest)` when checked once for cells of the same versions. */
  types?: string;
  files?: number;
  passed?: number;
  failed?: number;
  skipped?: number;
  seconds?: number;
  /** `file > test` for every failed test. */
  failedTests?: string[];
  /** Set when the cell failed; the first reason. */
  problem?: string;
}

interface Options {
  readonly cells: Cell[];
  readonly fresh: boolean;
  readonly list: boolean;
  readonly serial: boolean;
  readonly workers: number;
}

function usage(): string {
  return [
    'usage: npm run matrix -- [--fresh] [--list] [--serial] [--workers N] [cell ...]',
    `  cells: ${CELLS.map((cell) => cell.name).join(', ')}`,
    '  --fresh      reinstall Node and packages from the registry instead of reusing earlier installs',
    '  --list       show the cells and the test files each would run, and why',
    '  --serial     one cell after another, output on the console (default: side by side, output in logs)',
    `  --workers N  vitest workers in each cell (default ${DEFAULT_WORKERS})`,
    '  POLITELY_MATRIX_DIR  where cells live (default $TMPDIR/politely-matrix, TMPDIR defaulting to /tmp)',
  ].join('\n');
}

function parseArgs(argv: readonly string[]): Options {
  const args = [...argv];
  let workers = DEFAULT_WORKERS;
  let badWorkers = false;
  const workersAt = args.indexOf('--workers');
  if (workersAt !== -1) {
    const value = Number(args[workersAt + 1]);
    badWorkers = !Number.isInteger(value) || value < 1;
    workers = value;
    args.splice(workersAt, 2);
  }
  const names = args.filter((arg) => !arg.startsWith('--'));
  const flags = args.filter((arg) => arg.startsWith('--'));
  const unknownFlag = flags.find((flag) => !['--fresh', '--list', '--serial', '--help'].includes(flag));
  const unknownCell = names.find((name) => !CELLS.some((cell) => cell.name === name));
  const wrong = unknownFlag !== undefined || unknownCell !== undefined || badWorkers;
  if (flags.includes('--help') || wrong) {
    if (unknownFlag !== undefined) console.error(`matrix: unknown option ${unknownFlag}`);
    if (unknownCell !== undefined) console.error(`matrix: unknown cell ${unknownCell}`);
    if (badWorkers) console.error('matrix: --workers wants a whole number from 1');
    console.error(usage());
    process.exit(wrong ? 2 : 0);
  }
  const cells = names.length === 0 ? [...CELLS] : CELLS.filter((cell) => names.includes(cell.name));
  return {
    cells,
    fresh: flags.includes('--fresh'),
    list: flags.includes('--list'),
    serial: flags.includes('--serial'),
    workers,
  };
}

/** Cells that install the same packages: one install (and one type check) serves them all. */
function installGroups(cells: readonly Cell[]): Cell[][] {
  const groups = new Map<string, Cell[]>();
  for (const cell of cells) {
    const key = JSON.stringify(peerDependencies(cell.versions));
    groups.set(key, [...(groups.get(key) ?? []), cell]);
  }
  return [...groups.values()];
}

/**
 * Copies and installs one cell; throws MatrixSetupError when the registry or npm says no. With `from`
 * (a cell of the same versions, installed), takes a hard-linked copy of that cell's install instead.
 */
async function prepare(root: string, cell: Cell, fresh: boolean, from?: Cell): Promise<void> {
  const cellDir = join(root, cell.name);
  if (fresh) rmSync(cellDir, { recursive: true, force: true });
  const files = await copySources(repo, cellDir);
  const stamp = writeCellManifest(repo, cell, cellDir);
  if (installIsCurrent(cellDir, stamp)) {
    console.log(`matrix: ${cell.name}: ${files} files copied, install reused`);
    return;
  }
  const started = Date.now();
  if (from !== undefined) {
    copyInstall(join(root, from.name), cellDir);
    await copySources(repo, cellDir);
    markInstalled(cellDir, writeCellManifest(repo, cell, cellDir));
    console.log(`matrix: ${cell.name}: install of ${from.name} linked in ${secondsSince(started)} s`);
    return;
  }
  // A changed manifest is installed afresh: an old lock or tree would keep versions the new ranges
  // still accept (keyv 5.4 for `5`).
  rmSync(cellDir, { recursive: true, force: true });
  await copySources(repo, cellDir);
  writeCellManifest(repo, cell, cellDir);
  const logFile = join(root, `${cell.name}.install.log`);
  const code = await run('npm', ['install', '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd: cellDir,
    logFile,
  });
  if (code !== 0) throw new MatrixSetupError(`npm install failed (exit ${code}):\n${tail(logFile)}`);
  markInstalled(cellDir, stamp);
  console.log(`matrix: ${cell.name}: ${files} files copied, installed in ${secondsSince(started)} s`);
}

/** The test files a cell runs: peer files always, Node files when the cell's Node is another. */
function filesFor(cell: Cell, deps: readonly TestFileDeps[]): TestFileDeps[] {
  const sameNode = cell.node === process.versions.node.split('.')[0];
  return deps.filter((dep) => dep.peers.length > 0 || (!sameNode && dep.nodeIo !== undefined));
}

interface CellRun {
  readonly root: string;
  readonly node: NodeBinary;
  readonly files: readonly string[];
  readonly workers: number;
  /** Output to this file instead of the console (cells side by side). */
  readonly logFile?: string;
  /** Resolves with the type check's verdict, done by this cell or by one of the same versions. */
  readonly types: () => Promise<string>;
}

/** Asserts the versions, type-checks, runs the cell's test files. Fills in `outcome`. */
async function runCell(outcome: Outcome, options: CellRun): Promise<void> {
  const { cell } = outcome;
  const { root, node, logFile } = options;
  const cellDir = join(root, cell.name);
  const path = [binDir(node)];
  const say = (line: string) => console.log(line);
  const banner = `matrix: ${cell.name} on Node ${node.major} (${node.source}), ${options.files.length} test files`;
  if (logFile === undefined) say(`\n${'='.repeat(banner.length)}\n${banner}\n${'='.repeat(banner.length)}`);
  else say(`${banner}; output in ${logFile}`);

  const expected = JSON.stringify({ node: cell.node, packages: peerDependencies(cell.versions) });
  const check = await capture(node.path, ['--import', 'tsx', 'scripts/matrix/check-versions.ts', expected], {
    cwd: cellDir,
    path,
  });
  if (check.code !== 0) {
    outcome.problem = check.stderr.trim() || `version check exited ${check.code}`;
    return;
  }
  outcome.versions = (JSON.parse(check.stdout) as { versions: Record<string, string> }).versions;
  say(
    `matrix: ${cell.name} loads ${Object.entries(outcome.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}`,
  );

  outcome.types = await options.types();
  if (!outcome.types.startsWith('ok')) {
    outcome.problem = "the packages' sources do not type-check against these versions";
  }

  const report = join(root, `${cell.name}.vitest.json`);
  rmSync(report, { force: true });
  outcome.files = options.files.length;
  const vitest = await run(
    node.path,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      `--maxWorkers=${options.workers}`,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...options.files,
    ],
    { cwd: cellDir, path, ...(logFile === undefined ? {} : { logFile, append: true }) },
  );
  if (existsSync(report)) {
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      numTodoTests: number;
      numFailedTestSuites: number;
      numTotalTestSuites: number;
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
    // Every selected file must have run: a path vitest did not match would otherwise pass silently.
    const ran = new Set(json.testResults.map((file) => relative(cellDir, file.name).split(sep).join('/')));
    const missing = options.files.filter((file) => !ran.has(file));
    if (missing.length > 0) outcome.problem ??= `vitest did not run ${missing.join(', ')}`;
    if (json.numFailedTestSuites > 0 && json.numFailedTests === 0) {
      outcome.problem ??= `${json.numFailedTestSuites} test file(s) failed to load`;
    }
  }
  if (vitest !== 0) outcome.problem ??= `vitest exited ${vitest}`;
  if ((outcome.failed ?? 0) > 0) outcome.problem = `${outcome.failed} test(s) failed`;
}

/** Type-checks the packages' sources in one cell's folder against its installed versions. */
async function typeCheck(root: string, cell: Cell, node: NodeBinary, logFile?: string): Promise<string> {
  const code = await run(node.path, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.matrix.json'], {
    cwd: join(root, cell.name),
    path: [binDir(node)],
    ...(logFile === undefined ? {} : { logFile, append: true }),
  });
  return code === 0 ? 'ok' : 'FAIL';
}

function secondsSince(started: number): number {
  return Math.round((Date.now() - started) / 1000);
}

function summary(outcomes: readonly Outcome[]): string {
  const columns = ['node', 'got', 'keyv', '@keyv/redis', 'redis', 'ioredis', '@crawlee/core'] as const;
  const header = ['cell', ...columns, 'types', 'files', 'passed', 'failed', 'skipped', 'time', 'result'];
  const rows = outcomes.map((outcome) => [
    outcome.cell.name,
    ...columns.map((column) => outcome.versions?.[column] ?? '-'),
    outcome.types ?? '-',
    String(outcome.files ?? '-'),
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

/** The test files of the repository and what each one's imports reach. */
function readTestFiles(): TestFileDeps[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
  }).split('\0');
  return testFileDeps(
    repo,
    allTestFiles(listed).filter((file) => existsSync(join(repo, file))),
  );
}

function listCells(cells: readonly Cell[], deps: readonly TestFileDeps[]): void {
  for (const cell of cells) {
    const versions = Object.entries(peerDependencies(cell.versions))
      .map(([name, spec]) => `${name}@${spec}`)
      .join(' ');
    const files = filesFor(cell, deps);
    console.log(`${cell.name}: Node ${cell.node}, ${versions}\n  ${cell.why}`);
    console.log(`  ${files.length} of ${deps.length} test files:`);
    for (const dep of files) {
      const why = dep.peers.length > 0 ? `loads ${dep.peers.join(', ')}` : dep.nodeIo;
      console.log(`    ${dep.file}  (${why})`);
    }
  }
}

async function main(): Promise<number> {
  const { cells, fresh, list, serial, workers } = parseArgs(process.argv.slice(2));
  const deps = readTestFiles();
  if (list) {
    listCells(cells, deps);
    return 0;
  }
  const started = Date.now();
  const root = matrixRoot(repo);
  console.log(
    `matrix: ${cells.length} cell(s) in ${root}${fresh ? ' (fresh installs)' : ''}, ` +
      `${serial ? 'one after another' : 'side by side'}, ${workers} vitest worker(s) each`,
  );

  // Every download starts at once: the Node binaries and one install per set of versions; a cell
  // whose versions another cell installs waits for that install and links it.
  const majors = [...new Set(cells.map((cell) => cell.node))];
  const nodes = new Map(majors.map((major) => [major, nodeBinary(root, major, fresh)]));
  const installs = new Map<Cell, Promise<void>>();
  const typeChecks = new Map<Cell, Cell>();
  for (const [leader, ...followers] of installGroups(cells)) {
    if (leader === undefined) continue;
    const installed = prepare(root, leader, fresh);
    installs.set(leader, installed);
    for (const follower of followers) {
      installs.set(
        follower,
        installed.then(() => prepare(root, follower, fresh, leader)),
      );
      typeChecks.set(follower, leader);
    }
  }
  // Rejections are read where each cell awaits them; these keep Node from calling them unhandled.
  for (const promise of [...nodes.values(), ...installs.values()]) promise.catch(() => undefined);

  // A leader's type check, shared with the cells of its versions; undefined when it never got that far.
  const typeResults = new Map<Cell, Promise<string | undefined>>();
  const typeSettle = new Map<Cell, (verdict: string | undefined) => void>();
  for (const leader of new Set(typeChecks.values())) {
    typeResults.set(leader, new Promise((settle) => typeSettle.set(leader, settle)));
  }
  const outcomes: Outcome[] = cells.map((cell) => ({ cell }));
  const runOne = async (outcome: Outcome): Promise<void> => {
    const { cell } = outcome;
    const logFile = serial ? undefined : join(root, `${cell.name}.log`);
    if (logFile !== undefined) rmSync(logFile, { force: true });
    let cellStarted = Date.now();
    try {
      await installs.get(cell);
      const node = await nodes.get(cell.node);
      if (node === undefined) throw new Error(`no Node ${cell.node}`);
      cellStarted = Date.now();
      const leader = typeChecks.get(cell);
      const types = async (): Promise<string> => {
        const shared = leader === undefined ? undefined : await typeResults.get(leader);
        if (shared !== undefined) return `${shared} (${leader?.name})`;
        const own = await typeCheck(root, cell, node, logFile);
        typeSettle.get(cell)?.(own);
        return own;
      };
      const files = filesFor(cell, deps).map((dep) => dep.file);
      await runCell(outcome, { root, node, files, workers, types, ...(logFile ? { logFile } : {}) });
    } catch (error) {
      outcome.problem = `cannot set up: ${describe(error)}`;
    }
    // A leader that stopped before its type check: the cells waiting on it check for themselves.
    typeSettle.get(cell)?.(undefined);
    outcome.seconds = secondsSince(cellStarted);
    if (outcome.problem !== undefined) {
      console.error(`matrix: ${cell.name} FAILED after ${outcome.seconds} s: ${outcome.problem}`);
      if (logFile !== undefined)
        console.error(`matrix: ${cell.name}: the end of ${logFile}:\n${tail(logFile)}`);
    } else {
      console.log(`matrix: ${cell.name} passed in ${outcome.seconds} s`);
    }
  };
  if (serial) {
    await Promise.allSettled(installs.values());
    console.log(`matrix: installs done in ${secondsSince(started)} s`);
    for (const outcome of outcomes) await runOne(outcome);
  } else {
    await Promise.all(outcomes.map(runOne));
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
