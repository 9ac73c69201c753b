/**
 * tdmrep.json files under one memory budget (issue 41): 300 loopback origins (one server process, a
 * port each) each serving a distinct ~500 KB tdmrep.json of ~6,700 rules, crawled with `purpose:
 * 'ai-train'` and `memory.budgetBytes` 16 MiB, twice over. Per code (`--base=<ref>`, default 8cb9b82:
 * tdmrep.json in a cache of its own, bounded at 50,000 origins / 64 MiB beside the budget; and the
 * working tree), each in its own process so heaps do not mix: tdmrep.json requests the server saw in
 * each pass, heap growth after GC (robots.txt's share included), the verdicts of a URL the file's
 * third rule reserves and of one no rule matches, and µs per check of a cached origin.
 * Run alone: `npx tsx bench/tdmrep-files.ts [--base=<ref>]`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { coreSourcesAt } from './base-sources.js';

const DEFAULT_BASE = '8cb9b82';
const REPO = fileURLToPath(new URL('..', import.meta.url));
const ORIGINS = 300;
const BUDGET = 16 * 1024 * 1024;
const MiB = 1024 * 1024;

/**
 * The server, plain JavaScript in its own process: a port per origin; `/.well-known/tdmrep.json` built
 * on each request (the origin's index in every location, so no two files are alike), `/robots.txt`
 * allowing all; `/count` on any port answers the tdmrep.json requests seen so far.
 */
const SERVER = `
const http = require('node:http');
let files = 0;
function file(o) {
  const rules = [];
  let size = 0;
  for (let i = 0; size < 500000; i++) {
    const rule = JSON.stringify({ location: '/archive/o' + o + '/' + i + '/*/' + 'seg'.repeat(8) + '-' + i + '.html$',
      'tdm-reservation': 1, 'tdm-policy': 'https://site.test/policy/' + i + '.json' });
    rules.push(rule);
    size += rule.length + 1;
  }
  return '[' + rules.join(',') + ']';
}
const ports = [];
let listening = 0;
for (let o = 0; o < ${ORIGINS}; o++) {
  const server = http.createServer((req, res) => {
    if (req.url === '/count') return res.end(String(files));
    if (req.url === '/.well-known/tdmrep.json') {
      files++;
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(file(o));
    }
    if (req.url === '/robots.txt') return res.end('User-agent: *\\nAllow: /\\n');
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1', () => {
    ports[o] = server.address().port;
    if (++listening === ${ORIGINS}) process.stdout.write(JSON.stringify(ports) + '\\n');
  });
}
`;

interface Row {
  readonly fetched: readonly [number, number];
  readonly heap: readonly [number, number];
  readonly verdicts: string;
  readonly microsPerCheck: number;
}

/** One code's row, in this process: `root` holds packages/core/src. */
async function measure(root: string, ports: readonly number[]): Promise<Row> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const heap = () => {
    gc();
    gc();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const count = async () => Number(await (await fetch(`http://127.0.0.1:${ports[0]}/count`)).text());
  const core = (await import(
    pathToFileURL(join(root, 'packages/core/src/index.ts')).href
  )) as typeof import('../packages/core/src/index.js');
  const before = heap();
  const politeness = core.createPoliteness({
    userAgent: 'BenchBot/1.0',
    purpose: 'ai-train',
    memory: { budgetBytes: BUDGET },
    pacing: { minDelayMs: 0 },
    logger: false,
  });
  const origin = (o: number) => `http://127.0.0.1:${ports[o]}`;
  const reserved = (o: number) => `${origin(o)}/archive/o${o}/2/x/${'seg'.repeat(8)}-2.html`;
  const fetched: number[] = [];
  const heaps: number[] = [];
  const verdicts = new Set<string>();
  for (let pass = 0; pass < 2; pass++) {
    const start = await count();
    for (let o = 0; o < ports.length; o++) {
      const [a, b] = await Promise.all([
        politeness.check(reserved(o)),
        politeness.check(`${origin(o)}/news/${pass}`),
      ]);
      verdicts.add(`${a.reason} / ${b.reason}`);
    }
    fetched.push((await count()) - start);
    heaps.push(heap() - before);
  }
  // A cached origin: the last one checked, its reserved URL and one no rule matches, alternately.
  const last = ports.length - 1;
  const urls = [reserved(last), `${origin(last)}/news/story.html?x=1`];
  for (let i = 0; i < 1_000; i++) await politeness.check(urls[i % 2] as string);
  const checks = 20_000;
  const started = performance.now();
  for (let i = 0; i < checks; i++) await politeness.check(urls[i % 2] as string);
  const microsPerCheck = ((performance.now() - started) * 1000) / checks;
  await politeness.close();
  return {
    fetched: fetched as [number, number],
    heap: heaps as [number, number],
    verdicts: [...verdicts].join(', '),
    microsPerCheck,
  };
}

export async function runTdmRepFilesBench(): Promise<void> {
  const flag = process.argv.find((arg) => arg.startsWith('--base='));
  const base = flag === undefined ? DEFAULT_BASE : flag.slice('--base='.length);
  const baseRoot = coreSourcesAt(base, 'tdmrep-files');
  const server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const ports = await new Promise<string>((resolve, reject) => {
      server.stdout.once('data', (data: Buffer) => resolve(data.toString().trim()));
      server.once('exit', reject);
    });
    console.log(
      `## tdmrep.json files: ${ORIGINS} origins, a distinct ~500 KB file each (~6,700 rules), purpose 'ai-train', memory.budgetBytes 16 MiB, two passes\n`,
    );
    console.log(
      '| code | files fetched, pass 1 / pass 2 | heap growth after GC, pass 1 / pass 2 | verdicts (rule 3 / no rule) | µs per check, cached origin | load (1 min) |',
    );
    console.log('| --- | ---: | ---: | --- | ---: | ---: |');
    for (const [name, root] of [
      [`before (${base})`, baseRoot],
      ['after', REPO],
    ] as const) {
      // Its own process, so one code's heap never counts in the other's.
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), `--row=${root}`, `--ports=${ports}`],
        { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
      ).toString();
      const row = JSON.parse(out.trim().split('\n').at(-1) as string) as Row;
      const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
      console.log(
        `| ${name} | ${row.fetched[0]} / ${row.fetched[1]} | ${mib(row.heap[0])} / ${mib(row.heap[1])} | ${row.verdicts} | ${row.microsPerCheck.toFixed(1)} | ${loadavg()[0]?.toFixed(2)} |`,
      );
    }
  } finally {
    server.kill();
    rmSync(baseRoot, { recursive: true, force: true });
  }
}

const rowFlag = process.argv.find((arg) => arg.startsWith('--row='));
if (rowFlag !== undefined) {
  const ports = JSON.parse(
    (process.argv.find((arg) => arg.startsWith('--ports=')) as string).slice('--ports='.length),
  ) as number[];
  console.log(JSON.stringify(await measure(rowFlag.slice('--row='.length), ports)));
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runTdmRepFilesBench();
}
