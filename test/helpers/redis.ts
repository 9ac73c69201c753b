/**
 * Redis for tests: the real server on 127.0.0.1:6379. In CI a missing Redis fails the run; on a
 * developer machine the Redis suites are skipped with a loud message.
 */
import { redisReachable } from '../../examples/demo/redis-check.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * True when Redis answers. Throws under CI when it does not (so the run fails), warns loudly otherwise.
 * Use as: `const redisUp = await requireRedis('fleet scheduler'); describe.skipIf(!redisUp)(...)`.
 */
export async function requireRedis(suite: string): Promise<boolean> {
  if (await redisReachable(REDIS_URL)) return true;
  const message = `Redis is not reachable at ${REDIS_URL}: the "${suite}" tests need it`;
  if (process.env.CI) throw new Error(`${message} (CI must provide Redis; see .ci/run)`);
  console.warn(`\n!!! ${message}. SKIPPING them on this machine. Start redis-server to run them. !!!\n`);
  return false;
}

/** A key prefix unique to one test run, so parallel test files never share Redis state. */
export function uniquePrefix(label: string): string {
  return `politely-test:${label}:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}`;
}
