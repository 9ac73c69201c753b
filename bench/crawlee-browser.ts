/**
 * Browser crawlers on the path Crawlee users take, judged at the wire: PlaywrightCrawler and
 * PuppeteerCrawler on Debian's Chromium with Crawlee's defaults (storage on disk under ./storage, in a
 * temporary working directory; no Configuration handed to anyone), 3 hosts x 8 pages whose links are
 * found by `enqueueLinks`, each host asking `Crawl-delay: 2`. The same crawl without politely runs
 * beside it, so the machine's own limit is in the same run: on 2 cores a browser is often CPU-bound.
 * Per host: gaps between navigations under the asked delay (no tolerance), efficiency = bound / time
 * taken (bound = (pages - 1) x delay), and every request the browser sent beside the pages
 * (a favicon) with the gaps it made, the load average as the crawl started, and the CPU time (user +
 * sys) the crawl process and its browser used. Needs tcpdump and root; falls back loudly to the
 * servers' logs.
 * Run alone: `tsx bench/crawlee-browser.ts`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LogLevel, log } from '@crawlee/core';
import { PlaywrightCrawler, type PlaywrightCrawlerOptions } from '@crawlee/playwright';
import { PuppeteerCrawler, type PuppeteerCrawlerOptions } from '@crawlee/puppeteer';
import { politenessOf, withPoliteness } from '@politely/crawlee';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import {
  type BrowserKind,
  browserUnavailable,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
} from '../test/helpers/chromium.js';
import { html, startHosts, type TestHost, text } from '../test/helpers/hosts.js';
import { judgePacing, startWireCapture, type WireRequest } from '../test/helpers/wire.js';
import { formatEfficiency, summarizePacing } from './wire-summary.js';

const HOSTS = 3;
const PAGES = 8;
const DELAY_MS = 2000;
const BOUND_MS = (PAGES - 1) * DELAY_MS;

/** A site of PAGES pages, each linking to every other (a menu), so enqueueLinks finds them from `/`. */
function site(): { fallback: ReturnType<typeof html>; routes: Record<string, ReturnType<typeof text>> } {
  const links = Array.from({ length: PAGES - 1 }, (_, i) => `<a href="/p${i + 1}">page ${i + 1}</a>`);
  return {
    fallback: html(`<!doctype html><title>page</title><nav>${links.join(' ')}</nav><p>page</p>`),
    routes: { '/robots.txt': text(`User-agent: *\nCrawl-delay: ${DELAY_MS / 1000}\nAllow: /\n`) },
  };
}

const isPage = (request: WireRequest) => request.path === '/' || /^\/p\d+$/.test(request.path);
const isRobots = (request: WireRequest) => request.path === '/robots.txt';

interface Result {
  readonly handled: number;
  /** CPU seconds (user + sys) of the crawl's process and its browser; set by the parent. */
  cpuS?: number;
  readonly totalMs: number;
  readonly load: string;
  /** Navigations only. */
  readonly pages: ReturnType<typeof summarizePacing>;
  /** Every request but robots.txt: pages and whatever the browser sent beside them. */
  readonly everything: ReturnType<typeof summarizePacing>;
  /** Requests that were neither a page nor robots.txt: [path, count]. */
  readonly others: [string, number][];
}

/**
 * One crawl in a process of its own, in a fresh working directory: Crawlee's default storage
 * (./storage, on disk) and its global Configuration start from nothing, as in a user's first run.
 */
function crawlInChild(kind: BrowserKind, polite: boolean): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'politely-bench-browser-'));
  const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
  const cpuBefore = childrenCpuSeconds();
  const child = spawn(tsx, [fileURLToPath(import.meta.url), CHILD, kind, String(polite)], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'inherit'],
    // The working directory is a fresh one: tsx finds the repository's tsconfig (its paths send
    // @politely/* to the sources, as everywhere in the repository) only when told where it is.
    env: { ...process.env, TSX_TSCONFIG_PATH: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) },
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  return new Promise<Result>((resolve, reject) => {
    child.once('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      const line = out.split('\n').find((l) => l.startsWith(RESULT));
      if (code === 0 && line) {
        const result = JSON.parse(line.slice(RESULT.length)) as Result;
        result.cpuS = childrenCpuSeconds() - cpuBefore;
        resolve(result);
      } else reject(new Error(`the ${kind} crawl exited with ${code}: ${out.slice(-2000)}`));
    });
  });
}

/**
 * CPU seconds (user + sys) of this process's children that have ended and were waited for, their own
 * children included (the kernel's cutime and cstime, /proc/self/stat fields 16 and 17): read before and
 * after a crawl, the crawl process's and its browser's. NaN where /proc is not there.
 */
function childrenCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): cutime is field 16, cstime field 17.
    return (Number(fields[13]) + Number(fields[14])) / clockTicks();
  } catch {
    return Number.NaN;
  }
}

let ticks: number | undefined;
function clockTicks(): number {
  ticks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  return ticks;
}

const CHILD = '--crawl';
const RESULT = 'RESULT ';

async function crawlOnce(kind: BrowserKind, polite: boolean): Promise<Result> {
  const hosts: TestHost[] = await startHosts(HOSTS, site, 230);
  const profile = mkdtempSync(join(tmpdir(), `politely-bench-${kind}-`));
  let handled = 0;
  try {
    const base = {
      requestHandler: async ({ enqueueLinks }: { enqueueLinks: () => Promise<unknown> }) => {
        handled++;
        await enqueueLinks();
      },
      launchContext: {
        launcher: kind === 'playwright' ? chromium : puppeteer,
        userDataDir: profile,
        launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true },
      },
    };
    const options = polite ? withPoliteness(base, { userAgent: 'BenchBot/1.0' }) : base;
    const crawler =
      kind === 'playwright'
        ? new PlaywrightCrawler(options as PlaywrightCrawlerOptions)
        : new PuppeteerCrawler(options as PuppeteerCrawlerOptions);
    const load = loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
    const capture = await startWireCapture(hosts);
    const started = performance.now();
    try {
      await crawler.run(hosts.map((host) => host.url('/')));
    } finally {
      // run() tears the pool down at its end; this covers a run that threw (it may have nothing to tear).
      await crawler.teardown().catch(() => undefined);
      if (polite) await politenessOf(options).close();
    }
    const totalMs = performance.now() - started;
    const seen = (await capture.stop()).filter((request) => !isRobots(request));
    const others = new Map<string, number>();
    for (const request of seen.filter((r) => !isPage(r)))
      others.set(request.path, (others.get(request.path) ?? 0) + 1);
    return {
      handled,
      totalMs,
      load,
      pages: summarizePacing([...judgePacing(seen.filter(isPage), DELAY_MS).values()]),
      everything: summarizePacing([...judgePacing(seen, DELAY_MS).values()]),
      others: [...others],
    };
  } finally {
    await Promise.all(hosts.map((host) => host.close()));
    rmSync(profile, { recursive: true, force: true });
  }
}

const KINDS: readonly BrowserKind[] = ['playwright', 'puppeteer'];

export async function runCrawleeBrowserBench(): Promise<void> {
  const unavailable = browserUnavailable();
  if (unavailable) {
    console.log(`skipped: ${unavailable}`);
    return;
  }
  log.setLevel(LogLevel.OFF);
  console.log(
    `${HOSTS} hosts x ${PAGES} pages at Crawl-delay ${DELAY_MS / 1000} s, links found by enqueueLinks, ` +
      `Crawlee's defaults (storage on disk), judged at the wire; bound ${BOUND_MS / 1000} s per host\n`,
  );
  console.log(
    '| crawler | crawl | pages | total | navigations: gaps under the delay / efficiency worst / median | every request but robots.txt: gaps under the delay | other requests | CPU (user+sys) | load (1/5/15 min) |',
  );
  console.log('| --- | --- | ---: | ---: | --- | --- | --- | ---: | --- |');
  for (const kind of KINDS) {
    const name = kind === 'playwright' ? 'PlaywrightCrawler' : 'PuppeteerCrawler';
    const totals: Record<string, number> = {};
    for (const polite of [true, false]) {
      const r = await crawlInChild(kind, polite);
      const crawl = polite ? 'withPoliteness' : 'plain Crawlee';
      totals[crawl] = r.totalMs;
      const others = [...r.others].map(([path, count]) => `${path} x${count}`).join(', ') || 'none';
      console.log(
        `| ${name} | ${crawl} | ${r.handled} | ${(r.totalMs / 1000).toFixed(1)} s | ${r.pages.violations.length} / ${formatEfficiency(r.pages)} | ${r.everything.violations.length} | ${others} | ${r.cpuS?.toFixed(1)} s | ${r.load} |`,
      );
    }
    const ratio = (totals.withPoliteness ?? 0) / (totals['plain Crawlee'] ?? 1);
    console.log(`| ${name} | politely / plain | | ${ratio.toFixed(2)}x | | | | | |`);
  }
  console.log(
    "\nPlain Crawlee ignores Crawl-delay: its gaps are the machine's pace, so only politely's are judged against the delay.",
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [flag, kind, polite] = process.argv.slice(2);
  if (flag === CHILD) {
    log.setLevel(LogLevel.OFF);
    const result = await crawlOnce(kind as BrowserKind, polite === 'true');
    console.log(`${RESULT}${JSON.stringify(result)}`);
  } else {
    await runCrawleeBrowserBench();
  }
}
