/**
 * Fleet-wide single flight for robots.txt: processes that share a Redis-backed store and ask for the
 * same unknown origin at once elect one fetcher with a short lock (SET NX PX, released only by its
 * holder); the others read the result from the shared store when it lands. A holder that dies is
 * survived: its lock expires and the next process takes over. Redis trouble never blocks a lookup:
 * the process then fetches by itself, as it would without a fleet.
 */
import { randomUUID } from 'node:crypto';
import type { RedisScriptClient } from '../schedule/redis-client.js';
import { type LuaScript, lua, runScript } from '../schedule/redis-script.js';

/** KEYS[1] lock; ARGV[1] token; ARGV[2] ttl ms. 1 when taken, 0 when another process holds it. */
const ACQUIRE_SCRIPT = lua(`if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
`);
/** KEYS[1] lock; ARGV[1] token. Deletes the lock only when this process still holds it. */
const RELEASE_SCRIPT =
  lua(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);
/** KEYS[1] lock. 1 while some process holds it. */
const HELD_SCRIPT = lua(`return redis.call('EXISTS', KEYS[1])
`);

export const ROBOTS_LOCK_PREFIX = 'politely:robots-lock:v1:';

export interface FleetLockOptions {
  readonly redis: RedisScriptClient;
  /** Connects a lazily connected client first (@keyv/redis). */
  readonly connect?: (() => Promise<unknown>) | undefined;
  /** How long a holder may take before another process takes over, in ms. */
  readonly ttlMs: number;
  /** How often a waiting process looks for the holder's result, in ms. Default 50. */
  readonly pollMs?: number;
  /**
   * A Redis call slower than this counts as failed (then this process fetches by itself), in ms.
   * Default 3000: a reply slowed by a busy machine must not cost the site a second robots.txt fetch.
   */
  readonly commandTimeoutMs?: number;
}

export interface FleetLock {
  /**
   * Runs `fetchHere` in the one process that holds `name`'s lock; elsewhere waits until `readShared`
   * finds the holder's result (or the holder is gone, then competes again). Never waits more than
   * twice the lock's TTL in all: then it fetches by itself.
   */
  run<T>(name: string, readShared: () => Promise<T | undefined>, fetchHere: () => Promise<T>): Promise<T>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createFleetLock(options: FleetLockOptions): FleetLock {
  const { redis, connect, ttlMs } = options;
  const pollMs = options.pollMs ?? 50;
  const commandTimeoutMs = options.commandTimeoutMs ?? 3000;

  /** The script's reply, or undefined when Redis failed or was too slow. */
  const call = async (script: LuaScript, key: string, args: string[]): Promise<unknown> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = (async () => {
      if (connect && !redis.isOpen()) await connect();
      return runScript(redis, script, [key], args);
    })();
    attempt.catch(() => {});
    try {
      return await Promise.race([
        attempt,
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), commandTimeoutMs);
        }),
      ]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    async run(name, readShared, fetchHere) {
      const key = `${ROBOTS_LOCK_PREFIX}{${name}}`;
      const deadline = Date.now() + 2 * ttlMs;
      for (;;) {
        const token = randomUUID();
        const taken = await call(ACQUIRE_SCRIPT, key, [token, String(ttlMs)]);
        // Taken, or Redis cannot say: fetch here (never block a lookup on Redis trouble).
        if (taken === undefined || Number(taken) === 1) {
          try {
            return await fetchHere();
          } finally {
            if (taken !== undefined) void call(RELEASE_SCRIPT, key, [token]);
          }
        }
        for (;;) {
          await sleep(pollMs);
          const shared = await readShared();
          if (shared !== undefined) return shared;
          if (Date.now() > deadline) return fetchHere();
          if (Number(await call(HELD_SCRIPT, key, [])) === 1) continue;
          // The lock is gone. The holder may have stored its result between our read and that check
          // (it writes, then releases): read once more before competing, or two processes fetch.
          const late = await readShared();
          if (late !== undefined) return late;
          // The holder finished without a usable result for us, or died and its lock expired.
          break;
        }
      }
    },
  };
}
