/**
 * As fast as politeness allows, judged at the wire, on the path Crawlee users take: CheerioCrawler
 * (maxConcurrency 50) over many loopback hosts with Crawlee's defaults (storage on disk under
 * ./storage, no Configuration anywhere) and pages found by `enqueueLinks`, the README's
 * `withPoliteness({ requestHandler }, { userAgent, pacing: { minDelayMs } })` beside plain Crawlee (same storage,
 * no pacing) in the same run. A second row keeps the earlier variant: in-memory storage handed to both,
 * every URL queued up front. The last row crawls an ordinary mix of pages (mixedPages) with Crawlee's
 * retries on, and accounts for each host's lost time by cause (pacing-account.ts).
 * Each crawl runs in its own process, in a fresh temporary working directory (Crawlee's ./storage
 * lands there), so its CPU time (user / system) is its own. Per host: violations (gaps under the asked
 * delay, no tolerance) and efficiency = bound / time taken, bound = (pages - 1) x delay. Needs tcpdump
 * and root (as the wire tests); falls back loudly to the servers' logs otherwise.
 * Run alone: `tsx bench/crawlee-pacing.ts`. Diagnostics (env): POLITELY_BENCH_TRACE (the pool's
 * concurrency over time and the queue's operations), POLITELY_BENCH_CPU_RATIO, POLITELY_BENCH_DESIRED,
 * POLITELY_BENCH_NODE_FLAGS (e.g. --cpu-prof), POLITELY_BENCH_BEFORE, POLITELY_BENCH_LOCKING=0.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type HostOptions, type RouteSpec, startHosts, type TestHost, text } from '../test/helpers/hosts.js';
import { judgePacing, startWireCapture } from '../test/helpers/wire.js';
import {
  accountFor,
  type CrawlContext,
  type HostAccount,
  type Mark,
  printAccount,
  Timeline,
} from './pacing-account.js';
import { summarizePacing } from './wire-summary.js';

type Storage = 'defaults' | 'memory';

interface Scenario {
  readonly name: string;
  readonly hosts: number;
  readonly pages: number;
  readonly delayMs: number;
  /** 'defaults': disk storage in the cwd, no Configuration, links found by enqueueLinks. */
  readonly storage: Storage;
  /**
   * An ordinary mix of pages beside the linked ones (mixedPages), crawled with Crawlee's retries and
   * session pool at their defaults: each host's time is accounted for by cause (pacing-account.ts).
   */
  readonly mix?: boolean;
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: "50 hosts x 20 pages, 1 s, Crawlee's defaults, links found",
    hosts: 50,
    pages: 20,
    delayMs: 1000,
    storage: 'defaults',
  },
  {
    name: "50 hosts x 20 pages, 500 ms, Crawlee's defaults, links found",
    hosts: 50,
    pages: 20,
    delayMs: 500,
    storage: 'defaults',
  },
  {
    name: '50 hosts x 20 pages, 500 ms, in memory, queued up front',
    hosts: 50,
    pages: 20,
    delayMs: 500,
    storage: 'memory',
  },
  {
    name: "50 hosts x 8 pages + a mix (1.5 s page, 500 then 200, 3 MB, PDF, image, 404, cross-host redirect), 1 s, Crawlee's defaults, links found",
    hosts: 50,
    pages: 8,
    delayMs: 1000,
    storage: 'defaults',
    mix: true,
  },
];

/** What the crawl process sends back. */
interface WorkerReport {
  readonly totalMs: number;
  readonly userCpuMs: number;
  readonly systemCpuMs: number;
  readonly finished: number;
  readonly failed: number;
}

interface WorkerTask {
  readonly origins: readonly string[];
  readonly pages: number;
  readonly delayMs: number;
  readonly polite: boolean;
  readonly storage: Storage;
  readonly mix?: boolean;
  /** Where @politely/crawlee is imported from: a build of an earlier commit, for before/after rows. */
  readonly plugin?: string;
}

interface Result extends WorkerReport {
  readonly boundMs: number;
  readonly violations: number;
  readonly smallestGapMs: number;
  readonly worstEfficiency: number;
  readonly medianEfficiency: number;
  /** The mix's polite crawl: each host's time by cause. */
  readonly account?: readonly HostAccount[];
}

/** The mix's timeline, written by the crawl process in its cwd. */
const TIMELINE_FILE = 'timeline.json';

