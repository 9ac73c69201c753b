/**
 * tdmrep.json matching: µs per check of one cached origin's rules, before (`--base=<ref>`, default
 * 7977bae: each location split and searched on every check) and after (compiled once into robots.txt's
 * matcher), in the same run. Cases from issue 41: a 500 KB file of rules that match none of the crawl's
 * URLs (every rule is looked at), and one location of 500,000 `*`.
 * Run alone: `npx tsx bench/tdmrep.ts [--base=<ref>]`.
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { coreSourcesAt } from './base-sources.js';

const DEFAULT_BASE = '7977bae';
const REPO = fileURLToPath(new URL('..', import.meta.url));
const RUN_MS = 1_500;

type Engine = typeof import('../packages/core/src/engine/tdmrep.js');

/** A tdmrep.json of about 500 KB: rules on /archive/, none matching the crawl's /news/ pages. */
function bigFile(): string {
  const rules: unknown[] = [];
  let size = 0;
  for (let i = 0; size < 500_000; i++) {
    const rule = {
      location: `/archive/${i}/*/${'seg'.repeat(8)}-${i}.html$`,
      'tdm-reservation': 1,
      'tdm-policy': `https://site.test/policy/${i}.json`,
    };
    rules.push(rule);
    size += JSON.stringify(rule).length + 1;
  }
  return JSON.stringify(rules);
}

/** Mean µs per matchTdmRep over RUN_MS, after a warm-up (the compiled form built once in it). */
function microsPerCheck(engine: Engine, text: string): number {
  const parsed = engine.parseTdmRep(text, 'https://site.test/.well-known/tdmrep.json');
  if (!parsed.ok) throw new Error(parsed.error);
  const urls = Array.from({ length: 1_000 }, (_, k) => `https://site.test/news/${k}/story-${k}.html?x=${k}`);
  for (let i = 0; i < 50; i++) engine.matchTdmRep(parsed.rules, urls[i] as string);
  let checks = 0;
  const start = performance.now();
  while (performance.now() - start < RUN_MS) {
    for (let i = 0; i < 10; i++) engine.matchTdmRep(parsed.rules, urls[checks++ % urls.length] as string);
  }
  return ((performance.now() - start) * 1000) / checks;
}

export async function runTdmRepBench(): Promise<void> {
  const flag = process.argv.find((arg) => arg.startsWith('--base='));
  const base = flag === undefined ? DEFAULT_BASE : flag.slice('--base='.length);
  const baseRoot = coreSourcesAt(base, 'tdmrep');
  try {
    const engines: [string, Engine][] = [
      [
        `before (${base})`,
        await import(pathToFileURL(join(baseRoot, 'packages/core/src/engine/tdmrep.ts')).href),
      ],
      ['after', await import(pathToFileURL(join(REPO, 'packages/core/src/engine/tdmrep.ts')).href)],
    ];
    const cases: [string, string][] = [
      ['500 KB file, no rule matching', bigFile()],
      [
        'one location of 500,000 `*`',
        JSON.stringify([{ location: `/${'*'.repeat(500_000)}`, 'tdm-reservation': 1 }]),
      ],
    ];
    console.log('## tdmrep.json: µs per check of a cached origin\n');
    console.log('| case | code | µs per check | before / after | load (1 min) |');
    console.log('| --- | --- | ---: | ---: | ---: |');
    for (const [name, text] of cases) {
      const [before, after] = engines.map(([, engine]) => microsPerCheck(engine, text)) as [number, number];
      const load = loadavg()[0]?.toFixed(2);
      console.log(`| ${name} | ${engines[0]?.[0]} | ${before.toFixed(2)} | | ${load} |`);
      console.log(`| ${name} | after | ${after.toFixed(2)} | ${(before / after).toFixed(0)}x | ${load} |`);
    }
  } finally {
    rmSync(baseRoot, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runTdmRepBench();
