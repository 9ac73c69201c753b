import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/cache/memory-store.js';

describe('memory store', () => {
  it('is Keyv-shaped: get, set with a TTL in ms, delete', async () => {
    const clock = { t: 50_000 };
    const store = createMemoryStore({ now: () => clock.t });
    await store.set('a', { v: 1 }, 1000);
    await store.set('forever', 'x');
    expect(await store.get('a')).toEqual({ v: 1 });
    clock.t = 50_999;
    expect(await store.get('a')).toEqual({ v: 1 });
    clock.t = 51_001;
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('forever')).toBe('x');
    expect(await store.delete('forever')).toBe(true);
    expect(await store.get('forever')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const store = createMemoryStore({ maxEntries: 2 });
    await store.set('a', 1);
    await store.set('b', 2);
    await store.get('a');
    await store.set('c', 3);
    expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual([1, undefined, 3]);
    expect(store.size).toBe(2);
  });

  it('stores falsy values', async () => {
    const store = createMemoryStore();
    await store.set('zero', 0);
    await store.set('null', null);
    expect(await store.get('zero')).toBe(0);
    expect(await store.get('null')).toBeNull();
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects maxEntries %s with a TypeError naming it', (maxEntries) => {
    expect(() => createMemoryStore({ maxEntries })).toThrow(/maxEntries/);
  });
});
