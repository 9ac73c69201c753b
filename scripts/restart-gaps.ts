/**
 * Issue 33's restart figures, judged at the wire, in one run: a crawler SIGKILLed mid-crawl and
 * started again at once on the same storage (10 hosts, Crawl-delay 3 s, 8 pages each, killed once
 * every host has had robots.txt and two pages). Prints per case the smallest gap per host from the
 * last request before the kill to the first after it (robots.txt included), the smallest page gap, the
 * robots.txt fetches per origin, and pages lost or fetched twice:
 * - Crawlee's quick start (test/restart/crawlee-crawler.ts), with this tree's plugin and, given
 *   `--before <git ref>`, with that ref's plugin (checked out in a temporary worktree);
 * - the got loop (test/restart/got-crawler.ts) without a store and with a store on a local file.
 * Then the write-ahead's cost: one Crawlee crawl of many fast pages (COST_HOSTS hosts x 10 pages,
 * 100 ms apart) with pace persisted and with `pacing.persistPace: false`, in turn, time from start to exit.
 *
 * Run alone (it judges timing): `tsx scripts/restart-gaps.ts [--before main] [--cost-only]`. Needs tcpdump and root
 * for wire times; otherwise it falls back loudly to the servers' logs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CrawlerChild,
  judgeHosts,
  killAndResume,
  type RestartHosts,
  startCrawlerChild,
  startRestartHosts,
} from '../test/restart/restart-run.js';

const HOSTS = 10;
const DELAY_S = 3;
const PAGES = 8;
const KILL_AFTER = 3;
const COST_HOSTS = 50;

const root = fileURLToPath(new URL('..', import.meta.url));
const beforeAt = process.argv.indexOf('--before');
const beforeRef = beforeAt >= 0 ? process.argv[beforeAt + 1] : undefined;
let subnet = 80;

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

interface Row {
  readonly case: string;
  readonly restartGapMs: string;
  readonly minPageGapMs: number;
  readonly robotsTxtPerOrigin: string;
  readonly missing: number;
  readonly twice: number;
  readonly load: string;
}

async function withHosts<T>(run: (restart: RestartHosts) => Promise<T>): Promise<T> {
  const restart = await startRestartHosts(HOSTS, DELAY_S, PAGES, `61.${subnet++}`);
  try {
    return await run(restart);
  } finally {
    await restart.close();
  }
}

function summarize(name: string, restart: RestartHosts, run: Awaited<ReturnType<typeof killAndResume>>): Row {
  if (run.secondExit.code !== 0) console.warn(`${name}: resumed crawler exited ${run.secondExit.code}`);
  const hosts = judgeHosts(run, restart);
  const gaps = hosts.map((h) => h.restartGapMs ?? Number.NaN);
  const robots = hosts.map((h) => h.robotsTxt);
  return {
    case: name,
    restartGapMs: `${Math.round(Math.min(...gaps))}-${Math.round(Math.max(...gaps))}`,
    minPageGapMs: Math.round(Math.min(...hosts.map((h) => h.minPageGapMs))),
    robotsTxtPerOrigin: `${Math.min(...robots)}-${Math.max(...robots)}`,
    missing: hosts.reduce((n, h) => n + h.missing.length, 0),
    twice: hosts.reduce((n, h) => n + h.twice.length, 0),
    load: load(),
  };
}

/**
 * One killed-and-resumed crawl on fresh hosts and a fresh folder: `start(restart, dir)` starts the
 * first crawler process and the one that resumes it, both loaded before the kill.
 */
