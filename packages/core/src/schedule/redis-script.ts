/**
 * The Lua scripts of the Redis scheduler. Reservation is virtual scheduling (GCRA with a burst of 1),
 * the algorithm of Bottleneck's register.lua (SGrondin/bottleneck): the host's next start is kept on
 * the Redis server clock (TIME), so processes on different machines never disagree about spacing.
 * Each script touches one key, so it also runs on Redis Cluster.
 *
 * Sent with EVALSHA, falling back to EVAL on NOSCRIPT (a restarted or flushed server): the script
 * body then crosses the wire once per server instead of on every reservation.
 */
import { createHash } from 'node:crypto';

export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

export function lua(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

// Redis < 5 needs effects replication for a script that reads TIME and then writes; later servers
// do it always (and 7 keeps the call as a no-op).
export const PRELUDE = `if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/*
 * One hash per host, two fields on the server clock: `n`, the next start handed out (the virtual
 * schedule), and `f`, the earliest moment the next caller may really start (last confirmed start
 * plus its spacing, or a backoff). A caller that had to wait confirms when it wakes: a process that
 * woke late (busy CPU, slow reply) pushes `f`, and the next caller waits for that instead of starting
 * closer than the delay to it. The TTL always covers both fields plus a slack.
 */
// keep(key, ttl): the key lives at least `ttl` ms more, never less than it already would.
const KEEP = `local function keep(key, ttl)
  if ttl > redis.call('PTTL', key) then redis.call('PEXPIRE', key, ttl) end
end
`;

/**
 * KEYS[1] host key; ARGV[1] spacing ms; ARGV[2] largest acceptable wait ms (-1: any);
 * ARGV[3] TTL slack ms. Returns {1, wait, start} when reserved (wait 0: started, nothing to confirm;
 * start on the server clock, what CANCEL_SCRIPT is given back), or {0, wait} when the wait is longer
 * than allowed (nothing written).
 */
export const RESERVE_SCRIPT = lua(`${PRELUDE}${KEEP}local fields = redis.call('HMGET', KEYS[1], 'n', 'f')
local start = math.max(now, tonumber(fields[1]) or 0, tonumber(fields[2]) or 0)
local wait = start - now
local maxWait = tonumber(ARGV[2])
if maxWait >= 0 and wait > maxWait then return {0, wait} end
local spacing = tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'n', start + spacing)
if wait == 0 then redis.call('HSET', KEYS[1], 'f', now + spacing) end
keep(KEYS[1], start + spacing - now + tonumber(ARGV[3]))
return {1, wait, start}
`);

/**
 * KEYS[1] host key; KEYS[2] the host's given-back slots (a sorted set: member the slot's start, score
 * its end, server clock); ARGV[1] start; ARGV[2] end; ARGV[3] TTL slack ms. A caller gave up the slot
 * RESERVE_SCRIPT handed it before it started: the same rule as the memory scheduler's giveBack
 * (host-slots.ts). Only the last slot handed out moves `n` back, to where it began; a slot in the
 * middle is kept in KEYS[2] until the slots after it are given back too, and the chain then unwinds
 * past it. Slots ended by now are dropped from KEYS[2] first (they can move nothing). Returns 1 when
 * `n` moved back, else 0.
 */
export const CANCEL_SCRIPT = lua(`${PRELUDE}${KEEP}redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local start = tonumber(ARGV[1])
local stop = tonumber(ARGV[2])
if tonumber(redis.call('HGET', KEYS[1], 'n')) ~= stop then
  if stop > now then
    redis.call('ZADD', KEYS[2], stop, ARGV[1])
    keep(KEYS[2], stop - now + tonumber(ARGV[3]))
  end
  return 0
end
local next = start
for _ = 1, 10000 do
  local before = redis.call('ZRANGEBYSCORE', KEYS[2], next, next, 'LIMIT', 0, 1)
  if #before == 0 then break end
  redis.call('ZREM', KEYS[2], before[1])
  next = tonumber(before[1])
end
redis.call('HSET', KEYS[1], 'n', next)
return 1
`);

/**
 * KEYS[1] host key; ARGV[1] spacing ms; ARGV[2] TTL slack ms. A waiting caller's start: returns 0 and
 * records it when free, else the ms still to wait (then confirm again).
 */
export const CONFIRM_SCRIPT =
  lua(`${PRELUDE}${KEEP}local free = tonumber(redis.call('HGET', KEYS[1], 'f')) or 0
