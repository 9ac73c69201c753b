/**
 * Where hosts' signals live: process memory, and with a Redis-backed fleet also one small hash per
 * host on Redis, so every process paces by what the whole fleet has measured. Each observation runs
 * one atomic script that applies the sample and returns the fleet's signal; this process keeps that
 * copy and reads it without I/O when it paces. Redis trouble never fails an observation: the sample
 * is applied in process memory, as it would be without a fleet.
 */
import { LRUCache } from 'lru-cache';
import { type Clock, systemClock } from '../kernel/clock.js';
import type { CallRedis } from '../schedule/redis-client.js';
import { lua, PRELUDE } from '../schedule/redis-script.js';
import {
  type HostSignal,
  LATENCY_SMOOTHING,
  MAX_PENALTY,
  NO_SIGNAL,
  observeSample,
  PENALTY_DECAY,
  PENALTY_GROWTH,
  type SignalSample,
  withRateLimit,
} from './host-signal.js';

export interface SignalStore {
  /** Applies one sample and resolves with the host's signal after it (the fleet's, with Redis). */
  observe(host: string, sample: SignalSample): Promise<HostSignal>;
  /** The last signal known here for `host` (no I/O). */
  get(host: string): HostSignal;
}

/** Hash tag `{host}` as in the pace keys (`politely:pace:v2:{host}`): both live in one Cluster slot. */
export const SIGNAL_PREFIX = 'politely:signal:v1:';

/**
 * A host not heard from for this long starts afresh (in memory and on Redis): 10 minutes, long enough
 * to span a site's bad patch, short enough that yesterday's outage does not slow today's crawl.
 */
export const SIGNAL_TTL_MS = 600_000;
/** Hosts whose signal is kept in process memory at most (least recently used go first). */
const MAX_HOSTS = 10_000;

/**
 * KEYS[1] the host's signal hash; ARGV[1] latency ms (-1: not measured); ARGV[2] 'error' or 'ok';
 * ARGV[3] smoothing; ARGV[4] growth; ARGV[5] largest penalty; ARGV[6] decay; ARGV[7] TTL ms;
 * ARGV[8] rate-limit spacing ms (-1: the response asked for none); ARGV[9] for how long, ms.
 * The same update as observeSample and withRateLimit; the rate limit's end is kept on the server
 * clock (`ru`), as the scheduler keeps its slots, so processes never disagree about when it ends.
 * Returns {latency or '-1', penalty, rate-limit spacing or '-1', ms until it ends} as strings (Redis
 * would truncate Lua numbers to integers).
 */
export const OBSERVE_SCRIPT = lua(`${PRELUDE}local fields = redis.call('HMGET', KEYS[1], 'l', 'p', 'rs', 'ru')
local l = tonumber(fields[1])
local p = tonumber(fields[2]) or 1
local sample = tonumber(ARGV[1])
if sample >= 0 then
  if l then l = l + tonumber(ARGV[3]) * (sample - l) else l = sample end
end
if ARGV[2] == 'error' then p = math.min(tonumber(ARGV[5]), p * tonumber(ARGV[4]))
else p = math.max(1, p * tonumber(ARGV[6])) end
redis.call('HSET', KEYS[1], 'p', tostring(p))
if l then redis.call('HSET', KEYS[1], 'l', tostring(l)) end
local rs = tonumber(fields[3])
local ru = tonumber(fields[4])
if tonumber(ARGV[8]) >= 0 then
  rs = tonumber(ARGV[8])
  ru = now + tonumber(ARGV[9])
  redis.call('HSET', KEYS[1], 'rs', tostring(rs), 'ru', tostring(ru))
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
if rs and ru and ru > now then return {tostring(l or -1), tostring(p), tostring(rs), tostring(ru - now)} end
return {tostring(l or -1), tostring(p), '-1', '0'}
`);

export interface MemorySignalStore extends SignalStore {
  /** Replaces the host's signal (with the fleet's, read back from Redis). */
  set(host: string, signal: HostSignal): void;
}

export function createMemorySignalStore(clock: Clock = systemClock): MemorySignalStore {
  // ttlResolution 0: the clock is read on each look. lru-cache's default caches it for a millisecond
  // behind a 1 ms timer, which every request then paid for (a timer made, armed and fired about once
  // per request), for a 10-minute TTL that needs no such precision.
  const signals = new LRUCache<string, HostSignal>({ max: MAX_HOSTS, ttl: SIGNAL_TTL_MS, ttlResolution: 0 });
  return {
    async observe(host, sample) {
      const next = withRateLimit(observeSample(signals.get(host) ?? NO_SIGNAL, sample), sample, clock.now());
      signals.set(host, next);
      return next;
    },
    get: (host) => signals.get(host) ?? NO_SIGNAL,
    set: (host, signal) => {
      signals.set(host, signal);
    },
  };
}

export interface RedisSignalStoreOptions {
  /** The Redis scheduler's calls (its deadline: a slower reply leaves the sample to process memory). */
  readonly call: CallRedis;
  /** False while the fleet's Redis is known to be away (the scheduler's fallback): skip it then. */
  readonly redisUsable?: () => boolean;
  readonly prefix?: string;
  readonly clock?: Clock;
}

export function createRedisSignalStore(options: RedisSignalStoreOptions): SignalStore {
  const { call, redisUsable = () => true, prefix = SIGNAL_PREFIX, clock = systemClock } = options;
  const local = createMemorySignalStore(clock);

  const onRedis = async (host: string, sample: SignalSample): Promise<HostSignal | undefined> => {
    const outcome = await call(
      OBSERVE_SCRIPT,
      [`${prefix}{${host}}`],
      [
        String(sample.latencyMs !== undefined && sample.latencyMs >= 0 ? sample.latencyMs : -1),
        sample.outcome,
        String(LATENCY_SMOOTHING),
        String(PENALTY_GROWTH),
        String(MAX_PENALTY),
        String(PENALTY_DECAY),
        String(SIGNAL_TTL_MS),
        String(sample.rateLimit ? sample.rateLimit.spacingMs : -1),
        String(sample.rateLimit ? sample.rateLimit.forMs : 0),
      ],
    );
    return outcome.ok ? parseSignal(outcome.value, clock.now()) : undefined;
  };

  return {
    async observe(host, sample) {
      const mine = await local.observe(host, sample);
      if (!redisUsable()) return mine;
      const fleet = await onRedis(host, sample);
      if (fleet === undefined) return mine;
      // The fleet's view replaces ours: it includes this sample and every other process's.
      local.set(host, fleet);
      return fleet;
    },
    get: (host) => local.get(host),
  };
}

function parseSignal(value: unknown, now: number): HostSignal | undefined {
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  const [latency, penalty, spacingMs, forMs] = value.map(Number) as [number, number, number, number];
  if (!Number.isFinite(latency) || !Number.isFinite(penalty) || penalty < 1) return undefined;
  const signal = { latencyMs: latency < 0 ? undefined : latency, penalty };
  // The fleet's rate limit, its end turned from the server's clock into ours.
  if (!Number.isFinite(spacingMs) || spacingMs < 0 || !Number.isFinite(forMs) || forMs <= 0) return signal;
  return { ...signal, rateLimit: { spacingMs, untilMs: now + forMs } };
}
