/**
 * Vitest setup file (every project): after each test file, delete the Redis keys made under the
 * prefixes it took from `uniquePrefix`, so a test run leaves nothing behind in a shared Redis.
 */
import { afterAll } from 'vitest';
import { deleteTestKeys } from './redis.js';

afterAll(async () => {
  await deleteTestKeys();
});