/** Page i links to the next two pages of its host: the crawl finds its pages as it goes. */
function linkedPages(pages: number, more: Readonly<Record<number, readonly string[]>> = {}) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const i = Number(/^\/p(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    const links = [i + 1, i + 2]
      .filter((n) => n < pages)
      .map((n) => `/p${n}`)
      .concat(more[i] ?? [])
      .map((path) => `<a href="${path}">${path}</a>`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><body><p>page ${i}</p>${links.join('')}</body></html>`);
  };
}

/**
 * The mix's pages, linked from the ordinary ones: host i's page 1 + ((j + i) mod 6) links to
 * MIXED_LINKS[j] beside its next two pages, so each host meets the mix in its own order (and the
 * hosts do not all parse their 3 MB page at once).
 */
const MIXED_LINKS: readonly (readonly string[])[] = [
  ['/slow'],
  ['/flaky'],
  ['/big'],
  ['/doc.pdf', '/img.png'],
  ['/missing'],
  ['/moved'],
];

function mixedLinksOf(host: number): Record<number, readonly string[]> {
  return Object.fromEntries(MIXED_LINKS.map((links, j) => [1 + ((j + host) % MIXED_LINKS.length), links]));
}

/**
 * Host `index`'s ordinary mix: a page answered after 1.5 s, a 500 that is a 200 on the next try, a
 * 3 MB page, a PDF and an image (Cheerio refuses their Content-Type once the headers are in), a 404,
 * and a redirect to the next host's /landing, all linked from the linked pages.
 */
function mixedPages(pages: number, index: number, next: () => string): HostOptions {
  const page = linkedPages(pages, mixedLinksOf(index));
  const htmlPage = (body: string, status = 200): RouteSpec => ({
    status,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<html><body>${body}</body></html>`,
  });
  let flaky = 0;
  return {
    fallback: page,
    routes: {
      '/robots.txt': text('User-agent: *\nAllow: /\n'),
      '/slow': { ...htmlPage('<p>slow</p>'), delayMs: 1500 },
      '/flaky': (_req, res) => {
        const failing = flaky++ === 0;
        res.writeHead(failing ? 500 : 200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<html><body>${failing ? 'busy' : 'flaky, then fine'}</body></html>`);
      },
      '/big': htmlPage(`<p>${'big page '.repeat((3 * 2 ** 20) / 9)}</p>`),
      '/doc.pdf': { headers: { 'content-type': 'application/pdf' }, body: Buffer.alloc(200_000, 37) },
      '/img.png': { headers: { 'content-type': 'image/png' }, body: Buffer.alloc(50_000, 1) },
      '/missing': htmlPage('<p>not found</p>', 404),
      '/moved': (_req, res) => {
        res.writeHead(302, { location: `${next()}/landing` });
        res.end();
      },
      '/landing': htmlPage('<p>landed from another host</p>'),
    },
  };
}

async function crawlOnce(scenario: Scenario, polite: boolean, plugin?: string): Promise<Result> {
  const cwd = mkdtempSync(join(tmpdir(), 'politely-bench-'));
  const hosts: TestHost[] = await startHosts(
    scenario.hosts,
    (index) =>
      scenario.mix
        ? mixedPages(scenario.pages, index, () => hosts[(index + 1) % scenario.hosts]?.origin ?? '')
        : {
            fallback: linkedPages(scenario.pages),
            routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
          },
    100,
  );
  try {
    const capture = await startWireCapture(hosts);
    const task: WorkerTask = {
      origins: hosts.map((host) => host.origin),
      pages: scenario.pages,
      delayMs: scenario.delayMs,
      polite,
      storage: scenario.storage,
      ...(scenario.mix ? { mix: true } : {}),
      ...(plugin ? { plugin } : {}),
    };
    const report = await runWorker(task, cwd);
    const wire = await capture.stop();
    const judged = [...judgePacing(wire, scenario.delayMs).values()];
    const summary = summarizePacing(judged);
    const marks = scenario.mix ? (JSON.parse(readFileSync(join(cwd, TIMELINE_FILE), 'utf8')) as Mark[]) : [];
    const traceDir = process.env.POLITELY_BENCH_TRACE;
    if (scenario.mix && traceDir)
      writeFileSync(
        join(traceDir, `${polite ? 'polite' : 'plain'}-mix.json`),
        JSON.stringify({ wire, marks }),
      );
    return {
      ...report,
      ...(scenario.mix && polite ? { account: accountFor(wire, marks, scenario.delayMs) } : {}),
      // The mix's hosts differ (a redirect lands on the next one): the worst host's own bound.
      boundMs: scenario.mix
        ? ((judged.sort((a, b) => (a.efficiency ?? 1) - (b.efficiency ?? 1))[0]?.times.length ?? 1) - 1) *
          scenario.delayMs
        : (scenario.pages - 1) * scenario.delayMs,
      violations: summary.violations.length,
      smallestGapMs: summary.smallestGapMs ?? Number.POSITIVE_INFINITY,
      worstEfficiency: summary.worstEfficiency ?? 0,
      medianEfficiency: summary.medianEfficiency ?? 0,
    };
  } finally {
    await Promise.all(hosts.map((host) => host.close()));
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Runs this file as a crawl process in `cwd`; resolves with its report (its last stdout line). */
function runWorker(task: WorkerTask, cwd: string): Promise<WorkerReport> {
  const self = fileURLToPath(import.meta.url);
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tsx = join(root, 'node_modules', '.bin', 'tsx');
  // Node flags for the crawl process only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (NODE_OPTIONS
  // refuses --cpu-prof).
  const nodeFlags = (process.env.POLITELY_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...nodeFlags, self, '--worker', JSON.stringify(task)], {
      cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
      // tsx looks for tsconfig.json in the cwd, a fresh directory here: without the repo's, its paths
      // (the workspace packages' sources) are not applied and @politely/crawlee resolves to an absent dist/.
      env: { ...process.env, TSX_TSCONFIG_PATH: join(root, 'tsconfig.json') },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`crawl process exited with ${code}: ${out}`));
      else resolve(JSON.parse(last) as WorkerReport);
    });
  });
}

/** The crawl itself, in its own process: Crawlee's defaults unless the task says memory. */
async function workerMain(task: WorkerTask): Promise<void> {
  const { CheerioCrawler } = await import('@crawlee/cheerio');
  const { Configuration, GotScrapingHttpClient, LogLevel, log } = await import('@crawlee/core');
  // The mix is traced (what each request went through, for pacing-account.ts), into the cwd.
  const timeline = task.mix ? new Timeline() : undefined;
  const { withPoliteness } = (await import(
    task.plugin ? pathToFileURL(task.plugin).href : '@politely/crawlee'
  )) as typeof import('@politely/crawlee');
  log.setLevel(LogLevel.OFF);
  // `POLITELY_BENCH_CPU_RATIO=1.01`: Crawlee's pool never counts the machine's CPU as overloaded (a
  // diagnostic for a shared machine: others' load makes both crawls run one task at a time).
  const cpuRatio = Number(process.env.POLITELY_BENCH_CPU_RATIO);
  if (cpuRatio > 0) Configuration.getGlobalConfig().set('maxUsedCpuRatio', cpuRatio);
  const config =
    task.storage === 'memory'
      ? new Configuration({
          persistStorage: false,
          storageClientOptions: { persistStorage: false, writeMetadata: false },
        })
      : undefined;
  // `POLITELY_BENCH_DESIRED=20`: the pool starts at that concurrency instead of HttpCrawler's 10 (its
  // other defaults kept), a diagnostic: Crawlee scales up 5% every 10 s, so a 10 s crawl keeps its start.
  const desired = Number(process.env.POLITELY_BENCH_DESIRED);
  const options = {
    ...(desired > 0
      ? {
          autoscaledPoolOptions: {
            desiredConcurrency: desired,
            snapshotterOptions: { eventLoopSnapshotIntervalSecs: 2, maxBlockedMillis: 100 },
            systemStatusOptions: { maxEventLoopOverloadedRatio: 0.7 },
          },
        }
      : {}),
    // `POLITELY_BENCH_LOCKING=0`: both crawls on Crawlee's queue without request locking (RequestQueueV1,
    // `experiments.requestLocking: false`), a diagnostic for the disk queue's refills, which re-read every
    // locked request (issue 20.1).
    ...(process.env.POLITELY_BENCH_LOCKING === '0' ? { experiments: { requestLocking: false } } : {}),
    maxConcurrency: 50,
    // The mix is crawled as the quick start crawls: its 500 recovers on Crawlee's retry.
    ...(task.mix ? {} : { maxRequestRetries: 0, useSessionPool: false }),
    requestHandler: async ({ enqueueLinks, request }: CrawlContext) => {
      timeline?.record('handler', request.url);
      if (task.storage === 'defaults') await enqueueLinks();
      timeline?.record('handler-end', request.url);
    },
    ...(timeline ? timeline.crawlerOptions(new GotScrapingHttpClient()) : {}),
  };
  const politeness = {
    userAgent: 'BenchBot/1.0',
    pacing: { minDelayMs: task.delayMs },
    ...(timeline ? { onEvent: timeline.onEvent } : {}),
  };
  const crawlerOptions = task.polite
    ? withPoliteness(options, politeness, config ? { config } : {})
    : options;
  const crawler = new CheerioCrawler(crawlerOptions, config);
  const urls =
    task.storage === 'defaults'
      ? task.origins.map((origin) => `${origin}/p0`)
      : task.origins.flatMap((origin) => Array.from({ length: task.pages }, (_, i) => `${origin}/p${i}`));
  const queueOps = process.env.POLITELY_BENCH_TRACE ? countQueueOperations() : undefined;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const trace = traceThePool(crawler, started, queueOps);
  const stopWatching = timeline?.watch(crawler);
  const stats = await crawler.run(urls);
  const totalMs = performance.now() - started;
  trace?.();
  stopWatching?.();
  timeline?.write(TIMELINE_FILE);
  const used = process.cpuUsage(cpu);
  const report: WorkerReport = {
    totalMs,
    userCpuMs: used.user / 1000,
    systemCpuMs: used.system / 1000,
    finished: stats.requestsFinished,
    failed: stats.requestsFailed,
  };
  console.log(JSON.stringify(report));
}
/**
 * `POLITELY_BENCH_TRACE=<dir>`: every 100 ms, the autoscaled pool's concurrency (running / desired),
 * whether Crawlee's system status let it start a task, and the pages done, one JSON line each, to
 * `<dir>/<plain|polite>-<pid>.jsonl`. To see whether a crawl runs fewer tasks than it could. And the
 * queue's operations (`countQueueOperations`) to `<dir>/<plain|polite>-<pid>.queue.json`.
 */
function traceThePool(
  crawler: object,
  started: number,
  queueOps: QueueOps | undefined,
): (() => void) | undefined {
  const dir = process.env.POLITELY_BENCH_TRACE;
  if (!dir) return undefined;
  const seen = crawler as {
    autoscaledPool?: {
      currentConcurrency: number;
      desiredConcurrency: number;
      systemStatus?: { getCurrentStatus(): Record<string, { isOverloaded?: boolean } | boolean> };
    };
    stats: { state: { requestsFinished: number } };
    requestQueue?: { hosts?(): unknown; parkedRequestIds?(): string[]; handedOut?: number };
  };
  const lines: string[] = [];
  const timer = setInterval(() => {
    const pool = seen.autoscaledPool;
    if (!pool) return;
    const status = pool.systemStatus?.getCurrentStatus();
    const overloaded = status
      ? Object.entries(status).flatMap(([k, v]) => (typeof v === 'object' && v?.isOverloaded ? [k] : []))
      : [];
    lines.push(
      JSON.stringify({
        t: Math.round(performance.now() - started),
        running: pool.currentConcurrency,
        desired: pool.desiredConcurrency,
        overloaded,
        done: seen.stats.state.requestsFinished,
        parked: seen.requestQueue?.parkedRequestIds?.().length,
        handedOut: seen.requestQueue?.handedOut,
      }),
    );
  }, 100);
  return () => {
    clearInterval(timer);
    const polite = seen.requestQueue && 'hosts' in seen.requestQueue ? 'polite' : 'plain';
    writeFileSync(join(dir, `${polite}-${process.pid}.jsonl`), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, `${polite}-${process.pid}.queue.json`), JSON.stringify(queueOps, null, 1));
  };
}

/** Calls and wall time of RequestQueue v2's operations, and of the disk storage's head refills. */
interface QueueOps {
  /** `listAndLockHead` calls of the storage (each a refill of the queue's head). */
  refills: number;
  refillMs: number;
  /** Request files read from disk (a refill reads every locked request it passes). */
  fileReads: number;
  calls: Record<string, { n: number; ms: number; maxMs: number }>;
}

/**
 * Wraps Crawlee's RequestQueue (v2) and its disk storage client, in this crawl process only: their
 * files are not exported, so they are required by path from the repository's node_modules (the same
 * module instances the crawler loads).
 */
function countQueueOperations(): QueueOps {
  const ops: QueueOps = { refills: 0, refillMs: 0, fileReads: 0, calls: {} };
  const modules = fileURLToPath(new URL('../node_modules/', import.meta.url));
  const load = createRequire(import.meta.url);
  type Methods = Record<string, (...args: unknown[]) => Promise<unknown>>;
  const storage = load(join(modules, '@crawlee/memory-storage/resource-clients/request-queue.js'));
  const entry = load(join(modules, '@crawlee/memory-storage/fs/request-queue/fs.js'));
  const queue = load(join(modules, '@crawlee/core/storages/request_queue_v2.js'));
  const storageMethods = storage.RequestQueueClient.prototype as Methods;
  const list = storageMethods.listAndLockHead as Methods[string];
  storageMethods.listAndLockHead = async function (this: unknown, ...args: unknown[]) {
    ops.refills++;
    const t0 = performance.now();
    try {
      return await list.apply(this, args);
    } finally {
      ops.refillMs += performance.now() - t0;
    }
  };
  const entryMethods = entry.RequestQueueFileSystemEntry.prototype as Methods;
  const get = entryMethods.get as Methods[string];
  entryMethods.get = function (this: { data?: unknown }, force?: unknown) {
    if (force || !this.data) ops.fileReads++;
    return get.call(this, force);
  };
  const queueMethods = queue.RequestQueue.prototype as Methods;
  const names = ['fetchNextRequest', 'isEmpty', 'addRequestsBatched', 'addRequests', 'markRequestHandled'];
  for (const name of names) {
    const original = queueMethods[name];
    if (!original) continue;
    queueMethods[name] = async function (this: unknown, ...args: unknown[]) {
      const t0 = performance.now();
      try {
        return await original.apply(this, args);
      } finally {
        const ms = performance.now() - t0;
        const call = ops.calls[name] ?? { n: 0, ms: 0, maxMs: 0 };
        ops.calls[name] = call;
        call.n++;
        call.ms += ms;
        call.maxMs = Math.max(call.maxMs, ms);
      }
    };
  }
  return ops;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * `POLITELY_BENCH_BEFORE=<path to an index.js of @politely/crawlee>`, or to the index.ts of an earlier
 * commit's packages/crawlee-plugin/src copied inside the repository (`git archive <commit>
 * packages/crawlee-plugin/src | tar -x -C .bench-before`; tsx applies the repo's paths there, not in
 * /tmp): also runs that build (an earlier
 * commit's), so before and after are measured in the same run.
 */
export async function runCrawleePacingBench(): Promise<void> {
  const before = process.env.POLITELY_BENCH_BEFORE;
  console.log('CheerioCrawler, maxConcurrency 50, each crawl in its own process, judged at the wire\n');
  console.log(
    '| scenario | crawl | total | bound | gaps under the delay | smallest gap | efficiency worst / median | CPU user + sys | time / plain Crawlee | load (1 min) |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  // `POLITELY_BENCH_ROWS=0,1`: only these scenarios (their index in SCENARIOS).
  const only = process.env.POLITELY_BENCH_ROWS?.split(',').map(Number);
  for (const scenario of SCENARIOS.filter((_, i) => !only || only.includes(i))) {
    const rows: [string, Result, number][] = [];
    const crawl = async (label: string, polite: boolean, plugin?: string) => {
      const result = await crawlOnce(scenario, polite, plugin);
      rows.push([label, result, loadavg()[0] ?? 0]);
      return result;
    };
    const plain = await crawl('plain Crawlee', false);
    const politeLabel = `withPoliteness({ pacing: { minDelayMs: ${scenario.delayMs} } })`;
    await crawl(politeLabel, true);
    if (before) await crawl(`${politeLabel}, before`, true, before);
    for (const [label, r, load] of rows) {
      const isPolite = label !== 'plain Crawlee';
      const gap = Number.isFinite(r.smallestGapMs) ? `${r.smallestGapMs.toFixed(1)} ms` : '-';
      const pages = `${r.finished} pages${r.failed ? `, ${r.failed} failed` : ''}`;
      console.log(
        `| ${scenario.name} | ${label} (${pages}) | ${seconds(r.totalMs)} | ${seconds(r.boundMs)} | ${isPolite ? r.violations : '-'} | ${gap} | ${isPolite ? `${r.worstEfficiency.toFixed(2)} / ${r.medianEfficiency.toFixed(2)}` : '-'} | ${seconds(r.userCpuMs)} + ${seconds(r.systemCpuMs)} | ${(r.totalMs / plain.totalMs).toFixed(2)}x | ${load.toFixed(1)} |`,
      );
    }
    for (const [label, r] of rows) {
      if (!r.account) continue;
      console.log(`\n${scenario.name}, ${label}:`);
      printAccount(r.account, scenario.delayMs);
      console.log('');
    }
  }
}

const workerAt = process.argv.indexOf('--worker');
if (workerAt >= 0) {
  await workerMain(JSON.parse(process.argv[workerAt + 1] ?? '{}') as WorkerTask);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runCrawleePacingBench();
}
