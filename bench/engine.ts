/**
 * Rules engine against robots-parser (the JS parser Crawlee uses), side by side in one run on the same
 * inputs: every file of ../shared/corpus/robots and every path x agent of ../shared/corpus/urls.jsonl.
 *
 * - parse: MB/s over the whole corpus, both parsers fed the same decoded strings (politely also from
 *   bytes, its native input; robots-parser reads strings only and is fed the strings there too).
 * - parse + first check: the same, then one isAllowed per file (its first path and agent). politely
 *   escapes and compiles an agent's rules on first use, which a bare parse does not pay for; robots-parser
 *   escapes while parsing. This row charges both with that work.
 * - check: ns per isAllowed; every file is parsed once beforehand, then only checks are timed.
 * - check cost as rules grow: synthetic files of 10 to 100,000 rules (engine-corpus.ts).
 *
 * Each contender runs in its own worker thread (engine-worker.ts), one at a time, timed in CPU time:
 * in one isolate each paid for the other's garbage, and the figures moved by a third between quiet runs.
 * Each figure is the median of ROUNDS rounds after a warm-up; the ratio is the median of each round's
 * own ratio, so load that comes and goes falls on both passes of a round alike.
 * Run alone: `npx tsx bench/engine.ts`.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ContenderWorker,
  loadCorpus,
  ROUNDS,
  type RowName,
  raceRow,
  rowsWanted,
  SCALING_REPEAT,
  SCALING_SIZES,
  SCALING_URLS,
  withUsageLines,
} from './engine-corpus.js';

const ENGINE = fileURLToPath(new URL('../packages/core/src/engine/index.ts', import.meta.url));

function row(name: string, politely: number, peer: number, unit: string, ratio: number): string {
  return `${name.padEnd(34)} ${politely.toFixed(1).padStart(10)} ${peer.toFixed(1).padStart(14)}  ${unit.padEnd(6)} ${ratio.toFixed(1).padStart(6)}x`;
}

export async function runEngineBench(): Promise<void> {
  const inputs = loadCorpus('engine');
  if (inputs === undefined) return;
  const totalBytes = inputs.reduce((sum, input) => sum + input.bytes.length, 0);
  const checksPerRound = inputs.reduce((sum, input) => sum + input.urls.length * input.agents.length, 0);
  const usageBytes = inputs.reduce((sum, input) => sum + Buffer.byteLength(withUsageLines(input.text)), 0);
  console.log(
    `corpus: ${inputs.length} files, ${(totalBytes / 1e6).toFixed(1)} MB; ${checksPerRound} checks (path x agent) per round; each contender in its own worker, CPU time, median of ${ROUNDS} alternating rounds after a warm-up`,
  );
  const politely = new ContenderWorker(ENGINE);
  const peer = new ContenderWorker('robots-parser');
  try {
    await Promise.all([politely.ready, peer.ready]);
    const mbps = (bytes: number) => (ms: number) => bytes / 1e6 / (ms / 1000);
    const ns = (ms: number) => (ms * 1e6) / checksPerRound;
    // [label, row, unit converter, unit]
    const rows: [string, RowName, (ms: number) => number, string][] = [
      ['parse, same strings', 'parseText', mbps(totalBytes), 'MB/s'],
      ['parse, politely from bytes', 'parseBytes', mbps(totalBytes), 'MB/s'],
      ['parse + first check, same strings', 'parseFirst', mbps(totalBytes), 'MB/s'],
      // The same files with AI usage preference lines added (engine-corpus.ts): what reading them costs
      // (robots-parser skips them as unknown lines).
      ['parse, usage lines added', 'parseUsage', mbps(usageBytes), 'MB/s'],
      ['isAllowed(url, agent)', 'check', ns, 'ns'],
      ['forAgent(agent).isAllowed(url)', 'checkCompiled', ns, 'ns'],
    ];
    console.log(
      `\n${'measure'.padEnd(34)} ${'politely'.padStart(10)} ${'robots-parser'.padStart(14)}  unit   faster`,
    );
    const only = rowsWanted();
    for (const [label, name, unit, unitLabel] of rows) {
      if (only !== undefined && !only.includes(name)) continue;
      const { a, b, ratio } = await raceRow(name, politely, peer);
      console.log(row(label, unit(a), unit(b), unitLabel, ratio));
    }

    if (only !== undefined && !only.includes('scale')) return;
    const perCheck = (ms: number) => (ms * 1e6) / (SCALING_REPEAT * SCALING_URLS.length);
    console.log(
      `\ncheck cost as rules grow (ns per check, ${SCALING_URLS.length} URLs x ${SCALING_REPEAT}; robots-parser repeats fewer at big sizes):`,
    );
    console.log(
      `${'rules'.padStart(8)} ${'politely'.padStart(10)} ${'robots-parser'.padStart(14)} ${'faster'.padStart(8)}`,
    );
    let first: number | undefined;
    let last = 0;
    for (const rules of SCALING_SIZES) {
      const { a, b, ratio } = await raceRow(`scale:${rules}`, politely, peer);
      first ??= perCheck(a);
      last = perCheck(a);
      console.log(
        `${String(rules).padStart(8)} ${perCheck(a).toFixed(0).padStart(10)} ${perCheck(b).toFixed(0).padStart(14)} ${`${ratio.toFixed(0)}x`.padStart(8)}`,
      );
    }
    console.log(
      `politely at ${SCALING_SIZES.at(-1)} rules / at ${SCALING_SIZES[0]}: ${(last / (first ?? last)).toFixed(2)}x`,
    );
  } finally {
    await Promise.all([politely.close(), peer.close()]);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runEngineBench();
}
