/**
 * Four crawler processes share one Redis and pace one host at 200 ms: however their reservations
 * interleave, no two starts for that host, across all processes, are closer than 200 ms; a second
 * host reserved at the same time at full speed is never held back by the slow one. A start is the
 * Date.now() the scheduler read as it resolved the reservation (Reservation.startAt).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';

const redisUp = await requireRedis('fleet scheduler');

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const PROCESSES = 4;
const PER_PROCESS = 8;
const SLOW_DELAY_MS = 200;
const FAST_DELAY_MS = 10;

interface Start {
  readonly process: number;
  readonly host: string;
  readonly start: number;
  /** The worker loop's own Date.now() a few microtasks after reserve resolved. */
  readonly seen: number;
}

interface Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly done: Promise<void>;
}

const children: ChildProcess[] = [];

function startWorker(index: number, args: string[], starts: Start[], events: string[]): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', WORKER, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const done = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`worker ${index} exited with ${code}: ${stderr}`)),
    );
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  lines.on('line', (line) => {
    if (line === 'ready') markReady();
    else if (line.startsWith('{')) {
      const parsed = JSON.parse(line) as { host?: string; start?: number; seen?: number; event?: string };
      if (parsed.event !== undefined) events.push(parsed.event);
      else if (parsed.host !== undefined && parsed.start !== undefined) {
        starts.push({
          process: index,
          host: parsed.host,
          start: parsed.start,
          seen: parsed.seen ?? parsed.start,
        });
      }
    }
  });
  return { child, ready, done };
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

describe.skipIf(!redisUp)('fleet: four processes, one Redis', () => {
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('never starts one host closer than its delay across processes, and never holds back another host', async () => {
    const prefix = `${uniquePrefix('fleet')}:`;
    const starts: Start[] = [];
    const events: string[] = [];
    const args = [REDIS_URL, prefix, 'slow.test', String(SLOW_DELAY_MS), 'fast.test', String(FAST_DELAY_MS)];
    const workers = Array.from({ length: PROCESSES }, (_, i) =>
      startWorker(i, [...args, String(PER_PROCESS)], starts, events),
    );
    await withDeadline(Promise.all(workers.map((w) => w.ready)), 20_000, 'starting the workers');
    for (const worker of workers) worker.child.stdin?.write('go\n');
    await withDeadline(Promise.all(workers.map((w) => w.done)), 20_000, 'the crawl');

    expect(events).toEqual([]);
    const slow = starts.filter((s) => s.host === 'slow.test').map((s) => s.start);
    const fast = starts.filter((s) => s.host === 'fast.test').map((s) => s.start);
    slow.sort((a, b) => a - b);
    fast.sort((a, b) => a - b);
    expect(slow).toHaveLength(PROCESSES * PER_PROCESS);
    expect(fast).toHaveLength(PROCESSES * PER_PROCESS);
    // Every process took part in the slow host's schedule.
    expect(new Set(starts.filter((s) => s.host === 'slow.test').map((s) => s.process)).size).toBe(PROCESSES);

    const gaps = slow.slice(1).map((start, i) => start - (slow[i] ?? start));
    // Any two consecutive starts closer than the delay, with the processes that made them.
    const slowStarts = starts.filter((s) => s.host === 'slow.test').sort((a, b) => a.start - b.start);
    const tooClose = slowStarts.slice(1).flatMap((later, i) => {
      const earlier = slowStarts[i];
      return earlier && later.start - earlier.start < SLOW_DELAY_MS ? [{ earlier, later }] : [];
    });
    expect(tooClose).toEqual([]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(SLOW_DELAY_MS);
    // 32 slow starts need >= 31 x 200 ms; the fast host's 32 starts at 10 ms apart are done long before.
    const first = Math.min(slow[0] ?? 0, fast[0] ?? 0);
    const slowSpan = (slow.at(-1) ?? 0) - first;
    const fastSpan = (fast.at(-1) ?? 0) - first;
    expect(slowSpan).toBeGreaterThanOrEqual((PROCESSES * PER_PROCESS - 1) * SLOW_DELAY_MS);
    expect(fastSpan).toBeLessThan(slowSpan / 3);
    const seen = slowStarts.map((s) => s.seen).sort((a, b) => a - b);
    const seenGaps = seen.slice(1).map((at, i) => at - (seen[i] ?? at));
    console.info(
      `fleet: slow host min gap ${Math.min(...gaps)} ms (${Math.min(...seenGaps)} ms as read by the worker loops) over ${slow.length} starts in ${slowSpan} ms; fast host done in ${fastSpan} ms`,
    );
  }, 60_000);
});
