/**
 * Fleet-wide signals: two processes' observations of one host land in one Redis hash (hash-tagged like
 * the pace keys), each process reads the fleet's view back; Redis trouble leaves the sample in memory.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../../test/helpers/redis.js';
import { toScriptClient } from '../../src/schedule/redis-client.js';
import { effectiveDelayMs, NO_SIGNAL, observeSample, PENALTY_DECAY } from '../../src/signals/host-signal.js';
import { createRedisSignalStore } from '../../src/signals/signal-store.js';

const redisUp = await requireRedis('Redis signal store');

describe.skipIf(!redisUp)('Redis signal store', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: REDIS_URL });
    await client.connect();
  });
  afterAll(() => client?.destroy());

  const storeOn = (prefix: string, usable = () => true) => {
    const redis = toScriptClient(client);
    if (!redis) throw new Error('client not recognised');
    return createRedisSignalStore({ redis, prefix, redisUsable: usable });
  };

  it('two processes share one smoothed latency and penalty per host, in a hash-tagged key', async () => {
    const prefix = `${uniquePrefix('signals')}:`;
    const one = storeOn(prefix);
    const two = storeOn(prefix);
    await one.observe('site.test', { latencyMs: 100, outcome: 'ok' });
    const seen = await two.observe('site.test', { latencyMs: 500, outcome: 'error' });
    const expected = observeSample(observeSample(NO_SIGNAL, { latencyMs: 100, outcome: 'ok' }), {
      latencyMs: 500,
      outcome: 'error',
    });
    expect(seen.latencyMs).toBeCloseTo(expected.latencyMs ?? 0, 6);
    expect(seen.penalty).toBe(expected.penalty);
    expect(two.get('site.test')).toEqual(seen);
    // `one` learns the fleet's view with its next observation.
    const next = await one.observe('site.test', { outcome: 'ok' });
    expect(next.penalty).toBeCloseTo(expected.penalty * PENALTY_DECAY, 9);
    const key = `${prefix}{site.test}`;
    expect(await client.hGetAll(key)).toMatchObject({ p: String(next.penalty) });
    expect(await client.pTTL(key)).toBeGreaterThan(0);
    expect(effectiveDelayMs(1000, next, { latencyFactor: 2, maxDelayMs: 60_000 })).toBeGreaterThan(1000);
  });

  it("a rate limit one process read paces the other, its end kept on the server's clock", async () => {
    const prefix = `${uniquePrefix('signals')}:`;
    const one = storeOn(prefix);
    const two = storeOn(prefix);
    const before = Date.now();
    await one.observe('quota.test', { outcome: 'ok', rateLimit: { spacingMs: 2000, forMs: 10_000 } });
    // `two` has read no header itself: its next observation brings the fleet's rate limit back.
    const seen = await two.observe('quota.test', { outcome: 'ok' });
    expect(seen.rateLimit?.spacingMs).toBe(2000);
    expect(seen.rateLimit?.untilMs).toBeGreaterThan(before + 9000);
    expect(seen.rateLimit?.untilMs).toBeLessThanOrEqual(Date.now() + 10_000);
    // A later reading replaces it, for both.
    await two.observe('quota.test', { outcome: 'ok', rateLimit: { spacingMs: 500, forMs: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = await one.observe('quota.test', { outcome: 'ok' });
    expect(after.rateLimit).toBeUndefined();
  });

  it('while Redis is away the sample is applied in process memory', async () => {
    const prefix = `${uniquePrefix('signals')}:`;
    const away = storeOn(prefix, () => false);
    const seen = await away.observe('site.test', { latencyMs: 300, outcome: 'error' });
    expect(seen).toEqual({ latencyMs: 300, penalty: 2 });
    expect(await client.exists(`${prefix}{site.test}`)).toBe(0);
  });

  it('a failing Redis call falls back to process memory without rejecting', async () => {
    const broken = createRedisSignalStore({
      redis: {
        flavour: 'node-redis',
        evalSha: async () => {
          throw new Error('READONLY');
        },
        eval: async () => {
          throw new Error('READONLY');
        },
        isOpen: () => true,
      },
    });
    expect(await broken.observe('site.test', { latencyMs: 40, outcome: 'ok' })).toEqual({
      latencyMs: 40,
      penalty: 1,
    });
  });
});
