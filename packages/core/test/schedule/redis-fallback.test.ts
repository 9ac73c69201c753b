import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisServerSkip } from '../../../../test/helpers/redis.js';
import type { PolitelyEvent } from '../../src/facade/types.js';
import { createRedisScheduler } from '../../src/schedule/redis-scheduler.js';
import { Redis } from './ioredis.js';
import { type PrivateRedis, startPrivateRedis } from './redis-server.js';

const unavailable = redisServerSkip('Redis fallback');

function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (condition()) resolve();
      else if (Date.now() > deadline) reject(new Error('condition not met in time'));
      else setTimeout(poll, 10);
    };
    poll();
  });
}

describe.skipIf(unavailable !== undefined)('Redis scheduler when Redis goes away', () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await startPrivateRedis();
  });
  afterAll(async () => {
    await server.kill();
  });

  it('loads its script on a fresh server (NOSCRIPT -> EVAL) without falling back', async () => {
    const client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
    const events: PolitelyEvent[] = [];
    const scheduler = createRedisScheduler({ client, prefix: 'fresh:', emit: (e) => events.push(e) });
    try {
      await client.sendCommand(['SCRIPT', 'FLUSH']);
      expect(await scheduler.tryReserve('a.test', 10_000)).toMatchObject({ ok: true });
      await client.sendCommand(['SCRIPT', 'FLUSH']);
      expect(await scheduler.tryReserve('a.test', 10_000)).toMatchObject({ ok: false });
      expect(scheduler.kind).toBe('redis');
      expect(events).toEqual([]);
    } finally {
      await scheduler.close();
      client.destroy();
    }
  });

  it('falls back to in-process pacing with one warning when the server dies, and recovers when it is back', async () => {
    const client = createClient({ url: server.url, socket: { reconnectStrategy: () => 50 } });
    client.on('error', () => {});
    await client.connect();
    const events: PolitelyEvent[] = [];
    const scheduler = createRedisScheduler({
      client,
      prefix: 'outage:',
      emit: (e) => events.push(e),
      commandTimeoutMs: 500,
      fallbackRetryMs: 100,
    });
    try {
      const first = await scheduler.reserve('a.test', 100);
      expect(scheduler.kind).toBe('redis');

      await server.kill();
      // The crawl keeps going: reservations are answered in-process, still spaced, one event only.
      const during = [];
      for (let i = 0; i < 3; i++) during.push(await scheduler.reserve('a.test', 100));
      expect(scheduler.kind).toBe('memory-fallback');
      expect(events.map((e) => e.type)).toEqual(['scheduler-fallback']);
      expect((events[0] as { error: unknown }).error).toBeInstanceOf(Error);
      const starts = [first, ...during].map((r) => r.startAt);
      const gaps = starts.slice(1).map((start, i) => start - (starts[i] ?? 0));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(100);
      expect(await scheduler.tryReserve('other.test', 0)).toMatchObject({ ok: true });
      // Peeking during the outage answers from the in-process pace.
      expect(await scheduler.peek('a.test')).toBeGreaterThanOrEqual((during.at(-1)?.startAt ?? 0) + 100);

      // A slot taken in-process during the outage is handed to Redis on recovery.
      await scheduler.penalize('a.test', 30_000);
      await server.restart();
      await until(() => events.some((e) => e.type === 'scheduler-recovered'));
      expect(scheduler.kind).toBe('redis');
      expect(events.map((e) => e.type)).toEqual(['scheduler-fallback', 'scheduler-recovered']);
      const fleet = createRedisScheduler({ client, prefix: 'outage:' });
      const refused = await fleet.tryReserve('a.test', 100);
      expect(refused.ok).toBe(false);
      expect((refused as { waitMs: number }).waitMs).toBeGreaterThan(25_000);
      await fleet.close();
    } finally {
      await scheduler.close();
      client.destroy();
    }
  });

  it('falls back when the node-redis client is closed by its owner', async () => {
    const client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
    const events: PolitelyEvent[] = [];
    const scheduler = createRedisScheduler({ client, prefix: 'closed:', emit: (e) => events.push(e) });
    try {
      // A delay no stall of this process outlasts: the in-process pace must know the slot from Redis.
      const first = await scheduler.reserve('a.test', 60_000);
      client.destroy();
      // The first call after the loss finds out, falls back, and still answers.
      expect(await scheduler.peek('a.test')).toBeGreaterThanOrEqual(first.startAt + 60_000);
      expect(await scheduler.tryReserve('a.test', 60_000)).toMatchObject({ ok: false });
      expect(scheduler.kind).toBe('memory-fallback');
      expect(events.map((e) => e.type)).toEqual(['scheduler-fallback']);
    } finally {
      await scheduler.close();
    }
  });

  it('falls back when the ioredis client is disconnected by its owner', async () => {
    const client = new Redis(server.url);
    client.on('error', () => {});
    const events: PolitelyEvent[] = [];
    const scheduler = createRedisScheduler({ client, prefix: 'closed-io:', emit: (e) => events.push(e) });
    try {
      await scheduler.reserve('a.test', 50);
      client.disconnect();
      await scheduler.reserve('a.test', 50);
      await scheduler.penalize('a.test', 30_000);
      expect(scheduler.kind).toBe('memory-fallback');
      expect(events.map((e) => e.type)).toEqual(['scheduler-fallback']);
      expect(await scheduler.tryReserve('a.test', 50)).toMatchObject({ ok: false });
    } finally {
      await scheduler.close();
    }
  });
});
