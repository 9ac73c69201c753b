/**
 * Vitest setup file (every project): after each test file, delete the Redis keys made under the
 * prefixes it took from `uniquePrefix`, so a test run leaves nothing behind in a shared Redis, and
 * stop the redis-server the file started when no Redis was running (test/helpers/redis.ts).
 */
import { afterAll } from 'vitest';
import { deleteTestKeys, stopTestRedis } from './redis.js';

afterAll(async () => {
  await deleteTestKeys();
  await stopTestRedis();
});
