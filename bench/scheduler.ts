/**
 * Pacing quality and cost of the schedulers: 100 hosts at a 200 ms delay for 5 s, every host driven by
 * its own reserve loop, for the memory and the Redis scheduler. Reports the achieved start rate as a
 * share of the ideal (one start per host per delay), spacing violations (starts of one host closer
 * than the delay; must be 0), efficiency per host ((starts - 1) x delay / first-to-last start, worst
 * and median), and the reservation throughput of each backend.
 * A micro-benchmark of the scheduler alone: no HTTP is sent, so there is no wire to judge at; spacing
 * is judged by the start times the scheduler hands out (its own clock). The benchmarks that send
 * requests (pacing, crawlee-pacing, crawlee, signals) judge at the wire.
 * Then what giving up and closing cost (issue 25): 30 callers waiting on a host paced at 1 s, 28 of
 * them giving up at 1.5 s (how far the host's next start is after the last real start), and close()
 * with 10 callers waiting for a slot and 5 for a place in flight (how long until each is rejected,
 * and how many were granted after close). POLITELY_BENCH_BEFORE=<dir holding an older
 * packages/core/src> adds that code's rows beside this one's, in the same run:
 *   git archive <commit> packages/core/src | tar -x -C /tmp/before && \
 *   POLITELY_BENCH_BEFORE=/tmp/before/packages/core/src npm run bench -- scheduler
 * Then what politeness itself costs when no delay is asked (issue 42): `check` + `admit` per second in
 * one process over 1,000 hosts (robots.txt warm in memory, `minDelayMs: 0`, every other option at its
 * default), without a store, and with a Keyv store, `persistPace` off and on, rounds rotated.
 * Run alone: `npx tsx bench/scheduler.ts`.
 */
import { setMaxListeners } from 'node:events';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPoliteness, type Politeness } from '@politely/core';
import type { FetchLike } from '@politely/core/fetch';
import { createMemoryScheduler, createRedisScheduler, type Scheduler } from '@politely/core/scheduler';
import Keyv from 'keyv';
import { createClient } from 'redis';
import { redisReachable } from '../examples/demo/redis-check.js';
import { load1, median } from './got.js';
import { rotatedRates } from './rotated-rounds.js';

const HOSTS = 100;
const DELAY_MS = 200;
const DURATION_MS = 5000;
const THROUGHPUT_MS = 1000;
const THROUGHPUT_CONCURRENCY = 64;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface PacingResult {
  readonly starts: number;
  readonly ideal: number;
  readonly violations: number;
  readonly smallestGapMs: number;
  /** Per host, (starts - 1) x delay / (last start - first start): 1 is one start per delay. */
  readonly worstEfficiency: number;
  readonly medianEfficiency: number;
}

/** Every host reserves in a loop; a start is counted when its reservation starts inside the window. */
async function measurePacing(scheduler: Scheduler, label: string): Promise<PacingResult> {
  const t0 = Date.now();
  const end = t0 + DURATION_MS;
  const startsByHost = await Promise.all(
    Array.from({ length: HOSTS }, async (_, i) => {
      const host = `${label}-host-${i}.bench`;
      const starts: number[] = [];
      for (;;) {
        // startAt is Date.now() read as the reservation resolves; reading the clock again here would
        // also measure this loop being descheduled on a busy machine, which no scheduler controls.
        const { startAt } = await scheduler.reserve(host, DELAY_MS);
        if (startAt >= end) return starts;
        starts.push(startAt);
      }
    }),
  );
  let violations = 0;
  let smallestGapMs = Number.POSITIVE_INFINITY;
  const efficiencies: number[] = [];
  for (const starts of startsByHost) {
    const span = (starts.at(-1) ?? 0) - (starts[0] ?? 0);
    if (starts.length > 1 && span > 0) efficiencies.push(((starts.length - 1) * DELAY_MS) / span);
    for (let i = 1; i < starts.length; i++) {
      const gap = (starts[i] ?? 0) - (starts[i - 1] ?? 0);
      smallestGapMs = Math.min(smallestGapMs, gap);
      if (gap < DELAY_MS) violations++;
    }
  }
  return {
    starts: startsByHost.reduce((sum, starts) => sum + starts.length, 0),
    ideal: HOSTS * Math.ceil(DURATION_MS / DELAY_MS),
    violations,
    smallestGapMs,
    worstEfficiency: Math.min(...efficiencies),
    medianEfficiency: efficiencies.sort((a, b) => a - b)[Math.floor(efficiencies.length / 2)] ?? 0,
  };
}

