/**
 * As fast as politeness allows, judged at the wire: CheerioCrawler (maxConcurrency 50) over many
 * loopback hosts, with `withPoliteness({ minDelayMs })`, and the same crawl without politely (what the
 * machine itself allows). Per host: violations (gaps under the asked delay, no tolerance) and
 * efficiency = bound / time taken, where bound = (pages - 1) x delay. Needs tcpdump and root (as the
 * wire tests); falls back loudly to the servers' logs otherwise.
 * Run alone: `tsx bench/crawlee-pacing.ts [--disk]` (`--disk`: Crawlee's default
 * storage on disk, in a temporary folder, instead of memory).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import { Configuration, LogLevel, log } from '@crawlee/core';
import { withPoliteness } from '@politely/crawlee';
import { html, startHosts, type TestHost, text } from '../test/helpers/hosts.js';
import { judgePacing, startWireCapture } from '../test/helpers/wire.js';
import { summarizePacing } from './wire-summary.js';

interface Scenario {
  readonly name: string;
  readonly hosts: number;
  readonly pages: number;
  readonly delayMs: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: '50 hosts x 20 pages, 500 ms', hosts: 50, pages: 20, delayMs: 500 },
  { name: '10 hosts x 20 pages, 200 ms', hosts: 10, pages: 20, delayMs: 200 },
];

interface Result {
  readonly crawl: string;
  readonly totalMs: number;
  readonly boundMs: number;
  readonly violations: number;
  readonly smallestGapMs: number;
  readonly worstEfficiency: number;
  readonly medianEfficiency: number;
  /** Slowest host's span over the bound (the target is at most 1.1). */
  readonly worstSpanOverBound: number;
}

async function crawlOnce(scenario: Scenario, polite: boolean, disk: boolean): Promise<Result> {
  const dir = disk ? mkdtempSync(join(tmpdir(), 'politely-bench-')) : undefined;
  const config = new Configuration({
    persistStorage: disk,
    purgeOnStart: true,
    storageClientOptions: dir ? { localDataDirectory: dir } : { persistStorage: false, writeMetadata: false },
  });
  const hosts: TestHost[] = await startHosts(
    scenario.hosts,
    () => ({ fallback: html('<p>page</p>'), routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') } }),
    100,
  );
  try {
    const options: CheerioCrawlerOptions = {
      maxConcurrency: 50,
      maxRequestRetries: 0,
      useSessionPool: false,
      requestHandler: async () => {},
    };
    const crawler = new CheerioCrawler(
      polite
        ? withPoliteness(options, { userAgent: 'BenchBot/1.0', minDelayMs: scenario.delayMs }, { config })
        : options,
      config,
    );
    const urls = hosts.flatMap((host) =>
      Array.from({ length: scenario.pages }, (_, i) => host.url(`/p${i}`)),
    );
    const capture = await startWireCapture(hosts);
    const started = performance.now();
    await crawler.run(urls);
    const totalMs = performance.now() - started;
    const judged = [...judgePacing(await capture.stop(), scenario.delayMs).values()];
    const summary = summarizePacing(judged);
    const boundMs = (scenario.pages - 1) * scenario.delayMs;
    const spans = judged.map((host) => (host.times.at(-1) ?? 0) - (host.times[0] ?? 0));
    return {
      crawl: polite ? `withPoliteness({ minDelayMs: ${scenario.delayMs} })` : 'without politely',
      totalMs,
      boundMs,
      violations: summary.violations.length,
      smallestGapMs: summary.smallestGapMs ?? Number.POSITIVE_INFINITY,
      worstEfficiency: summary.worstEfficiency ?? 0,
      medianEfficiency: summary.medianEfficiency ?? 0,
      worstSpanOverBound: Math.max(...spans) / boundMs,
    };
  } finally {
    await Promise.all(hosts.map((host) => host.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

export async function runCrawleePacingBench(disk = process.argv.includes('--disk')): Promise<void> {
  log.setLevel(LogLevel.OFF);
  console.log(
    `CheerioCrawler, maxConcurrency 50, storage ${disk ? 'on disk' : 'in memory'}, judged at the wire\n`,
  );
  console.log(
    '| scenario | crawl | total | bound | violations | smallest gap | efficiency worst / median | slowest host / bound |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const scenario of SCENARIOS) {
    for (const polite of [true, false]) {
      const r = await crawlOnce(scenario, polite, disk);
      const gap = Number.isFinite(r.smallestGapMs) ? `${r.smallestGapMs.toFixed(1)} ms` : '-';
      console.log(
        `| ${scenario.name} | ${r.crawl} | ${(r.totalMs / 1000).toFixed(1)} s | ${(r.boundMs / 1000).toFixed(1)} s | ${polite ? r.violations : '-'} | ${gap} | ${polite ? `${r.worstEfficiency.toFixed(2)} / ${r.medianEfficiency.toFixed(2)}` : '-'} | ${polite ? r.worstSpanOverBound.toFixed(2) : '-'} |`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runCrawleePacingBench();