async function killedCase(
  name: string,
  start: (restart: RestartHosts, dir: string) => readonly [CrawlerChild, CrawlerChild],
): Promise<Row> {
  return withHosts(async (restart) => {
    const dir = mkdtempSync(join(tmpdir(), 'politely-restart-gaps-'));
    try {
      const [first, again] = start(restart, dir);
      try {
        return summarize(name, restart, await killAndResume(restart.hosts, first, again, KILL_AFTER));
      } finally {
        for (const { child } of [first, again]) child.kill('SIGKILL');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

function crawleeCase(name: string, plugin: string | undefined): Promise<Row> {
  return killedCase(name, (restart, dir) => {
    const startUrls = JSON.stringify(restart.hosts.map((h) => h.url('/')));
    const env = {
      CRAWLEE_STORAGE_DIR: join(dir, 'storage'),
      ...(plugin ? { POLITELY_CRAWLEE_PLUGIN: plugin } : {}),
    };
    return [
      startCrawlerChild('./crawlee-crawler.ts', [startUrls], env),
      startCrawlerChild('./crawlee-crawler.ts', [startUrls], { ...env, CRAWLEE_PURGE_ON_START: 'false' }),
    ];
  });
}

function gotCase(name: string, withStore: boolean): Promise<Row> {
  return killedCase(name, (restart, dir) => {
    const storeFile = withStore ? join(dir, 'store.json') : '-';
    const urls = restart.hosts.flatMap((h) => restart.pages.map((path) => h.url(path)));
    // The got loop fetches its pages in order: the resumed one starts from the third.
    const left = restart.hosts.flatMap((h) => restart.pages.slice(KILL_AFTER - 1).map((path) => h.url(path)));
    return [
      startCrawlerChild('./got-crawler.ts', [storeFile, JSON.stringify(urls)], {}),
      startCrawlerChild('./got-crawler.ts', [storeFile, JSON.stringify(left)], {}),
    ];
  });
}

/** One Crawlee crawl without a kill, timed from `go` to its exit, ms. */
async function crawlTime(options: Record<string, unknown>): Promise<{ ms: number; pages: number }> {
  const restart = await startRestartHosts(COST_HOSTS, 0.1, 10, `61.${subnet++}`);
  const dir = mkdtempSync(join(tmpdir(), 'politely-restart-cost-'));
  try {
    const startUrls = JSON.stringify(restart.hosts.map((h) => h.url('/')));
    const child = startCrawlerChild('./crawlee-crawler.ts', [startUrls], {
      CRAWLEE_STORAGE_DIR: join(dir, 'storage'),
      POLITELY_CRAWLEE_OPTIONS: JSON.stringify({
        ...options,
        pacing: { minDelayMs: 100, ...(options.pacing as object | undefined) },
      }),
    });
    await child.ready;
    const startedAt = performance.now();
    child.go();
    const exit = await child.exited;
    const ms = performance.now() - startedAt;
    if (exit.code !== 0) throw new Error(`crawl exited ${exit.code}: ${exit.stderr}`);
    // A slow crawl says why here (a store timeout, Crawlee's warnings), not only in its time.
    if (exit.stderr.trim() !== '')
      console.warn(`crawl (${JSON.stringify(options)}) said: ${exit.stderr.slice(0, 2000)}`);
    const pages = restart.hosts.reduce((n, h) => n + h.log.filter((r) => r.path !== '/robots.txt').length, 0);
    return { ms, pages };
  } finally {
    await restart.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A worktree of `ref` sharing this tree's node_modules; returns its plugin's entry and a cleanup. */
function checkout(ref: string): { plugin: string; remove(): void } {
  const dir = join(tmpdir(), `politely-restart-before-${process.pid}`);
  execFileSync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: root, stdio: 'ignore' });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const plugin = join(dir, 'packages/crawlee-plugin/src/index.ts');
  if (!existsSync(plugin)) throw new Error(`no crawlee plugin at ${ref}`);
  return {
    plugin,
    remove: () => execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' }),
  };
}

const rows: Row[] = [];
const costOnly = process.argv.includes('--cost-only');
const before = beforeRef && !costOnly ? checkout(beforeRef) : undefined;
if (!costOnly) {
  try {
    if (before) rows.push(await crawleeCase(`crawlee quick start, ${beforeRef}`, before.plugin));
    rows.push(await crawleeCase('crawlee quick start, this tree', undefined));
    rows.push(await gotCase('got loop, no store', false));
    rows.push(await gotCase('got loop, store on a local file', true));
  } finally {
    before?.remove();
  }
  console.log(
    `\n${HOSTS} hosts, Crawl-delay ${DELAY_S} s, ${PAGES} pages each, SIGKILL after ${KILL_AFTER} requests per host:`,
  );
  console.table(rows);
}

const cost: Array<Record<string, unknown>> = [];
for (let round = 0; round < 2; round++) {
  for (const [name, options] of [
    ['pace persisted (default)', {}],
    ['pacing.persistPace: false', { pacing: { persistPace: false } }],
  ] as const) {
    const { ms, pages } = await crawlTime(options);
    cost.push({
      case: name,
      round,
      ms: Math.round(ms),
      pages,
      pagesPerS: Math.round((pages * 1000) / ms),
      load: load(),
    });
  }
}
console.log(
  `\nWrite-ahead cost: ${COST_HOSTS} hosts x 10 pages, minDelayMs 100, Crawlee defaults (storage on disk):`,
);
console.table(cost);
const mean = (name: string) => {
  const times = cost.filter((row) => row.case === name).map((row) => row.ms as number);
  return times.reduce((a, b) => a + b, 0) / times.length;
};
console.log(
  `time with pace persisted / without: ${(mean('pace persisted (default)') / mean('pacing.persistPace: false')).toFixed(3)}`,
);
