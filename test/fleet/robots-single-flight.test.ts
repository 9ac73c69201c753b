/**
 * A fleet starting together: four crawler processes share one Redis (robots.txt cache on a Keyv
 * store, one pace per host) and ask for the same unknown origin at the same instant, with two
 * CPU-burning processes beside them. At the wire the site sees exactly one robots.txt request, and no
 * two requests (robots.txt included) closer than the delay asked.
 */
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, text } from '../helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { burnCpu, judgePacing, startWireCapture } from '../helpers/wire.js';
import { killWorkerProcesses, startWorkerProcess, withDeadline } from './worker-process.js';

const redisUp = await requireRedis('fleet robots.txt single flight');

const WORKER = new URL('./robots-worker.ts', import.meta.url);
const PROCESSES = 4;
const PAGES = 3;
const ASKED_MS = 300;

describe.skipIf(!redisUp)('fleet: robots.txt single flight across processes', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    killWorkerProcesses();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('four processes asking for an unknown origin at once: one robots.txt request, no gap below the delay', async () => {
    const site = await startHost({
      ip: '127.0.0.70',
      // A slow robots.txt keeps the other processes waiting on the lock for a while.
      routes: { '/robots.txt': { status: 200, body: 'User-agent: *\nDisallow:\n', delayMs: 200 } },
      fallback: text('page'),
    });
    cleanups.push(() => site.close());
    const pacePrefix = `${uniquePrefix('fleet-robots')}:`;
    const admin = createClient({ url: REDIS_URL });
    admin.on('error', () => {});
    await admin.connect();
    cleanups.push(async () => {
      // Every key this test wrote: the pace keys, and the robots.txt record and lock of its origin.
      for (const pattern of [`${pacePrefix}*`, `*${site.origin}*`]) {
        for await (const keys of admin.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
          if (keys.length > 0) await admin.del(keys);
        }
      }
      admin.destroy();
    });

    const workers = Array.from({ length: PROCESSES }, (_, id) =>
      startWorkerProcess(WORKER, [
        REDIS_URL,
        pacePrefix,
        site.origin,
        String(id),
        String(PAGES),
        String(ASKED_MS),
      ]),
    );
    // Four tsx processes starting on a busy 2-core machine: a limit for a hang, not a speed bound.
    await withDeadline(Promise.all(workers.map((w) => w.ready)), 90_000, 'starting the workers');
    const wire = await startWireCapture([site]);
    const burners = burnCpu(2);
    cleanups.push(() => burners.stop());
    for (const worker of workers) worker.go();
    await withDeadline(Promise.all(workers.map((w) => w.done)), 40_000, 'the crawl');
    burners.stop();
    const requests = (await wire.stop()).filter((r) => r.ip === site.ip);

    const robots = requests.filter((r) => r.path === '/robots.txt');
    const pacing = judgePacing(requests, ASKED_MS, { includeRobotsTxt: true }).get(site.ip);
    console.info(
      `fleet robots.txt (${wire.source}): ${robots.length} robots.txt request(s), ${requests.length - robots.length} pages, smallest gap ${pacing?.smallestGapMs?.toFixed(1)} ms for ${ASKED_MS} asked, efficiency ${pacing?.efficiency?.toFixed(2)}`,
    );
    expect(robots).toHaveLength(1);
    expect(requests[0]?.path).toBe('/robots.txt');
    expect(requests).toHaveLength(1 + PROCESSES * PAGES);
    expect(pacing?.violations).toEqual([]);
    // The others read the one result from the shared store rather than fetching it themselves.
    const stats = workers.flatMap((w) =>
      w.lines.filter((l) => l.startsWith('{"stats"')).map((l) => JSON.parse(l).stats),
    );
    expect(stats.map((s) => s.robotsFetches.ok).reduce((a, b) => a + b, 0)).toBe(1);
    expect(stats.map((s) => s.cache.storeHits).reduce((a, b) => a + b, 0)).toBe(PROCESSES - 1);
  }, 180_000);
});
