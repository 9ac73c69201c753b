/**
 * What the engine benchmarks share: the real-world corpus (../shared/corpus, optional research data,
 * not part of the repository), the synthetic files of the scaling rows, and races of contenders each in
 * its own worker.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export const ORIGIN = 'https://example.com';
/** Whole bodies are read (robots-parser has no limit), so politely's 512,000-byte cut is off. */
export const NO_LIMIT = { maxBytes: Number.POSITIVE_INFINITY };

export interface Input {
  readonly file: string;
  readonly bytes: Uint8Array;
  readonly text: string;
  readonly urls: readonly string[];
  readonly agents: readonly string[];
}

function sharedDir(): string {
  return fileURLToPath(new URL('../../shared/', import.meta.url));
}

/**
 * Every file of ../shared/corpus/robots with its paths and agents from urls.jsonl, or undefined (after
 * a loud warning naming `benchmark`) when the corpus is not there.
 */
export function loadCorpus(benchmark: string): Input[] | undefined {
  const shared = sharedDir();
  if (!existsSync(`${shared}corpus/robots`)) {
    // The corpus is optional research data (2,476 real files), not part of the repository.
    console.warn(
      `\n!!! ${benchmark} benchmark SKIPPED: the real-world corpus is missing at ${shared}corpus/robots.\n` +
        '!!! To run it, put the shared data folder (corpus/robots, corpus/urls.jsonl) beside the repository\n' +
        `!!! as ../shared, then: npm run bench -- ${benchmark}\n`,
    );
    return undefined;
  }
  const decoder = new TextDecoder();
  const targets = new Map<string, { paths: string[]; agents: string[] }>();
  for (const line of readFileSync(`${shared}corpus/urls.jsonl`, 'utf8').split('\n')) {
    if (line.length === 0) continue;
    const { file, paths, agents } = JSON.parse(line) as { file: string; paths: string[]; agents: string[] };
    targets.set(file, { paths, agents });
  }
  return readdirSync(`${shared}corpus/robots`)
    .sort()
    .map((file) => {
      const bytes = new Uint8Array(readFileSync(`${shared}corpus/robots/${file}`));
      const target = targets.get(file) ?? { paths: ['/'], agents: ['Googlebot'] };
      return {
        file,
        bytes,
        text: decoder.decode(bytes),
        // Flat strings, as a crawler holds its URLs (URL#href, a request read back from Crawlee's JSON
        // storage): a concatenation is a rope, read through one more indirection by whichever engine
        // reads it. Quiet, one run after the other: politely 202 ns a check on ropes, 176 on flat strings
        // (27.9x and 31.4x robots-parser); before politely located paths after a remembered origin, 246
        // against 199.
        urls: target.paths.map((path) => flat(`${ORIGIN}${path}`)),
        agents: target.agents,
      };
    });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Rows over the corpus, then `scale:<rules>`: checks against a synthetic file of that many rules. */
export type RowName =
  | 'parseText'
  | 'parseBytes'
  | 'parseFirst'
  | 'check'
  | 'checkCompiled'
  | 'parseUsage'
  | `scale:${number}`;

/** The rows of `--rows=check,parseText,scale` (`scale`: the rules-growth table), else undefined: all. */
export function rowsWanted(): string[] | undefined {
  const flag = process.argv.find((arg) => arg.startsWith('--rows='));
  return flag === undefined ? undefined : flag.slice('--rows='.length).split(',');
}

/**
 * Rounds of a race: a ratio of two close figures needs many to settle. POLITELY_BENCH_ROUNDS sets more
 * (an A/B of a change of a few percent wants 60 or so).
 */
export const ROUNDS = Number(process.env.POLITELY_BENCH_ROUNDS ?? 15);

/**
 * A worker does not inherit tsx's loader from the command line: it registers tsx itself, then imports
 * the worker's TypeScript.
 */
const WORKER_BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
  .then(({ register }) => { register(); return import(${JSON.stringify(import.meta.resolve('./engine-worker.ts'))}); })`;

/**
 * A contender in its own worker (engine-worker.ts): `run(row)` times one pass of a row, in CPU ms.
 * `contender` is an engine's index.ts or `robots-parser`.
 */
export class ContenderWorker {
  readonly #worker: Worker;
  /** The answer awaited (one question at a time). */
  #pending: { resolve: (ms: number) => void; reject: (error: unknown) => void } | undefined;
  readonly ready: Promise<number>;

  constructor(contender: string) {
    this.#worker = new Worker(WORKER_BOOT, { eval: true, workerData: contender });
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
 * Two warm-up passes of each, then ROUNDS rounds of one pass each, one contender running at a time,
 * the order flipped every round. The ratio is the median of each round's own ratio (b's time over a's:
 * above 1, a is faster): the two passes of a round ran back to back, under much the same load.
 */
export async function raceRow(row: RowName, a: ContenderWorker, b: ContenderWorker) {
  for (let warm = 0; warm < 2; warm++) {
    await a.run(row);
    await b.run(row);
  }
  const times = { a: [] as number[], b: [] as number[] };
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const name of order) times[name].push(await (name === 'a' ? a : b).run(row));
    ratios.push((times.b[round] as number) / (times.a[round] as number));
  }
  return { a: median(times.a), b: median(times.b), ratio: median(ratios) };
}

/** The scaling rows: checks against synthetic files of many prefix rules and a few wildcard rules. */
export const SCALING_SIZES = [10, 100, 1_000, 10_000, 100_000] as const;
export const SCALING_REPEAT = 2_000;
export const SCALING_URLS = [
  '/',
  '/section-7/page',
  '/section-999/a/b?c=d',
  '/none/x',
  '/a.pdf',
  '/s/12/x?session=1',
  '/z',
  '/section-4/',
].map((path) => `${ORIGIN}${path}`);

/** A `*` group of `rules` distinct prefix rules after three wildcard rules. */
export function scalingFile(rules: number): string {
  const lines = ['User-agent: *', 'Disallow: /*.pdf$', 'Disallow: /*?session=', 'Allow: /*/public/'];
  for (let i = 0; i < rules; i++) lines.push(`${i % 3 === 0 ? 'Allow' : 'Disallow'}: /section-${i}/`);
  return flat(lines.join('\n'));
}

/**
 * A corpus file with AI usage preference lines added (issue 22.1), as they appear in the wild: a
 * Content-Signal at file level (Cloudflare's managed robots.txt), and a `*` group at the end with a
 * Content-Signal and two Content-Usage lines (draft-ietf-aipref-attach). The corpus predates them (none
 * of its files has one), so this is how their parse cost is measured.
 */
export function withUsageLines(text: string): string {
  // Through bytes, so the result is one flat string as a decoded body is (a concatenation is a rope
  // whose reads cost more, whichever engine reads it).
  return flat(
    `Content-Signal: search=yes, ai-train=no\n${text}\nUser-agent: *\nContent-Signal: search=yes, ai-train=no, ai-input=yes\nContent-Usage: train-ai=n\nContent-Usage: /blog/ train-ai=y, search=y\n`,
  );
}

const utf8 = { encoder: new TextEncoder(), decoder: new TextDecoder() };

function flat(text: string): string {
  return utf8.decoder.decode(utf8.encoder.encode(text));
}
