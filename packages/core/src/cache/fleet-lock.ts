/**
 * Fleet-wide single flight for robots.txt: processes that share a Redis-backed store and ask for the
 * same unknown origin at once elect one fetcher with a short lock (SET NX PX, released only by its
 * holder); the others read the result from the shared store when it lands. A holder that dies is
 * survived: its lock expires and the next process takes over. Redis trouble never blocks a lookup:
 * the process then fetches by itself, as it would without a fleet (the cache's own single flight still
 * makes one fetch per origin in the process).
 *
 * Redis trouble costs once, not once per origin (a refused Redis otherwise costs each new origin its
 * timeout): a call that fails or times out opens a breaker, and while it is open, or
 * while the Redis scheduler on the same connection has fallen back to memory (`redisAway`), a lookup
 * fetches here at once, with no Redis call. As the scheduler does (schedule/redis-outage.ts), Redis
 * counts as back only when it takes a write: a probe every `retryMs`, sent by the lookup that finds it
 * due and never awaited by it. The lock holds nothing to hand back: a lookup made here meanwhile is done.
 */
import { randomUUID } from 'node:crypto';
import { createRedisCall, type RedisScriptClient } from '../schedule/redis-client.js';
import { type LuaScript, lua, PROBE_SCRIPT } from '../schedule/redis-script.js';

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
  /**
   * How long after a failed call Redis is tried again (by a probe no lookup waits for), in ms. Default
   * 5000, the Redis scheduler's `fallbackRetryMs`.
   */
  readonly retryMs?: number;
  /**
   * True while another part knows Redis is away: the Redis scheduler on the same connection, in its
   * memory fallback. Then no lookup tries the lock.
   */
  readonly redisAway?: () => boolean;
  /** Clock for the breaker and the wait's deadline (tests inject a fake one). Default Date.now. */
  readonly now?: () => number;
}

export interface FleetLock {
  /**
   * Runs `fetchHere` in the one process that holds `name`'s lock; elsewhere waits until `readShared`
   * finds the holder's result (or the holder is gone, then competes again). Never waits more than
   * twice the lock's TTL in all: then it fetches by itself.
   */
  run<T>(name: string, readShared: () => Promise<T | undefined>, fetchHere: () => Promise<T>): Promise<T>;
  /** Waits for the calls under way (a lock's release), then sends nothing more: lookups fetch here. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The probe's key: a write that expires on its own, shared by every process (any value will do). */
const PROBE_KEY = `${ROBOTS_LOCK_PREFIX}probe`;
const PROBE_KEY_TTL_MS = 10_000;

export function createFleetLock(options: FleetLockOptions): FleetLock {
  const { ttlMs } = options;
  const pollMs = options.pollMs ?? 50;
  const commandTimeoutMs = options.commandTimeoutMs ?? 3000;
  const retryMs = options.retryMs ?? 5000;
  const now = options.now ?? Date.now;
  const callRedis = createRedisCall({ redis: options.redis, connect: options.connect, commandTimeoutMs });
  let closed = false;
  /** The breaker: undefined while Redis answers; else when the next probe is due. */
  let probeAt: number | undefined;
  let probing = false;

  /** True while this process should not ask Redis; sends the probe when it is due. */
  const away = (): boolean => {
    if (closed || options.redisAway?.()) return true;
    if (probeAt === undefined) return false;
    if (!probing && now() >= probeAt) void probe();
    return true;
  };

  const probe = async () => {
    probing = true;
    const written = await callRedis(PROBE_SCRIPT, [PROBE_KEY], [String(PROBE_KEY_TTL_MS)]);
    probeAt = written.ok ? undefined : now() + retryMs;
    probing = false;
  };

  /** The script's reply, or undefined when Redis failed or was too slow (which opens the breaker). */
  const call = async (script: LuaScript, key: string, args: string[]): Promise<unknown> => {
    const outcome = await callRedis(script, [key], args);
    if (!outcome.ok) probeAt ??= now() + retryMs;
    return outcome.ok ? outcome.value : undefined;
  };

  return {
    async run(name, readShared, fetchHere) {
      const key = `${ROBOTS_LOCK_PREFIX}{${name}}`;
      const deadline = now() + 2 * ttlMs;
      for (;;) {
        // Redis away (seen here or by the scheduler): at once, as a process without a fleet would.
        if (away()) return fetchHere();
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
          if (now() > deadline) return fetchHere();
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
    close() {
      closed = true;
      return callRedis.close();
    },
  };
}
