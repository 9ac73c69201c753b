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

/** Every prefix this test file handed out; `deleteTestKeys` removes their keys when the file ends. */
const handedOut = new Set<string>();

/**
 * A key prefix unique to one test run, so parallel test files never share Redis state. Every key whose
 * name contains it (Keyv namespaces, scheduler prefixes, host keys) is deleted after the file's tests
 * (test/helpers/redis-cleanup.ts, a vitest setup file), so `npm test` leaves nothing in Redis.
 */
export function uniquePrefix(label: string): string {
  const prefix = `politely-test:${label}:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}`;
  handedOut.add(prefix);
  return prefix;
}

/** Deletes every key containing a prefix this file handed out; the number deleted. */
export async function deleteTestKeys(): Promise<number> {
  if (handedOut.size === 0) return 0;
  const prefixes = [...handedOut];
  handedOut.clear();
  // Loaded here, not at the top: every test file runs this module (the cleanup setup file), and most
  // never touch Redis; importing the client cost each of them about 0.25 s (6.5 s of setup for 20
  // engine and kernel files, load 12).
  const { createClient } = await import('redis');
  // No reconnect loop: without Redis nothing was written, and the hook must end at once.
  const client = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false, connectTimeout: 2000 } });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch {
    return 0; // no Redis, so nothing was written
  }
  let deleted = 0;
  try {
    for (const prefix of prefixes) {
      // Glob-special characters in a prefix are escaped so MATCH takes it literally.
      const pattern = `*${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
      for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
        if (keys.length > 0) deleted += await client.del(keys);
      }
    }
  } finally {
    client.destroy();
  }
  return deleted;
}
