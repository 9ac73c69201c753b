/**
 * A fleet worker ends after `close()` and its store's disconnect (issue 43.1). got + politeGot on a
 * Keyv store on @keyv/redis, three pages, then the shutdown docs/fleet.md shows: the process must end
 * on its own. The last request's in-flight lease was released a tick after its response, after
 * `close()` had resolved, on a new connection @keyv/redis opened for it, and that connection kept the
 * worker alive for good. A child process of its own, as only a whole process can show what keeps it
 * alive; the bound is on a hang, not a speed.
 */
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, text } from '../helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { killWorkerProcesses, startWorkerProcess, withDeadline } from './worker-process.js';

const redisUp = await requireRedis('fleet worker shutdown');

describe.skipIf(!redisUp)('a fleet worker after close() and its store disconnect', () => {
  afterEach(() => killWorkerProcesses());

  it('exits on its own, having released its places in flight', async () => {
    const host = await startHost({
      ip: '127.0.0.41',
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: text('page'),
    });
    const namespace = uniquePrefix('shutdown');
    try {
      const worker = startWorkerProcess(new URL('./shutdown-worker.ts', import.meta.url), [
        REDIS_URL,
        namespace,
        host.origin,
      ]);
      await withDeadline(worker.saw('closed'), 30_000, "the worker's three pages");
      await withDeadline(worker.done, 5_000, 'the worker ending after close() and disconnect()');
      expect(host.requests().map((request) => request.path)).toEqual(['/robots.txt', '/p0', '/p1', '/p2']);
      // Its last lease was given back before it left, not left to expire and hold the fleet back.
      const redis = createClient({ url: REDIS_URL });
      await redis.connect();
      try {
        expect(await redis.zCard(`politely:pace:v2:{${namespace}-${host.ip}}:in-flight`)).toBe(0);
      } finally {
        redis.destroy();
      }
    } finally {
      await host.close();
    }
  }, 45_000);
});
