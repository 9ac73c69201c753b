import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/facade/options.js';
import { createMemoryScheduler } from '../../src/schedule/memory-scheduler.js';
import { isRedisClient, redisClientFromStore } from '../../src/schedule/redis-client.js';
import { createRedisScheduler } from '../../src/schedule/redis-scheduler.js';
import { resolveScheduler } from '../../src/schedule/resolve-scheduler.js';
import type { Scheduler } from '../../src/schedule/types.js';
import { createFakeClock } from './fake-clock.js';
import { Redis } from './ioredis.js';

// No command is sent in this file: clients are created but never connected.
const deps = { clock: createFakeClock(), emit: () => {} };

describe('resolveScheduler', () => {
  it('uses memory by default, for "auto" without a Redis-backed store, and for "memory"', () => {
    expect(resolveScheduler(resolveOptions({ userAgent: 'Bot' }), deps).kind).toBe('memory');
    expect(resolveScheduler({ scheduler: 'auto', store: undefined }, deps).kind).toBe('memory');
    expect(resolveScheduler({ scheduler: 'auto', store: new Keyv() }, deps).kind).toBe('memory');
    expect(
      resolveScheduler({ scheduler: 'memory', store: new Keyv(new KeyvRedis('redis://127.0.0.1:1')) }, deps)
        .kind,
    ).toBe('memory');
  });

  it('goes fleet-wide for "auto" when the store is a Keyv on @keyv/redis', () => {
    const keyv = new Keyv(new KeyvRedis('redis://127.0.0.1:1'));
    expect(resolveScheduler({ scheduler: 'auto', store: keyv }, deps).kind).toBe('redis');
    expect(resolveScheduler(resolveOptions({ userAgent: 'Bot', store: keyv }), deps).kind).toBe('redis');
  });

  it('goes fleet-wide for "auto" when the store is a Keyv on @keyv/valkey (an ioredis-shaped `redis`)', () => {
    const valkeyLike = new Redis({ lazyConnect: true });
    const keyv = new Keyv({ store: Object.assign(new Map(), { redis: valkeyLike }) });
    expect(redisClientFromStore(keyv)).toBe(valkeyLike);
    expect(resolveScheduler({ scheduler: 'auto', store: keyv }, deps).kind).toBe('redis');
    valkeyLike.disconnect();
  });

  it('takes a node-redis or ioredis client as a Redis scheduler', () => {
    expect(resolveScheduler({ scheduler: createClient(), store: undefined }, deps).kind).toBe('redis');
    const ioredis = new Redis({ lazyConnect: true });
    expect(resolveScheduler({ scheduler: ioredis, store: undefined }, deps).kind).toBe('redis');
    ioredis.disconnect();
  });

  it('returns a custom Scheduler as is', () => {
    const custom: Scheduler = createMemoryScheduler();
    expect(resolveScheduler({ scheduler: custom, store: undefined }, deps)).toBe(custom);
  });

  it.each([
    ['a string', 'redis'],
    ['a number', 5],
    ['null', null],
    ['a plain object', { reserve() {} }],
  ])('throws a TypeError naming `scheduler` for %s', (_name, value) => {
    expect(() => resolveScheduler({ scheduler: value as never, store: undefined }, deps)).toThrow(TypeError);
    expect(() => resolveScheduler({ scheduler: value as never, store: undefined }, deps)).toThrow(
      /`scheduler`/,
    );
  });

  it('points at `store` when a Keyv store is passed as the scheduler', () => {
    const keyv = new Keyv(new KeyvRedis('redis://127.0.0.1:1'));
    expect(() => resolveScheduler({ scheduler: keyv as never, store: undefined }, deps)).toThrow(
      /pass it as `store`/,
    );
  });
});

describe('redis client detection', () => {
  it('recognises clients by shape and nothing else', () => {
    expect(isRedisClient(createClient())).toBe(true);
    const ioredis = new Redis({ lazyConnect: true });
    expect(isRedisClient(ioredis)).toBe(true);
    ioredis.disconnect();
    expect(isRedisClient(new Map())).toBe(false);
    expect(isRedisClient(new Keyv())).toBe(false);
    expect(isRedisClient(undefined)).toBe(false);
  });

  it('finds the client of a Keyv on @keyv/redis and of the bare adapter', () => {
    const adapter = new KeyvRedis('redis://127.0.0.1:1');
    expect(redisClientFromStore(new Keyv(adapter))).toBe(adapter.client);
    expect(redisClientFromStore(adapter)).toBe(adapter.client);
    expect(redisClientFromStore(new Keyv())).toBeUndefined();
    expect(
      redisClientFromStore({
        get store() {
          throw new Error('boom');
        },
      }),
    ).toBeUndefined();
  });

  it('finds the client of a Keyv 5 adapter that Keyv 6 wraps in a bridge (keyv.store.store.redis)', () => {
    // Keyv 6 wraps an adapter without its `capabilities` (such as @keyv/valkey 1) in a
    // KeyvBridgeAdapter whose `store` getter returns the adapter: what Keyv 6 builds, by shape.
    const valkeyLike = new Redis({ lazyConnect: true });
    const valkeyAdapter = { redis: valkeyLike, get: async () => undefined };
    const bridge = { capabilities: { expires: true }, store: valkeyAdapter };
    const keyv6 = {
      store: bridge,
      get: async () => undefined,
      set: async () => true,
      delete: async () => true,
    };
    expect(redisClientFromStore(keyv6)).toBe(valkeyLike);
    expect(resolveScheduler({ scheduler: 'auto', store: keyv6 }, deps).kind).toBe('redis');
    valkeyLike.disconnect();
  });
});

describe('createRedisScheduler options', () => {
  const client = createClient();
  it.each([
    ['an unknown option', { client, prefx: 'x' }, /Unknown Redis scheduler option `prefx`/],
    ['a client of unknown shape', { client: new Map() }, /`client`.*node-redis.*ioredis.*Map/],
    ['no client', {}, /`client`/],
    ['a non-string prefix', { client, prefix: 5 }, /`prefix`.*`5` \(number\)/],
    ['a zero fallbackRetryMs', { client, fallbackRetryMs: 0 }, /`fallbackRetryMs`/],
    ['a NaN commandTimeoutMs', { client, commandTimeoutMs: Number.NaN }, /`commandTimeoutMs`/],
    ['a negative safetyMarginMs', { client, safetyMarginMs: -1 }, /`safetyMarginMs`/],
    ['a non-function emit', { client, emit: 'log' }, /`emit`/],
    ['a clock without sleep', { client, clock: { now: () => 0 } }, /`clock`/],
  ])('rejects %s with a TypeError', (_name, options, message) => {
    expect(() => createRedisScheduler(options as never)).toThrow(TypeError);
    expect(() => createRedisScheduler(options as never)).toThrow(message);
  });
});
