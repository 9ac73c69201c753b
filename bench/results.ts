/**
 * bench/RESULTS.md: the one place measured figures live. `npm run bench` copies what each benchmark
 * prints into the file, under the benchmark's own heading with when and where it ran (date, commit,
 * Node, CPU, load average before and after), so READMEs and docs link here instead of carrying dated
 * figures that go stale. A run of some benchmarks (`npm run bench -- got`) replaces only their
 * sections; the others keep theirs, each with its own date and load.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

export const RESULTS_FILE = new URL('./RESULTS.md', import.meta.url);

const HEADER = `# Benchmark results

<!-- Written by \`npm run bench\` (bench/run.ts, bench/results.ts). Do not edit by hand: rerun the
     benchmark. Each section is replaced when its benchmark runs again. -->

Measured figures of politely and its peers, each benchmark in its own section with the machine it ran
on and the load around it. \`npm run bench -- --help\` lists the benchmarks and what each measures.
Figures move with the machine's load; ratios (politely against a peer in the same run) move less.
`;

const SECTION = /^## (\S+)$/;

/** Text captured from stdout while `run` runs (it is still printed too). */
export async function capturingOutput(run: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    await run();
  } finally {
    process.stdout.write = write;
  }
  // Colours are for the terminal.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes start with ESC.
  return chunks.join('').replace(/\u001b\[[0-9;]*m/g, '');
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} with uncommitted changes` : head;
  } catch {
    return 'unknown';
  }
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');

/** Where and when a benchmark runs, said before it starts. */
export interface RunContext {
  readonly started: Date;
  readonly loadAtStart: string;
}

export function startContext(): RunContext {
  return { started: new Date(), loadAtStart: load() };
}

/** One benchmark's section: its context, its outcome, and what it printed. */
export function section(name: string, context: RunContext, output: string, failure?: unknown): string {
  const cpu = cpus();
  const seconds = ((Date.now() - context.started.getTime()) / 1000).toFixed(0);
  const lines = [
    `## ${name}`,
    '',
    `- run: ${context.started.toISOString()}, ${seconds} s, commit ${commit()}`,
    `- machine: Node ${process.version}, ${cpu[0]?.model.trim() ?? 'unknown CPU'} x ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ${process.platform} ${process.arch}`,
    `- load average (1 / 5 / 15 min): ${context.loadAtStart} at start, ${load()} at end`,
    ...(failure === undefined
      ? []
      : [`- **failed**: ${String(failure instanceof Error ? failure.message : failure)}`]),
    '',
    '```text',
    output.trimEnd(),
    '```',
    '',
  ];
  return lines.join('\n');
}

/** The file with `sections` (by name) put in place of their old ones, in the benchmarks' order. */
export function mergeResults(
  previous: string,
  sections: ReadonlyMap<string, string>,
  order: readonly string[],
): string {
  const kept = new Map<string, string>();
  let current: string | undefined;
  for (const line of previous.split('\n')) {
    const name = SECTION.exec(line)?.[1];
    if (name !== undefined) current = name;
    if (current !== undefined) kept.set(current, `${kept.get(current) ?? ''}${line}\n`);
  }
  for (const [name, text] of sections) kept.set(name, text);
  // A labelled section (`got-before`, bench/run.ts --label) goes right after its benchmark's own.
  const rank = (name: string) => {
    const own = order.indexOf(name);
    if (own >= 0) return own;
    const parent = order.findLastIndex((n) => name.startsWith(`${n}-`));
    return parent >= 0 ? parent + 0.5 : order.length;
  };
  const names = [...kept.keys()].sort((left, right) => rank(left) - rank(right));
  return `${HEADER}\n${names.map((n) => `${(kept.get(n) ?? '').trimEnd()}\n`).join('\n')}`;
}

export function writeResults(sections: ReadonlyMap<string, string>, order: readonly string[]): void {
  const previous = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '';
  writeFileSync(RESULTS_FILE, mergeResults(previous, sections, order));
}
