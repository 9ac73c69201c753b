/**
 * The Lua scripts of the Redis scheduler. Reservation is virtual scheduling (GCRA with a burst of 1),
 * the algorithm of Bottleneck's register.lua (SGrondin/bottleneck): the stored value is the host's
 * next start on the Redis server clock (TIME), so processes on different machines never disagree
 * about spacing. Each script touches one key, so it also runs on Redis Cluster.
 *
 * Sent with EVALSHA, falling back to EVAL on NOSCRIPT (a restarted or flushed server): the script
 * body then crosses the wire once per server instead of on every reservation.
 */
import { createHash } from 'node:crypto';
import type { RedisScriptClient } from './redis-client.js';

export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

function lua(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

// Redis < 5 needs effects replication for a script that reads TIME and then writes; later servers
// do it always (and 7 keeps the call as a no-op).
const PRELUDE = `if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS[1] host key; ARGV[1] spacing ms; ARGV[2] largest acceptable wait ms (-1: any);
 * ARGV[3] key TTL slack ms. Returns {1, wait} when reserved, {0, wait} when the wait is too long
 * (nothing written).
 */
export const RESERVE_SCRIPT = lua(`${PRELUDE}local stored = tonumber(redis.call('GET', KEYS[1]))
local start = now
if stored and stored > now then start = stored end
local wait = start - now
local maxWait = tonumber(ARGV[2])
if maxWait >= 0 and wait > maxWait then return {0, wait} end
local nextStart = start + tonumber(ARGV[1])
redis.call('SET', KEYS[1], nextStart, 'PX', nextStart - now + tonumber(ARGV[3]))
return {1, wait}
`);

/** KEYS[1] host key; ARGV[1] backoff ms; ARGV[2] key TTL slack ms. next = max(stored, now + backoff). */
export const PENALIZE_SCRIPT = lua(`${PRELUDE}local target = now + tonumber(ARGV[1])
local stored = tonumber(redis.call('GET', KEYS[1]))
if stored and stored >= target then return 0 end
redis.call('SET', KEYS[1], target, 'PX', tonumber(ARGV[1]) + tonumber(ARGV[2]))
return 1
`);

/** A no-op round trip through the same EVAL path, used to probe a Redis that went away. */
export const PROBE_SCRIPT = lua('return 1');

function isNoScript(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.startsWith('NOSCRIPT');
}

export async function runScript(
  client: RedisScriptClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly string[],
): Promise<unknown> {
  try {
    return await client.evalSha(script.sha, keys, args);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return await client.eval(script.source, keys, args);
  }
}
