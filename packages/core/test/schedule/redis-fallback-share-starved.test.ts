/**
 * Redis schedulers sharing hosts while Redis is away, one of them in a process of its own that the
 * test starves of CPU as Redis comes back (issue 43.4): no two starts on a host closer than its
 * delay, across the three. Real time: the outage is a real server's, the starving a real busy loop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  killWorkerProcesses,
  startWorkerProcess,
  withDeadline,
} from '../../../../test/fleet/worker-process.js';
import { redisServerSkip } from '../../../../test/helpers/redis.js';
import type { PolitelyEvent } from '../../src/facade/types.js';
import { type PrivateRedis, startPrivateRedis } from './redis-server.js';
import {
  COMMAND_TIMEOUT_MS,
  crawl,
  DELAY_MS,
  FALLBACK_RETRY_MS,
  HOSTS,
  joined,
  makeScheduler,
  SETTLE_MS,
  type Start,
  sleep,
  smallestGap,
} from './share-fleet.js';

const unavailable = redisServerSkip('Redis fallback shared across schedulers');

describe.skipIf(unavailable !== undefined)('Redis schedulers sharing hosts, one starved of CPU', () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await startPrivateRedis();
  });
  afterAll(async () => {
    await server.kill();
  });

  it("keeps every host's delay when one scheduler is starved of CPU as Redis comes back (issue 43.4)", async () => {
    // Two schedulers here and one in a process of its own, which the test starves (a busy loop)
    // from 500 ms before Redis is back until well after the others' grace: it wakes with its
    // in-process slots overdue while the others pace its hosts on Redis again. Its slot timers fired
    // before its probe, and it started hosts 290 ms after another process had.
    const prefix = 'share-starved:';
    const events: PolitelyEvent[][] = [[], []];
    const made = await Promise.all(events.map((list) => makeScheduler(server.url, prefix, list)));
    const starved: Start[] = [];
    const seen: string[] = [];
    const worker = startWorkerProcess(
      new URL('./share-worker.ts', import.meta.url),
      [server.url, prefix, String(DELAY_MS), String(FALLBACK_RETRY_MS), String(COMMAND_TIMEOUT_MS), ...HOSTS],
      {
        name: 'starved scheduler',
        onLine: (line) => {
          if (!line.startsWith('{')) return;
          const parsed = JSON.parse(line) as { host?: string; at?: number; event?: string };
          if (parsed.event) seen.push(parsed.event);
          else if (parsed.host && parsed.at) starved.push({ scheduler: 2, host: parsed.host, at: parsed.at });
        },
      },
    );
    try {
      await withDeadline(worker.ready, 20_000, 'the starved scheduler starting');
      const run = crawl(made.map((m) => m.scheduler));
      await joined(server.url, prefix, 3);
      await sleep(SETTLE_MS + 4 * FALLBACK_RETRY_MS);
      await server.kill();
      await sleep(2000);
      // Starved from 500 ms before Redis is back until 3 s after: past the others' probe
      // (FALLBACK_RETRY_MS + COMMAND_TIMEOUT_MS after) and their grace (FALLBACK_RETRY_MS + 2 x COMMAND_TIMEOUT_MS).
      worker.child.stdin?.write('starve 3500\n');
      await sleep(500);
      await server.restart();
      await sleep(3000 + FALLBACK_RETRY_MS + 2 * COMMAND_TIMEOUT_MS + 2500);
      worker.child.stdin?.write('stop\n');
      await run.stop();
      await withDeadline(worker.done, 10_000, 'the starved scheduler stopping');
      const { gap, host } = smallestGap([...run.starts, ...starved]);
      expect(gap, `smallest gap on ${host}`).toBeGreaterThanOrEqual(DELAY_MS);
      // It fell back, came back, and paced hosts of its own before and after.
      expect(seen).toEqual(['scheduler-fallback', 'scheduler-recovered']);
      expect(starved.length).toBeGreaterThan(0);
      expect(run.waitedTooLong).toEqual([]);
    } finally {
      killWorkerProcesses();
      await Promise.all(
        made.map(async ({ client, scheduler }) => {
          await scheduler.close();
          client.destroy();
        }),
      );
    }
  }, 60_000);
});
