/**
 * The test helpers' Redis (test/helpers/redis.ts): a file gets a Redis without one running, and a
 * machine without redis-server gets a clear failure instead of an unhandled spawn error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { redisReachable } from '../../examples/demo/redis-check.js';
import { freePort, startPrivateRedis } from '../../packages/core/test/schedule/redis-server.js';
import { REDIS_URL, redisServerSkip, requireRedis, stopTestRedis } from './redis.js';

const unavailable = redisServerSkip('private Redis for a test file');

const restore: Array<() => void> = [];
afterEach(() => {
  for (const undo of restore.splice(0).reverse()) undo();
});

function setEnv(name: string, value: string): void {
  const before = process.env[name];
  process.env[name] = value;
  restore.push(() => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  });
}

describe('Redis for a test file', () => {
  it('rejects with the reason when redis-server is missing, with no unhandled spawn error', async () => {
    // A PATH with nothing on it: spawning redis-server fails with ENOENT, as on a bare machine.
    const empty = mkdtempSync(join(tmpdir(), 'politely-no-redis-'));
    restore.push(() => rmSync(empty, { recursive: true, force: true }));
    setEnv('PATH', empty);

    await expect(startPrivateRedis()).rejects.toThrow(/redis-server could not be started: .*ENOENT/);
  });

  it.skipIf(unavailable !== undefined)(
    'starts its own redis-server when none answers at REDIS_URL, and stops it when the file ends',
    async () => {
      const nobody = `redis://127.0.0.1:${await freePort()}`;
      setEnv('REDIS_URL', nobody);

      expect(await requireRedis('private Redis')).toBe(true);
      const url = REDIS_URL;
      expect(url).not.toBe(nobody);
      const client = createClient({ url });
      client.on('error', () => {});
      await client.connect();
      try {
        expect(await client.ping()).toBe('PONG');
      } finally {
        client.destroy();
      }

      await stopTestRedis();
      expect(await redisReachable(url)).toBe(false);
    },
  );
});
