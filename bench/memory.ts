/**
 * Memory at internet scale (issue 10): heap after GC, typed arrays' buffers included.
 *
 * - rules: 10,000 distinct origins (POLITELY_BENCH_ORIGINS to change), each serving a hostile ~500 KB
 *   robots.txt of ~20,000 distinct wildcard rules, through `check` with default options (256 MiB
 *   budget). Reports the heap after GC every 1,000 origins, the estimate of one origin next to its
 *   measured cost, and the cost of the corpus's median origin (../shared/corpus).
 * - scheduler: 1,000,000 hosts touched once by the memory scheduler, then idle: heap right after, and
 *   after the idle sweep.
 * Run alone: `node --expose-gc --import tsx bench/memory.ts` or `npm run bench -- memory`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createPoliteness } from '@politely/core';
import { parseRobotsTxt } from '@politely/core/engine';
import { createMemoryScheduler } from '@politely/core/scheduler';
import { hostileFetch, hostileRobotsTxt } from '../test/helpers/hostile-robots.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;

function heapAfterGc(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** Heap cost of keeping `make()`'s results, per item, measured over `count` items. */
function costOf<T>(count: number, make: (index: number) => T): number {
  const before = heapAfterGc();
  const kept = Array.from({ length: count }, (_, i) => make(i));
  const after = heapAfterGc();
  if (kept.length !== count) throw new Error('unreachable');
  return (after - before) / count;
}

async function rulesBudget(): Promise<void> {
  const origins = Number(process.env.POLITELY_BENCH_ORIGINS ?? 10_000);
  // One origin: the estimate against the heap (parsed, compiled for one agent, checked).
  const bodies = Array.from({ length: 8 }, (_, i) => new TextEncoder().encode(hostileRobotsTxt(i)));
  const measured = costOf(bodies.length, (i) => {
    const robots = parseRobotsTxt(bodies[i] as Uint8Array);
    for (let k = 0; k < 20; k++) robots.isAllowed(`/x${k}/y`, 'PoliteBot');
    return robots;
  });
  const sample = parseRobotsTxt(bodies[0] as Uint8Array);
  const estimate = sample.estimateBytes();
  const rules = sample.toJSON().g.reduce((n, g) => n + g.r.length / 2, 0);
  console.log(
    `hostile origin: ${bodies[0]?.byteLength} bytes, ${rules} rules; measured ${mib(measured)} after checks, estimate ${mib(estimate)}`,
  );
  bodies.length = 0;

  const { fetch } = hostileFetch();
  const politeness = createPoliteness({
    userAgent: 'PoliteBot/1.0',
    scheduler: 'memory',
    logger: false,
    robots: { fetch },
  });
  const before = heapAfterGc();
  let peak = 0;
  const started = performance.now();
  for (let i = 0; i < origins; i++) {
    await politeness.check(`http://o${i}.example/o${i}/page`);
    if ((i + 1) % 1000 === 0 || i + 1 === origins) {
      const growth = heapAfterGc() - before;
      peak = Math.max(peak, growth);
      console.log(
        `  ${String(i + 1).padStart(6)} origins: heap growth ${mib(growth)}, RSS ${mib(process.memoryUsage().rss)}, ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
  }
  await politeness.close();
  console.log(
    `rules: ${origins} hostile origins through check, default 256 MiB budget: peak heap growth after GC ${mib(peak)}`,
  );
}

function corpusMedian(): void {
  const dir = fileURLToPath(new URL('../../shared/corpus/robots/', import.meta.url));
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    console.warn(`\n!!! corpus not found at ${dir}: SKIPPING the corpus median figure !!!\n`);
    return;
  }
  const estimates = files.map((file) => {
    const robots = parseRobotsTxt(readFileSync(`${dir}${file}`));
    robots.isAllowed('/', 'PoliteBot');
    return { file, estimate: robots.estimateBytes(), bytes: robots.byteLength };
  });
  estimates.sort((a, b) => a.estimate - b.estimate);
  const median = estimates[Math.floor(estimates.length / 2)];
  const bodies = files.map((file) => readFileSync(`${dir}${file}`));
  const measured = costOf(bodies.length, (i) => {
    const robots = parseRobotsTxt(bodies[i] as Uint8Array);
    robots.isAllowed('/', 'PoliteBot');
    return robots;
  });
  console.log(
    `corpus (${files.length} files): median origin estimate ${median?.estimate} bytes (${median?.file}, ${median?.bytes} bytes of robots.txt); mean measured ${measured.toFixed(0)} bytes, mean estimate ${(estimates.reduce((n, e) => n + e.estimate, 0) / estimates.length).toFixed(0)} bytes`,
  );
}

async function schedulerIdle(): Promise<void> {
  const hosts = 1_000_000;
  const delayMs = 1000;
  const before = heapAfterGc();
  const scheduler = createMemoryScheduler();
  for (let i = 0; i < hosts; i++) await scheduler.tryReserve(`host-${i}.example`, delayMs);
  const busy = heapAfterGc() - before;
  const idleFrom = Date.now() + delayMs;
  console.log(`scheduler: ${hosts} hosts touched once (delay ${delayMs} ms): heap growth ${mib(busy)}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const growth = heapAfterGc() - before;
    const idleFor = (Date.now() - idleFrom) / 1000;
    if (growth < 20 * MiB || idleFor > 90) {
      console.log(
        `scheduler: ${idleFor.toFixed(0)} s after going idle: heap growth ${mib(growth)}, ${scheduler.size} hosts tracked`,
      );
      break;
    }
  }
  await scheduler.close();
}

/** `POLITELY_BENCH_MEMORY=rules,scheduler,corpus` (default all) picks the parts. */
export async function runMemoryBench(): Promise<void> {
  const parts = (process.env.POLITELY_BENCH_MEMORY ?? 'corpus,scheduler,rules').split(',');
  if (parts.includes('corpus')) corpusMedian();
  if (parts.includes('scheduler')) await schedulerIdle();
  if (parts.includes('rules')) await rulesBudget();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runMemoryBench();