/** Uncontended reservations (a fresh host each time) from concurrent callers, per second. */
async function measureThroughput(scheduler: Scheduler, label: string): Promise<number> {
  let done = 0;
  const end = Date.now() + THROUGHPUT_MS;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: THROUGHPUT_CONCURRENCY }, async (_, worker) => {
      for (let i = 0; Date.now() < end; i++) {
        await scheduler.tryReserve(`${label}-t${worker}-${i}.bench`, DELAY_MS);
        done++;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

interface Row {
  readonly backend: string;
  readonly pacing: PacingResult;
  readonly throughput: number;
}

function printTable(rows: readonly Row[]): void {
  const table = rows.map(({ backend, pacing, throughput }) => ({
    backend,
    'starts / ideal': `${pacing.starts} / ${pacing.ideal}`,
    'achieved rate': `${((pacing.starts / pacing.ideal) * 100).toFixed(1)} %`,
    'spacing violations': pacing.violations,
    'smallest gap (ms)': pacing.smallestGapMs,
    'efficiency worst / median': `${pacing.worstEfficiency.toFixed(2)} / ${pacing.medianEfficiency.toFixed(2)}`,
    'reservations/s': Math.round(throughput).toLocaleString('en-US'),
  }));
  console.table(table);
}

export async function runSchedulerBench(): Promise<void> {
  console.log(
    `${HOSTS} hosts x ${DELAY_MS} ms delay for ${DURATION_MS / 1000} s (ideal: one start per host per delay); ` +
      `throughput: tryReserve on fresh hosts, ${THROUGHPUT_CONCURRENCY} concurrent callers, ${THROUGHPUT_MS / 1000} s`,
  );
  console.log(
    "Judged by the scheduler's own clock (the start times it hands out): no HTTP is sent, so there is no " +
      'wire to judge at. Pacing as a site sees it: `npm run bench -- pacing crawlee-pacing`.',
  );
  const rows: Row[] = [];

  const memory = createMemoryScheduler();
  rows.push({
    backend: 'memory',
    pacing: await measurePacing(memory, 'memory'),
    throughput: await measureThroughput(memory, 'memory'),
  });
  await memory.close();

  if (await redisReachable(REDIS_URL)) {
    const client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    await client.connect();
    const prefix = `politely-bench:${process.pid}:${Date.now().toString(36)}:`;
    const redis = createRedisScheduler({
      client,
      prefix,
      emit: (event) => console.warn(`redis scheduler event: ${event.type}`),
    });
    try {
      rows.push({
        backend: 'redis (1 connection)',
        pacing: await measurePacing(redis, 'redis'),
        throughput: await measureThroughput(redis, 'redis'),
      });
    } finally {
      await redis.close();
      client.destroy();
    }
  } else {
    console.log(`Redis is not reachable at ${REDIS_URL}: skipping the Redis scheduler.`);
  }

  printTable(rows);
  await runAdmitBench();
  await runGiveUpAndCloseBench();
}

const ADMIT_HOSTS = 1000;
const ADMIT_OPERATIONS = 10_000;
const ADMIT_ROUNDS = 9;

/** robots.txt from memory: no socket in the loop. */
const robotsFetch: FetchLike = async () => ({
  status: 200,
  headers: { get: () => null },
  body: (async function* () {
    yield new TextEncoder().encode('User-agent: *\nDisallow: /private\n');
  })(),
});

async function admitLoop(politeness: Politeness): Promise<number> {
  for (let index = 0; index < ADMIT_OPERATIONS; index++) {
    const url = `http://h${index % ADMIT_HOSTS}.bench.test/page/${index}`;
    await politeness.check(url);
    await politeness.admit(url);
  }
  return ADMIT_OPERATIONS;
}

/** check + admit per second with no delay asked: politeness's own cost, and what persistPace adds to it. */
export async function runAdmitBench(): Promise<void> {
  const base = {
    userAgent: 'PolitelyBench/1.0',
    robots: { fetch: robotsFetch },
    pacing: { minDelayMs: 0, latencyFactor: 0 },
  };
  const instances = {
    noStore: createPoliteness(base),
    persistOff: createPoliteness({
      ...base,
      store: new Keyv(),
      pacing: { ...base.pacing, persistPace: false },
    }),
    persistOn: createPoliteness({
      ...base,
      store: new Keyv(),
      pacing: { ...base.pacing, persistPace: true },
    }),
  };
  const names = Object.keys(instances) as (keyof typeof instances)[];
  try {
    const rates = await rotatedRates(instances, admitLoop, ADMIT_ROUNDS);
    console.log(
      `\ncheck + admit per second in one process: ${ADMIT_HOSTS} hosts, robots.txt warm, minDelayMs 0, every other option at its default; median of ${ADMIT_ROUNDS} rotated rounds of ${ADMIT_OPERATIONS} (load ${load1()})\n`,
    );
    console.log('| store | check + admit / s | µs each | against persistPace off |');
    console.log('| --- | ---: | ---: | ---: |');
    const label = {
      noStore: 'none (in-memory cache)',
      persistOff: 'Keyv (in memory), `persistPace: false`',
      persistOn: 'Keyv (in memory), `persistPace: true` (the default)',
    };
    const off = median(rates.persistOff);
    for (const name of names) {
      const rate = median(rates[name]);
      console.log(
        `| ${label[name]} | ${Math.round(rate)} | ${(1e6 / rate).toFixed(1)} | ${(rate / off).toFixed(3)} |`,
      );
    }
    console.log('\ntargets: at least 100,000 a second; persistPace on at least 0.90 of off');
  } finally {
    await Promise.all(Object.values(instances).map((p) => p.close()));
  }
}

type Schedulers = {
  readonly createMemoryScheduler: typeof createMemoryScheduler;
  readonly createRedisScheduler: typeof createRedisScheduler;
};

const GIVE_UP_DELAY_MS = 1000;
/** How long a close() is watched for callers it should have rejected (the old code granted them). */
const CLOSE_WINDOW_MS = 3000;

/**
 * 30 callers reserve at once on a host paced at 1 s; the 28 not yet started give up at 1.5 s. Returns
 * how far the host's next start (peek) is after the last real start: one delay when their slots went
 * back, 28 more when they did not.
 */
async function measureGiveUp(scheduler: Scheduler, host: string): Promise<number> {
  const controller = new AbortController();
  // One signal for all 30, as a crawl's stop signal would be.
  setMaxListeners(100, controller.signal);
  const starts: number[] = [];
  const callers = Array.from({ length: 30 }, () =>
    scheduler
      .reserve(host, GIVE_UP_DELAY_MS, { signal: controller.signal })
      .then(({ startAt }) => void starts.push(startAt))
      .catch(() => {}),
  );
  await new Promise((done) => setTimeout(done, 1500));
  controller.abort(new Error('gave up'));
  await Promise.all(callers);
  // The give-backs on Redis are one round trip each, sent as the callers reject.
  await new Promise((done) => setTimeout(done, 50));
  const next = (await scheduler.peek?.(host)) ?? Number.NaN;
  return next - Math.max(...starts);
}

interface CloseResult {
  /** ms from close() until the last of the 15 waiters settled (undefined: not all within the window). */
  readonly settledMs: number | undefined;
  readonly rejected: number;
  readonly grantedAfterClose: number;
}

/** 10 callers waiting for a slot and 5 for a place in flight when close() is called. */
async function measureClose(scheduler: Scheduler, host: string): Promise<CloseResult> {
  await scheduler.reserve(host, GIVE_UP_DELAY_MS);
  const lease = await scheduler.acquireInFlight?.(`place-${host}`, 1);
  let closedAt = Number.POSITIVE_INFINITY;
  let rejected = 0;
  let grantedAfterClose = 0;
  let lastSettled = 0;
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        if (Date.now() >= closedAt) grantedAfterClose++;
        lastSettled = Date.now();
      },
      () => {
        rejected++;
        lastSettled = Date.now();
      },
    );
  const waiting = [
    ...Array.from({ length: 10 }, () => outcome(scheduler.reserve(host, GIVE_UP_DELAY_MS))),
    ...Array.from({ length: 5 }, () =>
      outcome(scheduler.acquireInFlight?.(`place-${host}`, 1, { maxWaitMs: 60_000 }) ?? Promise.resolve()),
    ),
  ];
  await new Promise((done) => setTimeout(done, 50));
  closedAt = Date.now();
  await scheduler.close();
  const all = Promise.all(waiting).then(() => true);
  const settled = await Promise.race([
    all,
    new Promise((done) => setTimeout(() => done(false), CLOSE_WINDOW_MS)),
  ]);
  lease?.release();
  return { settledMs: settled ? lastSettled - closedAt : undefined, rejected, grantedAfterClose };
}

