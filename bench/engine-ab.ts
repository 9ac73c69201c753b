/**
 * The engine against itself at another commit, in one run on the same inputs: is this change slower?
 * `npm run bench -- engine-ab --base=<git-ref> [--rows=check,parseText]` (default: 34d4a37, the engine before issue 13's
 * restructuring). `--base=HEAD` races the working tree against its last commit: with no engine change,
 * the ratios show how far this machine's noise reaches.
 *
 * The base's packages/core/src/engine and the kernel it reads the AI usage vocabulary from (it imports
 * nothing else) are taken out of git into a temporary folder. Each engine runs in its own worker thread (engine-ab-worker.ts): two copies of an
 * engine in one V8 isolate do not run alike (in an A/A run, the same code loaded twice, the copy
 * loaded second was up to a third slower). The rows are those of bench/engine.ts, in rounds that alternate the two engines, one
 * running at a time, timed in CPU time (engine-ab-worker.ts), so other processes' load falls on neither.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RowName } from './engine-ab-worker.js';
import { loadCorpus, median, withUsageLines } from './engine-corpus.js';

const ENGINE_DIR = 'packages/core/src/engine';
const KERNEL_DIR = 'packages/core/src/kernel';
/** More rounds than bench/engine.ts: a ratio of two close figures needs more to settle. */
const ROUNDS = 15;
const DEFAULT_BASE = '34d4a37';
const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The `--base=<ref>` of the command line, else DEFAULT_BASE. */
function baseRef(): string {
  const flag = process.argv.find((arg) => arg.startsWith('--base='));
  return flag === undefined ? DEFAULT_BASE : flag.slice('--base='.length);
}

/** The rows of `--rows=check,parseText` (names as in engine-ab-worker.ts), else undefined: all. */
function rowsWanted(): string[] | undefined {
  const flag = process.argv.find((arg) => arg.startsWith('--rows='));
  return flag === undefined ? undefined : flag.slice('--rows='.length).split(',');
}

/** Writes the engine of `ref` into `folder` (git archive, unpacked by tar); returns its index.ts. */
function extractEngine(ref: string, folder: string): string {
  // The kernel too: the engine reads the AI usage vocabulary from kernel/content-usage.ts.
  const archive = execFileSync('git', ['-C', REPO, 'archive', '--format=tar', ref, ENGINE_DIR, KERNEL_DIR], {
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', folder], { input: archive });
  // ES modules, as in the repository (whose package.json says so).
  writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
  return join(folder, ENGINE_DIR, 'index.ts');
}

/**
 * A worker does not inherit tsx's loader from the command line: it registers tsx itself, then imports
 * the worker's TypeScript.
 */
const WORKER_BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
  .then(({ register }) => { register(); return import(${JSON.stringify(import.meta.resolve('./engine-ab-worker.ts'))}); })`;

/** An engine in its worker: `run(row)` times one pass of a row over the corpus, in CPU ms. */
class EngineWorker {
  readonly #worker: Worker;
  /** The answer awaited (one question at a time). */
  #pending: { resolve: (ms: number) => void; reject: (error: unknown) => void } | undefined;
  readonly ready: Promise<number>;

  constructor(index: string) {
    this.#worker = new Worker(WORKER_BOOT, { eval: true, workerData: index });
    this.#worker.on('message', (ms: number) => this.#pending?.resolve(ms));
    this.#worker.on('error', (error) => this.#pending?.reject(error));
    this.ready = this.#answer();
  }

  #answer(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
    });
  }

  run(row: RowName): Promise<number> {
    const answer = this.#answer();
    this.#worker.postMessage(row);
    return answer;
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

/**
 * A warm-up pass of each, then ROUNDS rounds of one pass each, the order flipped every round. The
 * ratio is the median of each round's own ratio: the two passes of a round ran back to back, under
 * much the same load.
 */
async function raceRow(row: RowName, current: EngineWorker, base: EngineWorker) {
  await current.run(row);
  await base.run(row);
  const times = { current: [] as number[], base: [] as number[] };
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['current', 'base'] as const) : (['base', 'current'] as const);
    for (const name of order) times[name].push(await (name === 'current' ? current : base).run(row));
    ratios.push((times.base[round] as number) / (times.current[round] as number));
  }
  return { current: median(times.current), base: median(times.base), ratio: median(ratios) };
}

export async function runEngineAbBench(): Promise<void> {
  const inputs = loadCorpus('engine-ab');
  if (inputs === undefined) return;
  const ref = baseRef();
  const folder = mkdtempSync(join(tmpdir(), 'politely-engine-ab-'));
  const current = new EngineWorker(join(REPO, ENGINE_DIR, 'index.ts'));
  const base = new EngineWorker(extractEngine(ref, folder));
  try {
    await Promise.all([current.ready, base.ready]);
    const totalBytes = inputs.reduce((sum, input) => sum + input.bytes.length, 0);
    const checks = inputs.reduce((sum, input) => sum + input.urls.length * input.agents.length, 0);
    console.log(
      `working tree's engine (current) against the engine at ${ref} (base), each in its own worker: ${inputs.length} files, ${(totalBytes / 1e6).toFixed(1)} MB, ${checks} checks; median of ${ROUNDS} alternating rounds after a warm-up, CPU time\n`,
    );
    console.log(`${'measure'.padEnd(30)} ${'current'.padStart(9)} ${'base'.padStart(9)}  unit  ratio`);
    const mbps = (ms: number) => totalBytes / 1e6 / (ms / 1000);
    const ns = (ms: number) => (ms * 1e6) / checks;
    const usageBytes = inputs.reduce((sum, input) => sum + Buffer.byteLength(withUsageLines(input.text)), 0);
    const usageMbps = (ms: number) => usageBytes / 1e6 / (ms / 1000);
    // In the order bench/engine.ts races them: strings, then bytes (see there).
    const rows = [
      ['parse from string', 'parseText', mbps, 'MB/s'],
      ['parse from bytes', 'parseBytes', mbps, 'MB/s'],
      ['parse + first check, string', 'parseFirst', mbps, 'MB/s'],
      ['isAllowed(url, agent)', 'check', ns, 'ns'],
      // Content-Signal / Content-Usage added to every file (engine-corpus.ts): what reading them costs.
      ['parse, usage lines added', 'parseUsage', usageMbps, 'MB/s'],
    ] as const;
    const only = rowsWanted();
    for (const [name, row, unit, label] of rows) {
      if (only !== undefined && !only.includes(row)) continue;
      const times = await raceRow(row, current, base);
      console.log(
        `${name.padEnd(30)} ${unit(times.current).toFixed(1).padStart(9)} ${unit(times.base).toFixed(1).padStart(9)}  ${label.padEnd(5)} ${times.ratio.toFixed(2).padStart(5)}`,
      );
    }
    console.log(
      "\nratio: current speed / base speed, median of each round's ratio (1.00 = same; 0.90 = current 10% slower)",
    );
  } finally {
    await Promise.all([current.close(), base.close()]);
    rmSync(folder, { recursive: true, force: true });
  }
}
