/**
 * maxConcurrentPerHost across a fleet of real processes sharing one Redis: the server counts the
 * requests it is answering at each moment (from the request's arrival to the last byte of its slow
 * body), and never sees more than the limit, whichever process sent them. A process killed while
 * it holds a place frees it once its lease expires.
 */
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { WaitTooLongError } from '../../packages/core/src/kernel/errors.js';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';
import { type Handler, startHost, type TestHost, text } from '../helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { killWorkerProcesses, startWorkerProcess } from './worker-process.js';

const redisUp = await requireRedis('in-flight leases across a fleet');

const WORKER = new URL('./in-flight-worker.ts', import.meta.url);

const startWorker = (args: readonly string[]) => startWorkerProcess(WORKER, args);

/** A page whose body takes 150 ms to arrive; the server counts the pages it is answering at once. */
function slowBodies() {
  const counter = { now: 0, most: 0, answered: 0 };
  const page: Handler = (_req, res) => {
    counter.now++;
    counter.most = Math.max(counter.most, counter.now);
    let over = false;
    const end = () => {
      if (over) return;
      over = true;
      counter.now--;
      counter.answered++;
    };
    res.once('finish', end);
    res.once('close', end);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first half, ');
    setTimeout(() => res.end('second half'), 150);
  };
  return { counter, page };
}

describe.skipIf(!redisUp)('in-flight leases across a fleet of processes', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    killWorkerProcesses();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function site(
    ip: string,
  ): Promise<{ host: TestHost; counter: { now: number; most: number; answered: number } }> {
    const { counter, page } = slowBodies();
    const host = await startHost({
      ip,
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: page,
    });
    cleanups.push(() => host.close());
    return { host, counter };
  }

  for (const limit of [1, 2]) {
    it(`two processes sending 4 pages each at once: the server never answers more than ${limit} at a time`, async () => {
      const { host, counter } = await site(limit === 1 ? '127.0.0.81' : '127.0.0.82');
      const prefix = `${uniquePrefix('in-flight-fleet')}:`;
      const args = ['crawl', REDIS_URL, prefix, host.origin, String(limit), '4', '15000'];
      const workers = [startWorker(args), startWorker(args)];
      await Promise.all(workers.map((worker) => worker.ready));
      for (const worker of workers) worker.go();
      await Promise.all(workers.map((worker) => worker.done));

      expect(counter.answered).toBe(8);
      expect(counter.most).toBeLessThanOrEqual(limit);
      // The limit is a limit, not a queue of one: with 8 pages waiting, it is used to the full.
      expect(counter.most).toBe(limit);
    }, 60_000);
  }

  it('a process killed while it holds a place frees it once its lease expires, and not before', async () => {
    const prefix = `${uniquePrefix('in-flight-kill')}:`;
    const leaseTtlMs = 1500;
    const holder = startWorker([
      'hold',
      REDIS_URL,
      prefix,
      'http://127.0.0.83',
      '1',
      '1',
      String(leaseTtlMs),
    ]);
    await holder.ready;
    holder.go();
    await holder.saw('held');

    const client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    await client.connect();
    const scheduler = createRedisScheduler({ client, prefix, leaseTtlMs });
    cleanups.push(() => client.destroy());
    cleanups.push(() => scheduler.close());

    // Alive, the holder refreshes its lease: the place stays taken beyond the lease's TTL.
    await new Promise((resolve) => setTimeout(resolve, leaseTtlMs + 500));
    await expect(scheduler.acquireInFlight('127.0.0.83', 1, { maxWaitMs: 0 })).rejects.toBeInstanceOf(
      WaitTooLongError,
    );
    holder.child.kill('SIGKILL');
    const killedAt = Date.now();
    const lease = await scheduler.acquireInFlight('127.0.0.83', 1, { maxWaitMs: 10_000 });
    lease.release();
    expect(scheduler.kind).toBe('redis');
    // Dead, it refreshes nothing: the place comes free when the lease it last refreshed expires (a
    // third of the TTL before the kill at most), not at once.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual((leaseTtlMs * 2) / 3 - 50);
  }, 60_000);
});
