import KeyvRedis, { createKeyv } from '@keyv/redis';
import Keyv from 'keyv';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../../test/helpers/redis.js';
import { resolveOptions } from '../../src/facade/options.js';
import type { PolitelyEvent } from '../../src/facade/types.js';
import { systemClock } from '../../src/kernel/clock.js';
import { redisClientFromStore } from '../../src/schedule/redis-client.js';
import { createRedisScheduler, type RedisScheduler } from '../../src/schedule/redis-scheduler.js';
import { resolveScheduler } from '../../src/schedule/resolve-scheduler.js';
import type { Clock } from '../../src/schedule/types.js';
import { Redis } from './ioredis.js';

const redisUp = await requireRedis('Redis scheduler');

type NodeRedis = ReturnType<typeof createClient>;

/** The same behaviour, asserted through each client library. */
const clients: Array<{
  name: string;
  open: () => Promise<object>;
  close: (client: object) => Promise<void>;
}> = [
  {
    name: 'node-redis',
    open: async () => {
      const client = createClient({ url: REDIS_URL });
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    close: async (client) => {
      (client as NodeRedis).destroy();
    },
  },
  {
    name: 'ioredis',
    open: async () => {
      const client = new Redis(REDIS_URL, { lazyConnect: true });
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    close: async (client) => {
      (client as Redis).disconnect();
    },
  },
];

/** A second connection for looking at keys from outside the scheduler. */
let inspector: Redis;

describe.skipIf(!redisUp)('Redis scheduler', () => {
  beforeAll(async () => {
    inspector = new Redis(REDIS_URL);
  });
  afterAll(() => {
    inspector.disconnect();
  });

  describe.each(clients)('through $name', ({ open, close }) => {
    let client: object;
    const schedulers: RedisScheduler[] = [];
    const make = (prefix: string, extra: { safetyMarginMs?: number } = {}) => {
      const scheduler = createRedisScheduler({ client, prefix, ...extra });
      schedulers.push(scheduler);
      return scheduler;
    };

    beforeAll(async () => {
      client = await open();
    });
    afterAll(async () => {
      for (const scheduler of schedulers) await scheduler.close();
      await close(client);
    });

    it('a waiting caller whose host moves later (a real send reported by another process) waits longer', async () => {
      const prefix = `${uniquePrefix('moved')}:`;
      const one = make(prefix);
      const other = make(prefix);
      const first = await one.reserve('a.test', 300);
      const waiting = other.reserve('a.test', 300);
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The first request really went out 150 ms after its start (Politeness.markSent): the host's
      // next start is 150 + 300 after the first start, later than the slot the waiter was given.
      await one.penalize('a.test', first.startAt + 150 + 300 - Date.now());
      const second = await waiting;
      expect(second.startAt - first.startAt).toBeGreaterThanOrEqual(450);
      expect(one.kind).toBe('redis');
      expect(other.kind).toBe('redis');
    });

    it('keeps the gap after a caller in another process that woke late', async () => {
      // A busy CPU wakes one process 60 ms after its slot; the next process, due on the schedule
      // 140 ms after that late start, learns of it when it confirms its own start, and waits.
      const prefix = `${uniquePrefix('late')}:`;
      const lateClock: Clock = {
        now: systemClock.now,
        sleep: (ms, signal) => systemClock.sleep(ms + 60, signal),
      };
      const late = createRedisScheduler({ client, prefix, clock: lateClock });
      const punctual = make(prefix);
      const first = await late.reserve('a.test', 200);
      const lateStart = late.reserve('a.test', 200);
      const nextStart = punctual.reserve('a.test', 200);
      const [a, b] = await Promise.all([lateStart, nextStart]);
      // Late against its slot (first start + 200), however long the call took to be made on a busy
      // machine (its own wait, from the call, was 229 ms once in CI).
      expect(a.startAt - first.startAt).toBeGreaterThanOrEqual(200 + 60);
      expect(b.startAt - a.startAt).toBeGreaterThanOrEqual(200);
      await late.close();
    });

    it('peek says when a host is due for every scheduler sharing the Redis, and reserves nothing', async () => {
      const prefix = `${uniquePrefix('peek')}:`;
      const one = make(prefix, { safetyMarginMs: 0 });
      const other = make(prefix, { safetyMarginMs: 0 });
      const before = Date.now();
      expect(await other.peek('a.test')).toBeLessThanOrEqual(Date.now());
      expect(await one.tryReserve('a.test', 10_000)).toMatchObject({ ok: true });
      const due = await other.peek('a.test');
      expect(due).toBeGreaterThanOrEqual(before + 9_000);
      expect(due).toBeLessThanOrEqual(Date.now() + 10_000);
      // Peeking again writes nothing (the stored schedule is unchanged, on the server), and a
      // reservation still waits for that slot.
      const stored = await inspector.hgetall(`${prefix}{a.test}`);
      expect(Object.keys(stored).sort()).toEqual(['f', 'n']);
      await other.peek('a.test');
      expect(await inspector.hgetall(`${prefix}{a.test}`)).toEqual(stored);
      const refused = await other.tryReserve('a.test', 10_000);
      if (refused.ok) throw new Error('expected "not yet"');
      expect(refused.notBefore).toBeGreaterThanOrEqual(before + 9_000);
      expect(await inspector.hgetall(`${prefix}{a.test}`)).toEqual(stored);
      await one.penalize('b.test', 30_000);
      expect(await other.peek('b.test')).toBeGreaterThan(Date.now() + 29_000);
      // An unknown host is never written by peeking.
      expect(await inspector.exists(`${prefix}{c.test}`)).toBe(0);
      await other.peek('c.test');
      expect(await inspector.exists(`${prefix}{c.test}`)).toBe(0);
    });

    it('sets a TTL on every key it writes, so Redis does not fill up', async () => {
      const prefix = `${uniquePrefix('ttl')}:`;
      const scheduler = make(prefix);
      await scheduler.reserve('a.test', 2000);
      await scheduler.penalize('b.test', 20_000);
      const reserveTtl = await inspector.pttl(`${prefix}{a.test}`);
      const penaltyTtl = await inspector.pttl(`${prefix}{b.test}`);
      expect(reserveTtl).toBeGreaterThan(2000);
      expect(reserveTtl).toBeLessThanOrEqual(2000 + 4 + 1000);
      expect(penaltyTtl).toBeGreaterThan(20_000);
      expect(penaltyTtl).toBeLessThanOrEqual(20_000 + 1000);
    });

    it('close() leaves the caller’s client open', async () => {
      const scheduler = createRedisScheduler({ client, prefix: `${uniquePrefix('close')}:` });
      await scheduler.reserve('a.test', 10);
      await scheduler.close();
      const fresh = createRedisScheduler({ client, prefix: `${uniquePrefix('close')}:` });
      await fresh.reserve('a.test', 10);
      expect(fresh.kind).toBe('redis');
      await fresh.close();
    });
  });

  describe('when a reply comes back slowly', () => {
    let client: NodeRedis;
    beforeAll(async () => {
      client = createClient({ url: REDIS_URL });
      client.on('error', () => {});
      await client.connect();
    });
    afterAll(() => {
      client.destroy();
    });

    it('records the start again so the next process keeps the gap from the real start', async () => {
      // Every reply reaches this "process" 60 ms after the script ran (a stalled CPU, a slow link).
      const delayed = async (reply: Promise<unknown>) => {
        const value = await reply;
        await new Promise((resolve) => setTimeout(resolve, 60));
        return value;
      };
      const slowLink = {
        evalSha: (sha: string, options: object) => delayed(client.evalSha(sha, options)),
        eval: (script: string, options: object) => delayed(client.eval(script, options)),
        isOpen: true,
      };
      const prefix = `${uniquePrefix('slow-reply')}:`;
      const slow = createRedisScheduler({ client: slowLink, prefix });
      const fast = createRedisScheduler({ client, prefix });
      const first = await slow.reserve('a.test', 200);
      const second = await fast.reserve('a.test', 200);
      expect(second.startAt - first.startAt).toBeGreaterThanOrEqual(200);
      await Promise.all([slow.close(), fast.close()]);
    });
  });

  describe('with a Keyv store on @keyv/redis', () => {
    it('finds the store’s node-redis client and paces fleet-wide through it, connecting it if needed', async () => {
      const keyv = new Keyv(new KeyvRedis(REDIS_URL, { throwOnConnectError: false }));
      const events: PolitelyEvent[] = [];
      try {
        const client = redisClientFromStore(keyv);
        expect(client).toBe((keyv.store as KeyvRedis<unknown>).client);
        // 'auto' with this store: Redis, before the store was ever used (nothing connected yet).
        const scheduler = resolveScheduler(
          { scheduler: 'auto', store: keyv },
          { clock: systemClock, emit: (e) => events.push(e) },
        );
        expect(scheduler.kind).toBe('redis');
        const host = `${uniquePrefix('keyv')}.test`;
        const first = await scheduler.tryReserve(host, 30_000);
        expect(first.ok).toBe(true);
        const ttl = await inspector.pttl(`politely:pace:v2:{${host}}`);
        expect(ttl).toBeGreaterThan(30_000);
        const second = await scheduler.tryReserve(host, 30_000);
        expect(second.ok).toBe(false);
        expect(events).toEqual([]);
        await scheduler.close();
      } finally {
        await keyv.disconnect();
      }
    });

    it('works the same with createKeyv()', async () => {
      const keyv = createKeyv(REDIS_URL, { namespace: 'politely-test' });
      try {
        const scheduler = resolveScheduler(resolveOptions({ userAgent: 'Bot', store: keyv }), {
          clock: systemClock,
          emit: () => {},
        });
        expect(scheduler.kind).toBe('redis');
        const host = `${uniquePrefix('createKeyv')}.test`;
        expect(await scheduler.tryReserve(host, 10_000)).toMatchObject({ ok: true });
        expect(await scheduler.tryReserve(host, 10_000)).toMatchObject({ ok: false });
      } finally {
        await keyv.disconnect();
      }
    });
  });
});
