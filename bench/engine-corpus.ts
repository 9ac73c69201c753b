/**
 * What the engine benchmarks share: the real-world corpus (../shared/corpus, optional research data,
 * not part of the repository) and interleaved timing rounds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ORIGIN = 'https://example.com';
/** Whole bodies are read (robots-parser has no limit), so politely's 512,000-byte cut is off. */
export const NO_LIMIT = { maxBytes: Number.POSITIVE_INFINITY };
export const ROUNDS = 9;

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
        urls: target.paths.map((path) => `${ORIGIN}${path}`),
        agents: target.agents,
      };
    });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Runs each contender once to warm up, then ROUNDS rounds in which every contender runs once, in turn,
 * so that load from other processes falls on all of them alike; the order flips every round, so no
 * contender always runs right after another's garbage. Returns the median ms of each.
 */
export function race<K extends string>(contenders: Record<K, () => void>): Record<K, number> {
  const names = Object.keys(contenders) as K[];
  const times = new Map<K, number[]>(names.map((name) => [name, []]));
  for (const name of names) contenders[name]();
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const start = performance.now();
      contenders[name]();
      times.get(name)?.push(performance.now() - start);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(times.get(name) ?? [])])) as Record<K, number>;
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