if now < free then return free - now end
local spacing = tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'f', now + spacing)
keep(KEYS[1], spacing + tonumber(ARGV[2]))
return 0
`);

/**
 * KEYS[1] host key; ARGV[1] spacing ms; ARGV[2] TTL slack ms. Sent by a caller whose start reply came
 * back slowly (so it started later than the server recorded): the next start moves accordingly.
 */
export const STARTED_LATE_SCRIPT = lua(`${PRELUDE}${KEEP}local free = now + tonumber(ARGV[1])
if (tonumber(redis.call('HGET', KEYS[1], 'f')) or 0) < free then redis.call('HSET', KEYS[1], 'f', free) end
keep(KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]))
return 1
`);

/**
 * KEYS[1] host key; ARGV[1] backoff ms; ARGV[2] TTL slack ms. Both fields become at least now + backoff,
 * so callers already waiting are held too.
 */
export const PENALIZE_SCRIPT = lua(`${PRELUDE}${KEEP}local target = now + tonumber(ARGV[1])
local fields = redis.call('HMGET', KEYS[1], 'n', 'f')
if (tonumber(fields[1]) or 0) < target then redis.call('HSET', KEYS[1], 'n', target) end
if (tonumber(fields[2]) or 0) < target then redis.call('HSET', KEYS[1], 'f', target) end
keep(KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]))
return 1
`);

/**
 * KEYS[1] host key. Writes nothing: the ms a reservation made now would wait (0: due), by the same
 * rule as RESERVE_SCRIPT, on the server clock.
 */
export const PEEK_SCRIPT = lua(`${PRELUDE}local fields = redis.call('HMGET', KEYS[1], 'n', 'f')
return math.max(now, tonumber(fields[1]) or 0, tonumber(fields[2]) or 0) - now
`);

/**
 * KEYS[1] probe key; ARGV[1] its TTL ms. Probes a Redis that went away with a write through the same
 * EVAL path: a server out of memory (noeviction) still runs scripts that write nothing, so a read-only
 * probe would report it back while every reservation still fails.
 */
export const PROBE_SCRIPT = lua(`redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
return 1
`);

/*
 * In-flight leases (redis-in-flight.ts): one sorted set per host, `<prefix>{<host>}:in-flight`, whose
 * members are lease ids scored by when they expire on the server clock. Expired leases (a process
 * that died holding them) are dropped before counting. The key lives as long as its last lease.
 */

/**
 * KEYS[1] lease set; ARGV[1] limit; ARGV[2] lease id; ARGV[3] lease TTL ms. Returns {1, 0} when the
 * lease is taken, or {0, ms until the earliest lease held expires} when `limit` are held.
 */
export const LEASE_ACQUIRE_SCRIPT = lua(`${PRELUDE}${KEEP}redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) - now}
end
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
keep(KEYS[1], ttl)
return {1, 0}
`);

/**
 * KEYS[1] lease set; ARGV[1] lease id; ARGV[2] lease TTL ms. Extends a lease held (or writes one that
 * was taken during an outage, or that expired while its request was still in flight: the request is
 * counted whatever the limit, because it is really there).
 */
export const LEASE_HOLD_SCRIPT = lua(`${PRELUDE}${KEEP}local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
keep(KEYS[1], ttl)
return 1
`);

/** KEYS[1] lease set; ARGV[1] lease id. Gives a lease back. */
export const LEASE_RELEASE_SCRIPT = lua(`redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`);

/**
 * KEYS[1] fleet members (a sorted set: member a scheduler's id, score when it was last seen, server
 * clock); KEYS[2] when each joined (a hash); ARGV[1] this scheduler's id; ARGV[2] the members' TTL ms.
 * A heartbeat (redis-share.ts): drops the members not seen for the TTL, adds or refreshes this one (a
 * member that was dropped joins again, with a new join time) and returns {now, id1, joined1, id2,
 * joined2, ...}, every member alive.
 */
export const MEMBERS_SCRIPT = lua(`${PRELUDE}local ttl = tonumber(ARGV[2])
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
for _, id in ipairs(gone) do redis.call('HDEL', KEYS[2], id) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then
  redis.call('HSET', KEYS[2], ARGV[1], now)
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
local out = {now}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[2], id)
end
return out
`);
