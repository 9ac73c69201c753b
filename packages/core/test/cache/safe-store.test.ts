import { describe, expect, it } from 'vitest';
import { closableStore, createSafeStore } from '../../src/cache/safe-store.js';
import type { KeyvLike } from '../../src/cache/types.js';
import type { PolitelyEvent } from '../../src/facade/types.js';

function harness(store: KeyvLike, timeoutMs = 100) {
  const clock = { t: 1_000_000 };
  const events: PolitelyEvent[] = [];
  const safe = createSafeStore(store, {
    now: () => clock.t,
    emit: (event) => events.push(event),
    timeoutMs,
    breakMs: 5000,
  });
  return { safe, clock, events };
}

describe('safe store', () => {
  it('passes values through from a working store', async () => {
    const map = new Map<string, unknown>();
    const { safe, events } = harness({
      get: (key) => map.get(key),
      set: (key, value) => map.set(key, value),
      delete: (key) => map.delete(key),
    });
    expect(await safe.set('k', { a: 1 }, 1000)).toBe(true);
    expect(await safe.get('k')).toEqual({ a: 1 });
    expect(await safe.delete('k')).toBe(true);
    expect(await safe.get('k')).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('turns a rejection into a miss, an event, and a break during which the store is not called', async () => {
    let calls = 0;
    const failure = new Error('READONLY You cannot write against a read only replica');
    const { safe, clock, events } = harness({
      get: async () => {
        calls++;
        throw failure;
      },
      set: async () => {
        calls++;
        return true;
      },
      delete: async () => true,
    });
    expect(await safe.get('k')).toBeUndefined();
    expect(events).toEqual([{ type: 'store-error', operation: 'get', key: 'k', error: failure }]);
    expect(safe.broken).toBe(true);
    expect(await safe.set('k', 1, 1000)).toBe(false);
    expect(await safe.get('k')).toBeUndefined();
    expect(calls).toBe(1);
    clock.t += 5000;
    expect(safe.broken).toBe(false);
    expect(await safe.set('k', 1, 1000)).toBe(true);
    expect(calls).toBe(2);
  });

  it('a call that hangs times out as a failure', async () => {
    const { safe, events } = harness(
      { get: () => new Promise(() => {}), set: () => true, delete: () => true },
      30,
    );
    expect(await safe.get('k')).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(String((events[0] as { error: unknown }).error)).toMatch(/store get took longer than 30 ms/);
  });

  it('a synchronous throw and a throwing listener are both contained', async () => {
    const safe = createSafeStore(
      {
        get: () => {
          throw new TypeError('not a function');
        },
        set: () => true,
        delete: () => true,
      },
      {
        now: () => 0,
        emit: () => {
          throw new Error('listener bug');
        },
      },
    );
    await expect(safe.get('k')).resolves.toBeUndefined();
  });

  it('a store whose set returns false (Keyv on failure) reports no write', async () => {
    const { safe } = harness({ get: () => undefined, set: () => false, delete: () => false });
    expect(await safe.set('k', 1, 10)).toBe(false);
  });
});

describe('closable store (issue 43.1)', () => {
  it('close() waits for the calls under way; after it nothing reaches the store', async () => {
    const map = new Map<string, unknown>();
    let release = () => {};
    const store = closableStore({
      get: (key) => map.get(key),
      set: (key, value) =>
        new Promise((resolve) => {
          release = () => resolve(map.set(key, value));
        }),
      delete: (key) => map.delete(key),
    });
    const writing = store.set('a', 1);
    let closed = false;
    const closing = store.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toBe(false);
    release();
    await closing;
    await writing;
    expect(map.get('a')).toBe(1);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.set('b', 2)).toBe(false);
    expect(map.has('b')).toBe(false);
  });

  it('a store that hangs holds close() no longer than its timeout', async () => {
    const store = closableStore(
      { get: () => new Promise(() => {}), set: () => true, delete: () => true },
      50,
    );
    void store.get('a');
    const startedAt = performance.now();
    await store.close();
    expect(performance.now() - startedAt).toBeLessThan(5000);
  });
});
