/**
 * What only the Redis leases do (the shared behaviour is in the scheduler contract suite): the lease
 * set expires on its own, a release takes the lease off Redis, and leases taken in-process while
 * Redis was away are handed over when it is back, so the fleet counts them.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../../test/helpers/redis.js';
import { WaitTooLongError } from '../../src/kernel/errors.js';
import type { PolitelyEvent } from '../../src/kernel/events.js';
import { createRedisScheduler, type RedisScheduler } from '../../src/schedule/redis-scheduler.js';
import { Redis } from './ioredis.js';

const redisUp = await requireRedis('Redis in-flight leases');

describe.skipIf(!redisUp)('Redis in-flight leases', () => {
  let client: ReturnType<typeof createClient>;
  let inspector: Redis;
  const schedulers: RedisScheduler[] = [];
  beforeAll(async () => {
    client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    await client.connect();
    inspector = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    for (const scheduler of schedulers) await scheduler.close();
    client.destroy();
    inspector.disconnect();
  });

  it('keeps each host’s leases in one set that expires on its own, and takes a released lease off', async () => {
    const prefix = `${uniquePrefix('lease-ttl')}:`;
    const scheduler = createRedisScheduler({ client, prefix, leaseTtlMs: 5000 });
    schedulers.push(scheduler);
    const lease = await scheduler.acquireInFlight('a.test', 2);
    const key = `${prefix}{a.test}:in-flight`;
    expect(await inspector.zcard(key)).toBe(1);
    const ttl = await inspector.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5000);
    lease.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await inspector.zcard(key)).toBe(0);
  });

  it('gives its last lease back before close() resolves, so a process that quits right after its last request holds nobody up', async () => {
    const prefix = `${uniquePrefix('lease-close')}:`;
    const own = createClient({ url: REDIS_URL });
    own.on('error', () => {});
    await own.connect();
    const quitting = createRedisScheduler({ client: own, prefix, leaseTtlMs: 15_000 });
    const lease = await quitting.acquireInFlight('a.test', 1);
    lease.release();
    await quitting.close();
    own.destroy();
    expect(await inspector.zcard(`${prefix}{a.test}:in-flight`)).toBe(0);
    const next = createRedisScheduler({ client, prefix, leaseTtlMs: 15_000 });
    schedulers.push(next);
    // Before the fix this waited for the abandoned lease to expire (15 s) and was refused.
    const taken = await next.acquireInFlight('a.test', 1, { maxWaitMs: 2_000 });
    taken.release();
  });

  it('hands the leases taken during an outage over to Redis once it is back', async () => {
    const prefix = `${uniquePrefix('lease-handover')}:`;
    let down = true;
    const fail = () => Promise.reject(new Error('connect ECONNREFUSED'));
    // The same server, through a link that is down until the test lifts it.
    const link = {
      evalSha: (sha: string, options: object) => (down ? fail() : client.evalSha(sha, options)),
      eval: (script: string, options: object) => (down ? fail() : client.eval(script, options)),
      isOpen: true,
    };
    const events: PolitelyEvent[] = [];
    const cutOff = createRedisScheduler({
      client: link,
      prefix,
      fallbackRetryMs: 50,
      emit: (event) => events.push(event),
    });
    const other = createRedisScheduler({ client, prefix });
    schedulers.push(cutOff, other);

    const lease = await cutOff.acquireInFlight('a.test', 1);
    expect(cutOff.kind).toBe('memory-fallback');
    // The rest of the fleet cannot see it yet.
    (await other.acquireInFlight('a.test', 1, { maxWaitMs: 0 })).release();
    await new Promise((resolve) => setTimeout(resolve, 20));

    down = false;
    for (let i = 0; i < 100 && cutOff.kind !== 'redis'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(events.map((event) => event.type)).toEqual(['scheduler-fallback', 'scheduler-recovered']);
    // Back on Redis, the lease taken in-process counts for the whole fleet until it is released.
    await expect(other.acquireInFlight('a.test', 1, { maxWaitMs: 0 })).rejects.toBeInstanceOf(
      WaitTooLongError,
    );
    lease.release();
    (await other.acquireInFlight('a.test', 1, { maxWaitMs: 2000 })).release();
  });
});
