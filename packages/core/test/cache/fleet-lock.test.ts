/**
 * The fleet lock behind robots.txt single flight, against the real Redis: one holder fetches, the
 * others read its result; a holder that died (its lock left behind) is survived once the lock
 * expires; Redis trouble never blocks a lookup.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../../test/helpers/redis.js';
import { createFleetLock, ROBOTS_LOCK_PREFIX } from '../../src/cache/fleet-lock.js';
import { toScriptClient } from '../../src/schedule/redis-client.js';

const redisUp = await requireRedis('fleet lock');

describe.skipIf(!redisUp)('fleet lock (robots.txt single flight across processes)', () => {
  let client: ReturnType<typeof createClient>;
  const names: string[] = [];
  beforeAll(async () => {
    client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    await client.connect();
  });
  afterAll(async () => {
    for (const name of names) await client.del(`${ROBOTS_LOCK_PREFIX}{${name}}`);
    client.destroy();
  });

  const lockOn = (redis = client, now = Date.now) => {
    const script = toScriptClient(redis);
    if (!script) throw new Error('not a Redis client');
    return createFleetLock({ redis: script, ttlMs: 2000, pollMs: 10, now });
  };

  it('runs the fetch once among concurrent callers (two "processes"); the others read its result', async () => {
    const name = uniquePrefix('lock-once');
    names.push(name);
    let shared: string | undefined;
    let fetches = 0;
    const fetchHere = async () => {
      fetches++;
      await new Promise((resolve) => setTimeout(resolve, 100));
      shared = 'rules';
      return 'rules';
    };
    const [one, other] = [lockOn(), lockOn()];
    const results = await Promise.all(
      [one, other, one, other].map((lock) => lock.run(name, async () => shared, fetchHere)),
    );
    expect(results).toEqual(['rules', 'rules', 'rules', 'rules']);
    expect(fetches).toBe(1);
    // Released by its holder: nothing left behind.
    expect(await client.exists(`${ROBOTS_LOCK_PREFIX}{${name}}`)).toBe(0);
  });

  it('survives a holder that died: once its lock expires, the next caller fetches', async () => {
    const name = uniquePrefix('lock-dead');
    names.push(name);
    const key = `${ROBOTS_LOCK_PREFIX}{${name}}`;
    // The dead holder's lock outlives any stall of this machine; the test makes it expire (PEXPIRE,
    // Redis's own expiry) after the caller has seen it held three times. A 300 ms lifetime raced the
    // caller's first acquire under load: a late first call found the lock gone and never waited.
    await client.set(key, 'a process that died', { PX: 60_000 });
    let polls = 0;
    let expired = false;
    let holderWhileFetching: string | null | undefined;
    // A clock that stands still: the wait's own deadline (twice the TTL) never passes, so the fetch
    // below can only come from the expired lock.
    const result = await lockOn(client, () => 0).run(
      name,
      async () => {
        polls++;
        if (polls === 3) {
          await client.pExpire(key, 1);
          expired = true;
        }
        return undefined;
      },
      async () => {
        expect(expired).toBe(true);
        holderWhileFetching = await client.get(key);
        return 'fetched here';
      },
    );
    expect(result).toBe('fetched here');
    expect(polls).toBeGreaterThanOrEqual(3);
    // It fetched as the lock's new holder (its own token), not past the dead one's lock or beside Redis.
    expect(holderWhileFetching).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('fetches at once when Redis cannot answer', async () => {
    const dead = createClient({ url: REDIS_URL });
    dead.on('error', () => {});
    await dead.connect();
    dead.destroy();
    const result = await lockOn(dead).run(
      uniquePrefix('lock-down'),
      async () => undefined,
      async () => 'fetched here',
    );
    expect(result).toBe('fetched here');
  });
});
