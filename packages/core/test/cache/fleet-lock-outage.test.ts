/**
 * The fleet lock while Redis is away (issue 25, point 4): the trouble costs one lookup, not one per
 * origin. A failed or slow call opens a breaker, and while it is open, or while the Redis scheduler
 * on the same connection is in its memory fallback, new origins are fetched here at once; a probe
 * (a write) every `retryMs` finds Redis back, then the lock is used again. Fake clocks with a stub
 * client where time is the point; a real client on a closed port for what a refused Redis does.
 */
import { createServer } from 'node:net';
import { createClient } from 'redis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFleetLock, ROBOTS_LOCK_PREFIX } from '../../src/cache/fleet-lock.js';
import { type RedisScriptClient, toScriptClient } from '../../src/schedule/redis-client.js';

/**
 * A Redis that hangs (a node-redis client queues commands while it reconnects to a refused port), or
 * answers 1 to every script (the lock taken, released, the probe written). Keeps the keys it was asked
 * about, as a server's log would.
 */
function stubRedis() {
  const state = { up: false, keys: [] as string[] };
  const answer = (keys: readonly string[]) => {
    state.keys.push(keys[0] as string);
    return state.up ? Promise.resolve(1) : new Promise<never>(() => {});
  };
  const client: RedisScriptClient = {
    flavour: 'node-redis',
    evalSha: (_sha, keys) => answer(keys),
    eval: (_source, keys) => answer(keys),
    isOpen: () => true,
  };
  return { client, state };
}

/** Settles `promise` by moving the fake clock on in 10 ms steps; the fake ms it took. */
async function settle<T>(promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await vi.advanceTimersByTimeAsync(0);
  while (!done) await vi.advanceTimersByTimeAsync(10);
  return { value: await promise, ms: Date.now() - started };
}

const lockKey = (name: string) => `${ROBOTS_LOCK_PREFIX}{${name}}`;

describe('fleet lock while Redis is away (fake clock)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const lockOn = (client: RedisScriptClient, redisAway?: () => boolean) =>
    createFleetLock({
      redis: client,
      ttlMs: 15_000,
      pollMs: 50,
      commandTimeoutMs: 3000,
      retryMs: 5000,
      now: () => Date.now(),
      ...(redisAway ? { redisAway } : {}),
    });

  it('12 new origins in sequence with Redis hanging: the first waits out the timeout, the other 11 fetch at once', async () => {
    const { client, state } = stubRedis();
    const lock = lockOn(client);
    const waited: number[] = [];
    for (let i = 0; i < 12; i++) {
      const { value, ms } = await settle(
        lock.run(
          `https://site-${i}.example`,
          async () => undefined,
          async () => 'fetched here',
        ),
      );
      expect(value).toBe('fetched here');
      waited.push(ms);
    }
    // The timeout (one 10 ms step for the reply that may have come in during its last slice).
    expect(waited[0]).toBeGreaterThanOrEqual(3000);
    expect(waited[0]).toBeLessThanOrEqual(3010);
    expect(waited.slice(1)).toEqual(Array(11).fill(0));
    // One lock attempt in all (then the breaker), and no probe before retryMs.
    expect(state.keys).toEqual([lockKey('https://site-0.example')]);
  });

  it('once Redis takes the probe (a write, retryMs after the failure), new origins use the lock again', async () => {
    const { client, state } = stubRedis();
    const lock = lockOn(client);
    const fetchHere = async () => 'fetched here';
    await settle(lock.run('https://a.example', async () => undefined, fetchHere));
    state.up = true;
    await vi.advanceTimersByTimeAsync(1000);
    // Before retryMs: no Redis call.
    expect((await settle(lock.run('https://b.example', async () => undefined, fetchHere))).ms).toBe(0);
    expect(state.keys).toEqual([lockKey('https://a.example')]);
    await vi.advanceTimersByTimeAsync(4000);
    // The lookup that finds the probe due does not wait for it ...
    expect((await settle(lock.run('https://c.example', async () => undefined, fetchHere))).ms).toBe(0);
    expect(state.keys).toEqual([lockKey('https://a.example'), `${ROBOTS_LOCK_PREFIX}probe`]);
    // ... and the next one goes through the lock.
    await settle(lock.run('https://d.example', async () => undefined, fetchHere));
    expect(state.keys).toContain(lockKey('https://d.example'));
    expect(state.keys).not.toContain(lockKey('https://c.example'));
  });

  it('while the scheduler on the same Redis has fallen back to memory, no origin tries the lock; when it is back, they do', async () => {
    const { client, state } = stubRedis();
    state.up = true;
    let schedulerAway = true;
    const lock = lockOn(client, () => schedulerAway);
    const fetchHere = async () => 'fetched here';
    for (let i = 0; i < 12; i++) {
      const { ms } = await settle(lock.run(`https://site-${i}.example`, async () => undefined, fetchHere));
      expect(ms).toBe(0);
    }
    expect(state.keys).toEqual([]);
    schedulerAway = false;
    await settle(lock.run('https://back.example', async () => undefined, fetchHere));
    expect(state.keys).toContain(lockKey('https://back.example'));
  });
});

describe('fleet lock with the Redis port refused (a real client)', () => {
  it('12 new origins make one attempt on Redis, not twelve, and all are fetched here', async () => {
    // A port that was just free on loopback: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const client = createClient({ url: `redis://127.0.0.1:${port}` });
    client.on('error', () => {});
    const script = toScriptClient(client);
    if (!script) throw new Error('not a Redis client');
    let attempts = 0;
    const counted: RedisScriptClient = {
      ...script,
      flavour: script.flavour,
      isOpen: () => script.isOpen(),
      evalSha: (...args) => {
        attempts++;
        return script.evalSha(...args);
      },
      eval: (...args) => script.eval(...args),
    };
    const lock = createFleetLock({
      redis: counted,
      connect: () => client.connect(),
      ttlMs: 15_000,
      commandTimeoutMs: 300,
      retryMs: 60_000,
    });
    try {
      const results: string[] = [];
      for (let i = 0; i < 12; i++)
        results.push(
          await lock.run(
            `https://site-${i}.example`,
            async () => undefined,
            async () => 'fetched here',
          ),
        );
      expect(results).toEqual(Array(12).fill('fetched here'));
      expect(attempts).toBeLessThanOrEqual(1);
    } finally {
      client.destroy();
    }
  });
});