async function giveUpRows(code: string, schedulers: Schedulers): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  const row = async (backend: string, open: () => Promise<{ scheduler: Scheduler; done: () => void }>) => {
    const tag = `${code}-${backend.split(' ')[0]}-${Date.now().toString(36)}.bench`;
    const a = await open();
    const nextAfterLastMs = await measureGiveUp(a.scheduler, `give-up-${tag}`);
    await a.scheduler.close();
    a.done();
    const b = await open();
    const closed = await measureClose(b.scheduler, `close-${tag}`);
    b.done();
    rows.push({
      code,
      backend,
      'next start after last real start (ms), 28 of 30 gave up': Math.round(nextAfterLastMs),
      'close(): 15 waiters settled in (ms)':
        closed.settledMs === undefined ? `not in ${CLOSE_WINDOW_MS}` : closed.settledMs,
      'rejected / granted after close': `${closed.rejected} / ${closed.grantedAfterClose}`,
    });
  };
  await row('memory', async () => ({ scheduler: schedulers.createMemoryScheduler(), done: () => {} }));
  if (await redisReachable(REDIS_URL)) {
    await row('redis', async () => {
      const client = createClient({ url: REDIS_URL });
      client.on('error', () => {});
      await client.connect();
      const prefix = `politely-bench:${process.pid}:${Date.now().toString(36)}:`;
      return {
        scheduler: schedulers.createRedisScheduler({ client, prefix }),
        done: () => {
          // The old code's waiters may still be asleep after close: let go of the client anyway.
          client.destroy();
        },
      };
    });
  }
  return rows;
}

export async function runGiveUpAndCloseBench(): Promise<void> {
  console.log(
    `\nGiving up and closing: 30 callers on a host paced at ${GIVE_UP_DELAY_MS} ms, 28 give up at 1.5 s; ` +
      `close() with 10 callers waiting for a slot and 5 for a place in flight (watched ${CLOSE_WINDOW_MS} ms).`,
  );
  const rows = [];
  const before = process.env.POLITELY_BENCH_BEFORE;
  if (before) {
    const load = (file: string) => import(pathToFileURL(resolve(before, 'schedule', file)).href);
    const old: Schedulers = {
      createMemoryScheduler: (await load('memory-scheduler.ts')).createMemoryScheduler,
      createRedisScheduler: (await load('redis-scheduler.ts')).createRedisScheduler,
    };
    rows.push(...(await giveUpRows('before', old)));
  }
  rows.push(...(await giveUpRows('this', { createMemoryScheduler, createRedisScheduler })));
  console.table(rows);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runSchedulerBench();
}
