/**
 * The frontier at breadth (issue 25 point 3), the working tree against the code before it, in one run:
 *
 * - parked: n hosts with one item each parked (n = 10k, 100k, 1M), none due; then every one due.
 *   admit per call, heap per parked host, hasReady/earliestDue per call while none is due, takeDue
 *   per call while all are (each item finished as it comes). The politeness is a stand-in with no I/O
 *   (robots.txt "in memory", due times from the host's number), so only the frontier is timed.
 * - counters: n hosts handed out once each and sent (n = 1M): heap the frontier keeps, and one hosts().
 * - crawl: 8,000 URLs on distinct hosts (POLITELY_BENCH_URLS to change), 20 workers on the README's
 *   worker-pool loop with the frontier's defaults, politeFetch over a stand-in fetch answering every
 *   request (robots.txt and pages) after 20 ms: wall time, CPU time, robots.txt fetches at once (peak).
 *
 * "before" is the frontier of badac0e from a worktree: `git worktree add /tmp/frontier-before badac0e`
 * (POLITELY_BENCH_BEFORE to point elsewhere); without it only "after" runs. Both copies share this
 * tree's politeness (unchanged by the frontier work). Figures, never assertions; `uptime` is printed
 * with each part. Run alone: `npm run bench -- frontier` (node --max-old-space-size=4096 for 1M).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { createFrontier as CreateFrontierFn } from '../packages/core/src/frontier/frontier.js';
import type { AllowedDecision, Politeness } from '../packages/core/src/index.js';
import { createPoliteness } from '../packages/core/src/index.js';
import { politeFetch } from '../packages/fetch/src/index.js';

type CreateFrontier = typeof CreateFrontierFn;
interface Version {
  readonly name: string;
  readonly createFrontier: CreateFrontier;
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const load = () =>
  execFileSync('uptime', { encoding: 'utf8' })
    .trim()
    .replace(/.*load/, 'load');
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const us = (ms: number) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(2)} µs`);

async function versions(): Promise<Version[]> {
  const after: Version = {
    name: 'after',
    createFrontier: (await import('../packages/core/src/frontier/frontier.js')).createFrontier,
  };
  const beforeDir = process.env.POLITELY_BENCH_BEFORE ?? '/tmp/frontier-before';
  const beforeFile = `${beforeDir}/packages/core/src/frontier/frontier.ts`;
  if (!existsSync(beforeFile)) {
    console.log(`(no ${beforeFile}: "before" skipped; git worktree add ${beforeDir} badac0e)`);
    return [after];
  }
  const before: Version = {
    name: 'before',
    createFrontier: (await import(pathToFileURL(beforeFile).href)).createFrontier,
  };
  return [before, after];
}

/** Host `h<i>.test` is due at T0 + i (ms); the stand-in's clock is `clock.now`. */
const T0 = 1_000_000_000;
const clock = { now: T0 };
const hostOf = (url: string) => url.slice(7, url.indexOf('/', 7));
const decisionOf = (url: string): AllowedDecision => ({
  allowed: true,
  reason: 'allowed',
  url,
  robotsUrl: `http://${hostOf(url)}/robots.txt`,
  productToken: 'benchbot',
  source: 'robots.txt',
  delayMs: 1000,
  hostKey: hostOf(url),
});

/** The politeness methods a frontier calls, without I/O. */
const standIn = {
  hostKey: hostOf,
  checkCached: decisionOf,
  check: async (url: string) => decisionOf(url),
  prefetch: () => {},
  nextStart: async (decision: AllowedDecision) =>
    T0 + Number(decision.hostKey.slice(1, decision.hostKey.indexOf('.'))),
  markSent: async () => {},
} as unknown as Politeness;

/** Calls `call` until `budgetMs` passed or `max` calls; ms per call. */
async function perCall(call: () => unknown, budgetMs: number, max: number): Promise<[number, number]> {
  const start = performance.now();
  let calls = 0;
  while (calls < max && performance.now() - start < budgetMs) {
    await call();
    calls++;
  }
  return [(performance.now() - start) / calls, calls];
}

