/**
 * Fleet-wide signals: two processes' observations of one host land in one Redis hash (hash-tagged like
 * the pace keys), each process reads the fleet's view back; Redis trouble leaves the sample in memory.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../../test/helpers/redis.js';
import { createPoliteness, type PolitelyEvent } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
import { createRedisScheduler } from '../../src/public/scheduler.js';
import { createRedisCall, toScriptClient } from '../../src/schedule/redis-client.js';
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
    const call = createRedisCall({ redis, connect: undefined, commandTimeoutMs: 1000 });
    return createRedisSignalStore({ call, prefix, redisUsable: usable });
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
      call: createRedisCall({
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
        connect: undefined,
        commandTimeoutMs: 1000,
      }),
    });
    expect(await broken.observe('site.test', { latencyMs: 40, outcome: 'ok' })).toEqual({
      latencyMs: 40,
      penalty: 1,
    });
  });
});

describe.skipIf(!redisUp)('a fleet on createRedisScheduler({ prefix }) shares its signals', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: REDIS_URL });
    await client.connect();
  });
  afterAll(() => client?.destroy());

  it("a quota one process read paces the other, under the fleet's own prefix", async () => {
    const prefix = `${uniquePrefix('signal-prefix')}:`;
    // A host name of this run's own, so no other test's default-prefix keys can be mistaken for it.
    const host = `quota-${prefix.replace(/[^a-z0-9]/gi, '')}.test`;
    const url = `http://${host}/a`;
    const processes = [0, 1].map(() => {
      const events: PolitelyEvent[] = [];
      const p = createPoliteness({
        userAgent: 'FleetBot/1.0',
        pacing: { minDelayMs: 100 },
        logger: false,
        scheduler: createRedisScheduler({ client, prefix }),
        robots: { fetch: async () => new Response('User-agent: *\nAllow: /\n', { status: 200 }) },
        onEvent: (event) => {
          if (event.type === 'pace-changed') events.push(event);
        },
      });
      return { p, events };
    });
    const [one, two] = processes as [(typeof processes)[0], (typeof processes)[0]];
    try {
      const decision = await two.p.check(url);
      // One process is told: 2 requests left in the next 600 s, one per 300 s.
      await one.p.observeResponse(url, 200, null, { headers: { ratelimit: '"default";r=2;t=600' } });
      // The other reads no header itself; its next response brings the fleet's reading back.
      await two.p.observeResponse(url, 200, null, { headers: {} });
      expect(adapterKit(two.p).paceMs(decision)).toBe(300_000);
      expect(two.events).toContainEqual(
        expect.objectContaining({ type: 'pace-changed', host, toMs: 300_000, reason: 'rate-limit' }),
      );
      // Kept under the fleet's prefix, not the default one another fleet would read.
      expect(await client.exists(`${prefix}signal:v1:{${host}}`)).toBe(1);
      expect(await client.exists(`politely:signal:v1:{${host}}`)).toBe(0);
    } finally {
      await Promise.all(processes.map(({ p }) => p.close()));
    }
  });
});
