/**
 * What the Redis fallback share files (redis-fallback-share*.test.ts) have in common: several Redis
 * schedulers (one client each, as separate processes would have) sharing one private redis-server,
 * with callers for the same hosts in every one of them, judged by the start times handed out across
 * schedulers. Each case is a file of its own with a server of its own, so the cases run side by side.
 */
import { createClient } from 'redis';
import { expect } from 'vitest';
import type { PolitelyEvent } from '../../src/facade/types.js';
import { isWaitTooLongError } from '../../src/kernel/errors.js';
import { createRedisScheduler, type RedisScheduler } from '../../src/schedule/redis-scheduler.js';

export const DELAY_MS = 300;
export const HOSTS = Array.from({ length: 24 }, (_, i) => `h${i}.test`);
export const FALLBACK_RETRY_MS = 200;
// Generous: on a loaded machine a shorter one takes a stalled event loop for an outage.
export const COMMAND_TIMEOUT_MS = 500;
// A member counts as an owner once it has been on the list 3 × (heartbeat + command timeout).
export const SETTLE_MS = 3 * (FALLBACK_RETRY_MS + COMMAND_TIMEOUT_MS);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Start {
  readonly scheduler: number;
  readonly host: string;
  readonly at: number;
}

export async function makeScheduler(
  url: string,
  prefix: string,
  events: PolitelyEvent[],
  times: number[] = [],
) {
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
export function crawl(schedulers: readonly RedisScheduler[]) {
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
export async function joined(url: string, prefix: string, count: number): Promise<void> {
  const admin = createClient({ url });
  await admin.connect();
  for (let waited = 0; waited < 5000; waited += 50) {
    if ((await admin.hLen(`${prefix}fleet{members}:joined`)) >= count) break;
    await sleep(50);
  }
  admin.destroy();
}

/** The smallest gap between two starts on one host, across schedulers. */
export function smallestGap(starts: readonly Start[]): { gap: number; host: string } {
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

/** How a case takes Redis away (`begin`) and what it waits for before it is back (`end`). */
export interface Outage {
  begin(): Promise<void>;
  end(): Promise<unknown>;
}

/**
 * Three schedulers crawl every host, settle on each other's member lists, then Redis goes away:
 * no two starts on a host closer than its delay, before, during and after the outage; each falls
 * back once keeping its share of the fleet, each host goes on from one scheduler only meanwhile,
 * and every host goes on in every scheduler after it.
 */
export async function keepsDelayAcrossOutage(url: string, prefix: string, outage: Outage): Promise<void> {
  const events: PolitelyEvent[][] = [[], [], []];
  const times: number[][] = [[], [], []];
  const made = await Promise.all(events.map((list, i) => makeScheduler(url, prefix, list, times[i])));
  const schedulers = made.map((m) => m.scheduler);
  try {
    const run = crawl(schedulers);
    // Every scheduler has joined, and settled on every other's list, before Redis goes away.
    await joined(url, prefix, 3);
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
      expect(new Set(during.filter((s) => s.host === h).map((s) => s.scheduler)).size).toBeLessThanOrEqual(1);
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
}
