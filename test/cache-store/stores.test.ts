/**
 * The cache-store suite run against every store politely accepts: the built-in memory store, Keyv 5
 * in memory, Keyv + @keyv/redis on a real Redis, and stores that throw or hang.
 */
import { createKeyv } from '@keyv/redis';
import Keyv from 'keyv';
import { createMemoryStore } from '../../packages/core/src/cache/memory-store.js';
import type { KeyvLike } from '../../packages/core/src/cache/types.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { cacheStoreSuite } from './suite.js';

cacheStoreSuite('built-in memory store', () => {
  const store = createMemoryStore();
  return { open: () => store };
});

cacheStoreSuite(
  'Keyv 5 in memory',
  () => {
    const keyv = new Keyv();
    return { open: () => keyv };
  },
  { keyv: true },
);

const redisUp = await requireRedis('cache store on Keyv + @keyv/redis');
if (redisUp) {
  cacheStoreSuite(
    'Keyv + @keyv/redis',
    () => {
      const namespace = uniquePrefix('cache-store');
      const opened: Keyv[] = [];
      return {
        // Each simulated process gets its own connection, as separate machines would.
        open: () => {
          const keyv = createKeyv(REDIS_URL, { namespace });
          opened.push(keyv);
          return keyv;
        },
        cleanup: async () => {
          await opened[0]?.clear();
          await Promise.all(opened.map((keyv) => keyv.disconnect()));
        },
      };
    },
    { keyv: true },
  );
}

/** A store whose every call fails the given way, counting calls. */
function failingStore(fail: () => Promise<never>): { open: () => KeyvLike; calls: () => number } {
  let calls = 0;
  const call = () => {
    calls++;
    return fail();
  };
  const store: KeyvLike = { get: call, set: call, delete: call };
  return { open: () => store, calls: () => calls };
}

cacheStoreSuite(
  'a store that throws',
  () => failingStore(() => Promise.reject(new Error('ECONNRESET (simulated)'))),
  {
    behaviour: 'failing',
  },
);

cacheStoreSuite(
  'a store that throws synchronously',
  () => {
    const store: KeyvLike = {
      get: () => {
        throw new TypeError('store misconfigured');
      },
      set: () => {
        throw new TypeError('store misconfigured');
      },
      delete: () => {
        throw new TypeError('store misconfigured');
      },
    };
    return { open: () => store };
  },
  { behaviour: 'failing' },
);

cacheStoreSuite('a store that hangs', () => failingStore(() => new Promise<never>(() => {})), {
  behaviour: 'failing',
  storeTimeoutMs: 100,
});

cacheStoreSuite(
  'Keyv + @keyv/redis on a Redis that is down',
  () => {
    const opened: Keyv[] = [];
    return {
      open: () => {
        // Nothing listens on port 1: node-redis keeps reconnecting and queues commands meanwhile.
        const keyv = createKeyv('redis://127.0.0.1:1', { namespace: uniquePrefix('dead-redis') });
        opened.push(keyv);
        return keyv;
      },
      cleanup: async () => {
        await Promise.all(opened.map((keyv) => keyv.disconnect().catch(() => {})));
      },
    };
  },
  { behaviour: 'failing', storeTimeoutMs: 200 },
);