async function parkedRow(version: Version, n: number): Promise<string> {
  clock.now = T0 - 1; // nothing due
  const frontier = version.createFrontier<{ url: string }>(standIn, {
    now: () => clock.now,
    logger: false,
    maxParked: Number.POSITIVE_INFINITY,
  });
  const heapBefore = heapAfterGc();
  const start = performance.now();
  for (let i = 0; i < n; i++) await frontier.admit({ url: `http://h${i}.test/` });
  const admitMs = (performance.now() - start) / n;
  const heap = (heapAfterGc() - heapBefore) / n;
  if (frontier.size !== n) throw new Error(`expected ${n} parked, got ${frontier.size}`);
  const [readyMs] = await perCall(() => frontier.hasReady(), 500, 100_000);
  const [earliestMs] = await perCall(() => frontier.earliestDue(), 500, 100_000);
  clock.now = T0 + n; // every host due
  const [takeMs, taken] = await perCall(
    async () => {
      const item = await frontier.takeDue();
      if (!item) throw new Error('expected a due item');
      frontier.finished(item);
    },
    1500,
    Math.min(n, 20_000),
  );
  return `${version.name.padEnd(6)} ${String(n).padStart(9)} | admit ${us(admitMs).padStart(9)} | ${String(Math.round(heap)).padStart(4)} B/host | hasReady ${us(readyMs).padStart(9)} | earliestDue ${us(earliestMs).padStart(9)} | takeDue ${us(takeMs).padStart(9)} (${taken} calls)`;
}

async function countersRow(version: Version, n: number): Promise<string> {
  clock.now = T0 + n; // every host due at once
  const frontier = version.createFrontier<{ url: string }>(standIn, { now: () => clock.now, logger: false });
  const heapBefore = heapAfterGc();
  for (let i = 0; i < n; i++) {
    const url = `http://h${i}.test/`;
    if (!(await frontier.admit({ url }))) throw new Error('expected the item handed out');
    frontier.sent(decisionOf(url), clock.now);
  }
  const heap = heapAfterGc() - heapBefore;
  const start = performance.now();
  const listed = frontier.hosts().length;
  const hostsMs = performance.now() - start;
  return `${version.name.padEnd(6)} ${String(n).padStart(9)} hosts handed out | frontier keeps +${mib(heap)} | hosts() ${us(hostsMs)} (${listed} hosts listed)`;
}

/** The README's worker pool over `urls` distinct hosts; every request answered after `latencyMs`. */
async function crawlRow(version: Version, urls: number, workers: number, latencyMs: number): Promise<string> {
  let robotsInFlight = 0;
  let peakRobots = 0;
  let pages = 0;
  const standInFetch = async (input: unknown) => {
    const url = String(input instanceof Request ? input.url : input);
    const robots = url.endsWith('/robots.txt');
    if (robots) peakRobots = Math.max(peakRobots, ++robotsInFlight);
    await new Promise((resolve) => setTimeout(resolve, latencyMs));
    if (robots) robotsInFlight--;
    else pages++;
    return new Response(robots ? 'User-agent: *\nAllow: /\n' : 'page', {
      headers: { 'content-type': 'text/plain' },
    });
  };
  const politeness = createPoliteness({
    userAgent: 'BenchBot/1.0 (+https://example.test)',
    robots: { fetch: standInFetch as never },
    logger: false,
  });
  const fetchPolitely = politeFetch(politeness, { fetch: standInFetch as typeof fetch });
  const frontier = version.createFrontier<{ url: string }>(politeness, { logger: false });
  const todo = Array.from({ length: urls }, (_, i) => ({ url: `http://h${i}.crawl.test/page` }));
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const worker = async () => {
    for (;;) {
      const item = await frontier.next(() => todo.shift());
      if (item) {
        try {
          await (await fetchPolitely(item.url)).text();
        } finally {
          frontier.finished(item);
        }
      } else if (!(await frontier.waitForWork({ sourceEmpty: () => todo.length === 0 }))) {
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  const wallS = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await politeness.close();
  return `${version.name.padEnd(6)} ${urls} URLs, ${workers} workers | ${wallS.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU | ${pages} pages | robots.txt fetches at once: ${peakRobots}`;
}

export async function runFrontierBench(): Promise<void> {
  const all = await versions();
  const sizes = (process.env.POLITELY_BENCH_HOSTS ?? '10000,100000,1000000').split(',').map(Number);
  console.log(`\nfrontier: n hosts with one item parked each (stand-in politeness, no I/O) — ${load()}`);
  for (const n of sizes) for (const version of all) console.log(await parkedRow(version, n));
  const counted = Number(process.env.POLITELY_BENCH_COUNTED ?? 1_000_000);
  console.log(`\nfrontier: per-host counters — ${load()}`);
  for (const version of all) console.log(await countersRow(version, counted));
  const urls = Number(process.env.POLITELY_BENCH_URLS ?? 8000);
  console.log(`\nfrontier: worker pool, defaults, politeFetch, 20 ms a request — ${load()}`);
  for (const version of all) console.log(`${await crawlRow(version, urls, 20, 20)} — ${load()}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runFrontierBench();
