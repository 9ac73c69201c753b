/**
 * Four crawler processes share one Redis and crawl two hosts at the same time, started at the same
 * instant with two CPU-burning processes beside them: the slow host asks a 500 ms Crawl-delay, the
 * fast one nothing (10 ms minimum). Judged at the wire (the kernel's capture time of each request
 * line): however the processes interleave, no two requests to the slow host closer than 500 ms, and
 * the fast host is never held back by the slow one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, text } from '../helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { burnCpu, judgePacing, startWireCapture } from '../helpers/wire.js';
import { killWorkerProcesses, startWorkerProcess, withDeadline } from './worker-process.js';

const redisUp = await requireRedis('fleet scheduler');

const WORKER = new URL('./worker.ts', import.meta.url);
const PROCESSES = 4;
// Three pages each: twelve to the slow host, 5.5 s of its delay (five each took 9.5 s for the same check).
const PER_PROCESS = 3;
// Long enough that only a process stalled for about the whole delay between its slot and its write
// could break it (no scheduler can prevent that: the write is the kernel's, not ours).
const SLOW_DELAY_MS = 500;
const FAST_DELAY_MS = 10;

interface Sent {
  readonly process: number;
  readonly host: string;
}

function startWorker(index: number, args: string[], sent: Sent[], events: string[]) {
  return startWorkerProcess(WORKER, args, {
    name: `worker ${index}`,
    onLine: (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as { host?: string; event?: string };
      if (parsed.event !== undefined) events.push(parsed.event);
      else if (parsed.host !== undefined) sent.push({ process: index, host: parsed.host });
    },
  });
}

describe.skipIf(!redisUp)('fleet: four processes, one Redis', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    killWorkerProcesses();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('never sends one host two requests closer than its delay across processes, and never holds back another host', async () => {
    const slow = await startHost({
      ip: '127.0.0.74',
      routes: { '/robots.txt': text(`User-agent: *\nCrawl-delay: ${SLOW_DELAY_MS / 1000}\n`) },
      fallback: text('page'),
    });
    cleanups.push(() => slow.close());
    const fast = await startHost({
      ip: '127.0.0.75',
      routes: { '/robots.txt': text('User-agent: *\nDisallow:\n') },
      fallback: text('page'),
    });
    cleanups.push(() => fast.close());
    const prefix = `${uniquePrefix('fleet')}:`;
    const sent: Sent[] = [];
    const events: string[] = [];
    const args = [REDIS_URL, prefix, slow.origin, fast.origin, String(FAST_DELAY_MS), String(PER_PROCESS)];
    const workers = Array.from({ length: PROCESSES }, (_, i) =>
      startWorker(i, [...args, String(i)], sent, events),
    );
    // Four tsx processes starting on a busy 2-core machine: a limit for a hang, not a speed bound.
    await withDeadline(Promise.all(workers.map((w) => w.ready)), 90_000, 'starting the workers');
    const wire = await startWireCapture([slow, fast]);
    const burners = burnCpu(2);
    cleanups.push(() => burners.stop());
    for (const worker of workers) worker.go();
    await withDeadline(Promise.all(workers.map((w) => w.done)), 40_000, 'the crawl');
    burners.stop();
    const requests = await wire.stop();

    expect(events).toEqual([]);
    const pacing = judgePacing(requests, (ip) => (ip === slow.ip ? SLOW_DELAY_MS : FAST_DELAY_MS));
    const slowPages = pacing.get(slow.ip);
    const fastPages = pacing.get(fast.ip);
    expect(slowPages?.times).toHaveLength(PROCESSES * PER_PROCESS);
    expect(fastPages?.times).toHaveLength(PROCESSES * PER_PROCESS);
    // Every process took part in the slow host's schedule.
    expect(new Set(sent.filter((s) => s.host === slow.ip).map((s) => s.process)).size).toBe(PROCESSES);
    expect(slowPages?.violations).toEqual([]);
    // The fast host is judged on not being held back only: at 10 ms a Redis reply slowed by a busy
    // CPU beyond the margin (4 ms + the 10% of the delay) can bring two processes' sends closer than
    // asked, and the README says so; its smallest gap is printed below.
    // The fast host's pages at 10 ms are done long before the slow host's as many at 500 ms. Held back
    // by the slow host, they would go out interleaved with its pages, over about its whole span; the
    // fast host's own span is bound by the CPU (4.3 s of a 12.7 s slow span at load 12), hence half.
    const first = Math.min(slowPages?.times[0] ?? 0, fastPages?.times[0] ?? 0);
    const slowSpan = (slowPages?.times.at(-1) ?? 0) - first;
    const fastSpan = (fastPages?.times.at(-1) ?? 0) - first;
    expect(fastSpan).toBeLessThan(slowSpan / 2);
    console.info(
      `fleet (${wire.source}): slow host smallest gap ${slowPages?.smallestGapMs?.toFixed(1)} ms for ${SLOW_DELAY_MS} asked over ${slowPages?.times.length} pages in ${slowSpan.toFixed(0)} ms (efficiency ${slowPages?.efficiency?.toFixed(2)}); fast host done in ${fastSpan.toFixed(0)} ms, smallest gap ${fastPages?.smallestGapMs?.toFixed(1)} ms for ${FAST_DELAY_MS} asked`,
    );
  }, 180_000);
});
