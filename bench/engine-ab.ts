/**
 * The engine against itself at another commit, in one run on the same inputs: is this change slower?
 * `npm run bench -- engine-ab --base=<git-ref> [--rows=check,parseText]` (default: 34d4a37, the engine
 * before issue 13's restructuring). `--base=HEAD` races the working tree against its last commit: with no engine change,
 * the ratios show how far this machine's noise reaches.
 *
 * The base's packages/core/src/engine and the kernel it reads the AI usage vocabulary from (it imports
 * nothing else) are taken out of git into a temporary folder. Each engine runs in its own worker thread
 * (engine-worker.ts): two copies of an engine in one V8 isolate do not run alike (in an A/A run, the
 * same code loaded twice, the copy loaded second was up to a third slower). The rows are those of
 * bench/engine.ts, raced as there (engine-corpus.ts: raceRow).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContenderWorker, loadCorpus, ROUNDS, raceRow, rowsWanted, withUsageLines } from './engine-corpus.js';

const ENGINE_DIR = 'packages/core/src/engine';
const KERNEL_DIR = 'packages/core/src/kernel';
const DEFAULT_BASE = '34d4a37';
const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The `--base=<ref>` of the command line, else DEFAULT_BASE. */
function baseRef(): string {
  const flag = process.argv.find((arg) => arg.startsWith('--base='));
  return flag === undefined ? DEFAULT_BASE : flag.slice('--base='.length);
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

export async function runEngineAbBench(): Promise<void> {
  const inputs = loadCorpus('engine-ab');
  if (inputs === undefined) return;
  const ref = baseRef();
  const folder = mkdtempSync(join(tmpdir(), 'politely-engine-ab-'));
  const current = new ContenderWorker(join(REPO, ENGINE_DIR, 'index.ts'));
  const base = new ContenderWorker(extractEngine(ref, folder));
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
        `${name.padEnd(30)} ${unit(times.a).toFixed(1).padStart(9)} ${unit(times.b).toFixed(1).padStart(9)}  ${label.padEnd(5)} ${times.ratio.toFixed(2).padStart(5)}`,
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
