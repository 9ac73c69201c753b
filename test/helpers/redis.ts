/**
 * Redis for tests, found the way node-redis's test utilities do it: a suite gets a Redis it can use
 * rather than expecting one running. In order: the Redis at REDIS_URL (127.0.0.1:6379 when unset)
 * when it answers; else a private redis-server this file starts on a free port (no persistence) and
 * stops when its tests end; else, with no redis-server on the PATH, the Redis suites are skipped with a
 * loud message saying how to run them. Under CI a missing Redis fails the run (.ci/run installs it).
 * A REDIS_URL that does not answer is not swapped for 6379: whoever set it asked for that Redis and
 * not the default one (which may hold data of its own), so a private server stands in for it.
 */
import { redisReachable } from '../../examples/demo/redis-check.js';
import {
  type PrivateRedis,
  redisServerUnavailableReason,
  startPrivateRedis,
} from '../../packages/core/test/schedule/redis-server.js';

const DEFAULT_URL = 'redis://127.0.0.1:6379';

/**
 * The Redis this test file uses. A live binding: `requireRedis` sets it to the Redis it found (a
 * private server's port, say), so read it only after awaiting `requireRedis`, as every Redis suite does.
 */
export let REDIS_URL = process.env.REDIS_URL ?? DEFAULT_URL;

/** The server this file started, stopped by `stopTestRedis` (the setup file's afterAll). */
let started: PrivateRedis | undefined;
let found: Promise<string | undefined> | undefined;

const HOW_TO_RUN = 'Install redis-server or set REDIS_URL to a Redis that answers';

/** A Redis URL for this file, or undefined with the reason printed (thrown under CI). Once per file. */
async function findRedis(suite: string): Promise<string | undefined> {
  const asked = process.env.REDIS_URL ?? DEFAULT_URL;
  if (await redisReachable(asked)) return asked;
  let reason = redisServerUnavailableReason();
  if (reason === undefined) {
    try {
      started = await startPrivateRedis();
      // Not left running if the worker ends without its afterAll (a crash, a timeout's teardown).
      const pid = started.pid;
      process.once('exit', () => {
        try {
          if (pid !== undefined) process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      });
      return started.url;
    } catch (error) {
      reason = (error as Error).message;
    }
  }
  const message = `no Redis answers at ${asked} and none could be started here: ${reason}`;
  if (process.env.CI) throw new Error(`${message} (CI must provide Redis; see .ci/run)`);
  console.warn(`\n!!! ${message}. SKIPPING the "${suite}" tests. ${HOW_TO_RUN} to run them. !!!\n`);
  return undefined;
}

/**
 * True when this file has a Redis (and REDIS_URL then points at it). Throws under CI when it has
 * none (so the run fails), warns loudly otherwise.
 * Use as: `const redisUp = await requireRedis('fleet scheduler'); describe.skipIf(!redisUp)(...)`.
 */
export async function requireRedis(suite: string): Promise<boolean> {
  found ??= findRedis(suite);
  const url = await found;
  if (url !== undefined) REDIS_URL = url;
  return url !== undefined;
}

/** Stops the redis-server this file started, if it did; for the setup file's afterAll. */
export async function stopTestRedis(): Promise<void> {
  const server = started;
  started = undefined;
  found = undefined;
  await server?.kill();
}

/**
 * Why redis-server cannot be started for a suite that runs its own (failover, fallback, cluster), or
 * undefined when it can. Prints the reason and how to run them; throws under CI, where they must run.
 */
export function redisServerSkip(suite: string): string | undefined {
  const reason = redisServerUnavailableReason();
  if (reason === undefined) return undefined;
  if (process.env.CI) throw new Error(`the "${suite}" tests must run in CI: ${reason} (see .ci/run)`);
  console.warn(`\n!!! ${reason}: SKIPPING the "${suite}" tests. Install redis-server to run them. !!!\n`);
  return reason;
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
  // A server this file started is stopped next, and its keys go with it.
  if (started !== undefined) {
    handedOut.clear();
    return 0;
  }
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
