/**
 * Several Redis schedulers (one client each, as separate processes would have) sharing one private
 * redis-server, with callers for the same hosts in every one of them, while the server goes away
 * (killed and restarted empty, or paused with DEBUG SLEEP). Judged by the start times handed out
 * across schedulers: no two starts on a host closer than its delay, before, during and after the
 * outage (issue 33.5). Real time: the outage is a real server's.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  killWorkerProcesses,
  startWorkerProcess,
  withDeadline,
} from '../../../../test/fleet/worker-process.js';
import { redisServerSkip } from '../../../../test/helpers/redis.js';
import type { PolitelyEvent } from '../../src/facade/types.js';
import { isWaitTooLongError } from '../../src/kernel/errors.js';
import { createRedisScheduler, type RedisScheduler } from '../../src/schedule/redis-scheduler.js';
import { type PrivateRedis, startPrivateRedis } from './redis-server.js';

const unavailable = redisServerSkip('Redis fallback shared across schedulers');

const DELAY_MS = 300;
const HOSTS = Array.from({ length: 24 }, (_, i) => `h${i}.test`);
const FALLBACK_RETRY_MS = 200;
// Generous: on a loaded machine a shorter one takes a stalled event loop for an outage.
const COMMAND_TIMEOUT_MS = 500;
// A member counts as an owner once it has been on the list 3 × (heartbeat + command timeout).
const SETTLE_MS = 3 * (FALLBACK_RETRY_MS + COMMAND_TIMEOUT_MS);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Start {
  readonly scheduler: number;
  readonly host: string;
  readonly at: number;
}

async function makeScheduler(url: string, prefix: string, events: PolitelyEvent[], times: number[] = []) {
  const client = createClient({ url, socket: { reconnectStrategy: () => 50 } });
  client.on('error', () => {});
  await client.connect();
  const scheduler = createRedisScheduler({
    client,
    prefix,
    emit: (event) => {
      events.push(event);
      times.push(Date.now());
    },
    fallbackRetryMs: FALLBACK_RETRY_MS,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
  });
  return { client, scheduler };
}

/** Callers in every scheduler, one after another per host, until `stop()`; every start recorded. */
function crawl(schedulers: readonly RedisScheduler[]) {
  const starts: Start[] = [];
  const waitedTooLong: number[] = [];
  let running = true;
  const loops = schedulers.flatMap((scheduler, index) =>
    HOSTS.map(async (host) => {
      while (running) {
        try {
          const { startAt } = await scheduler.reserve(host, DELAY_MS, { maxWaitMs: 20_000 });
          starts.push({ scheduler: index, host, at: startAt });
        } catch (error) {
          if (!isWaitTooLongError(error)) throw error;
          waitedTooLong.push(index);
        }
      }
    }),
  );
  return {
    starts,
    waitedTooLong,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Waits until `count` schedulers under `prefix` have joined the member list (bounded: a test fails on its gaps). */
async function joined(url: string, prefix: string, count: number): Promise<void> {
  const admin = createClient({ url });
  await admin.connect();
  for (let waited = 0; waited < 5000; waited += 50) {
    if ((await admin.hLen(`${prefix}fleet{members}:joined`)) >= count) break;
    await sleep(50);
  }
  admin.destroy();
}

/** The smallest gap between two starts on one host, across schedulers. */
function smallestGap(starts: readonly Start[]): { gap: number; host: string } {
  let smallest = { gap: Number.POSITIVE_INFINITY, host: '' };
  for (const host of HOSTS) {
    const times = starts
      .filter((s) => s.host === host)
      .map((s) => s.at)
      .sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) {
      const gap = (times[i] ?? 0) - (times[i - 1] ?? 0);
      if (gap < smallest.gap) smallest = { gap, host };
    }
  }
  return smallest;
}

describe.skipIf(unavailable !== undefined)('Redis schedulers sharing hosts while Redis is away', () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await startPrivateRedis(['--enable-debug-command', 'yes']);
  });
  afterAll(async () => {
    await server.kill();
  });

  const outages = {
    'killed and restarted empty': {
      begin: () => server.kill(),
      end: () => server.restart(),
    },
    'paused with DEBUG SLEEP': {
      begin: async () => {
        const admin = createClient({ url: server.url });
        await admin.connect();
        // Not awaited: the server answers it only when it wakes.
        void admin
          .sendCommand(['DEBUG', 'SLEEP', '2.5'])
          .catch(() => {})
          .finally(() => admin.destroy());
      },
      end: () => sleep(1400),
    },
  };

  for (const [name, outage] of Object.entries(outages)) {
    it(`keeps every host's delay across 3 schedulers when the server is ${name}`, async () => {
      const prefix = `share-${name.split(' ')[0]}:`;
      const events: PolitelyEvent[][] = [[], [], []];
      const times: number[][] = [[], [], []];
      const made = await Promise.all(
        events.map((list, i) => makeScheduler(server.url, prefix, list, times[i])),
      );
      const schedulers = made.map((m) => m.scheduler);
      try {
        const run = crawl(schedulers);
        // Every scheduler has joined, and settled on every other's list, before Redis goes away.
        await joined(server.url, prefix, 3);
        await sleep(SETTLE_MS + 4 * FALLBACK_RETRY_MS);
        const outageFrom = Date.now();
        await outage.begin();
        // Long enough for owners to start their hosts: an owner's first start waits one delay and
        // one command timeout from its fallback, after the slots it had noted from Redis.
        await sleep(2400);
        await outage.end();
        const endedAt = Date.now();
        // Back on Redis, the grace over, and time for every host to start in every scheduler.
        await sleep(FALLBACK_RETRY_MS + 2 * COMMAND_TIMEOUT_MS + 2500);
        await run.stop();

        const { gap, host } = smallestGap(run.starts);
        expect(gap, `smallest gap on ${host}`).toBeGreaterThanOrEqual(DELAY_MS);
        // Each fell back once, keeping its share of a fleet of 3, and came back.
        for (const list of events) {
          expect(list.map((e) => e.type)).toEqual(['scheduler-fallback', 'scheduler-recovered']);
          expect(list[0]).toMatchObject({ share: 'owned', members: 3 });
        }
        // While all were on their fallback, each host went on from one scheduler only, and some in each.
        const firstBack = Math.min(...times.map((t) => t[1] ?? 0));
        const during = run.starts.filter((s) => s.at > outageFrom + COMMAND_TIMEOUT_MS && s.at < firstBack);
        for (const h of HOSTS) {
          expect(
            new Set(during.filter((s) => s.host === h).map((s) => s.scheduler)).size,
          ).toBeLessThanOrEqual(1);
        }
        expect(new Set(during.map((s) => s.scheduler)).size).toBe(3);
        // Hosts a scheduler did not own waited, and went on after the outage, in every scheduler.
        const after = run.starts.filter((s) => s.at > endedAt);
        for (let i = 0; i < schedulers.length; i++) {
          expect(new Set(after.filter((s) => s.scheduler === i).map((s) => s.host)).size).toBe(HOSTS.length);
        }
        expect(run.waitedTooLong).toEqual([]);
      } finally {
        await Promise.all(
          made.map(async ({ client, scheduler }) => {
            await scheduler.close();
            client.destroy();
          }),
        );
      }
    }, 30_000);
  }

  it('a scheduler alone on its Redis keeps pacing every host itself while Redis is away', async () => {
    const events: PolitelyEvent[] = [];
    const { client, scheduler } = await makeScheduler(server.url, 'share-alone:', events);
    try {
      const first = await scheduler.reserve('a.test', DELAY_MS);
      await sleep(2 * FALLBACK_RETRY_MS);
      await server.kill();
      const during = [];
      for (const host of ['a.test', 'b.test', 'a.test']) during.push(await scheduler.reserve(host, DELAY_MS));
      expect(events[0]).toMatchObject({ type: 'scheduler-fallback', share: 'all', members: 1 });
      expect(scheduler.kind).toBe('memory-fallback');
      const [a0 = 0, a1 = 0, a2 = 0] = [first, during[0], during[2]].map((r) => r?.startAt ?? 0);
      expect(a1).toBeGreaterThanOrEqual(a0 + DELAY_MS);
      expect(a2).toBeGreaterThanOrEqual(a1 + DELAY_MS);
      // b.test, never seen before, starts at once: nobody else could be pacing it.
      expect(during[1]?.waitMs).toBeLessThan(DELAY_MS);
    } finally {
      await server.restart();
      await scheduler.close();
      client.destroy();
    }
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
