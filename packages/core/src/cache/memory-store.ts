/**
 * The default robots.txt store: a bounded in-process LRU with per-entry TTL, Keyv-shaped so the cache
 * treats it like any user store.
 */
import { LRUCache } from 'lru-cache';
import type { KeyvLike } from './types.js';

export interface MemoryStoreOptions {
  /** Entries kept at most; the least recently used goes first. Default 10000. */
  readonly maxEntries?: number;
  /** Clock for TTLs (tests inject a fake one). Default: performance.now. */
  readonly now?: () => number;
}

export interface MemoryStore extends KeyvLike {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs?: number): Promise<true>;
  delete(key: string): Promise<boolean>;
  clear(): Promise<void>;
  readonly size: number;
}

export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const maxEntries = options.maxEntries ?? 10_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new TypeError(
      `Expected \`maxEntries\` to be an integer >= 1, got \`${maxEntries}\` (${typeof maxEntries})`,
    );
  }
  const now = options.now;
  // lru-cache refuses `undefined` values and wants objects; wrap so any JSON-safe value fits.
  const entries = new LRUCache<string, { readonly value: unknown }>({
    max: maxEntries,
    // ttlResolution 0: read the clock on every check (the default caches it per millisecond tick).
    ...(now ? { perf: { now }, ttlResolution: 0 } : {}),
  });
  return {
    async get(key) {
      return entries.get(key)?.value;
    },
    async set(key, value, ttlMs) {
      const ttl = ttlMs !== undefined && Number.isFinite(ttlMs) && ttlMs > 0 ? ttlMs : 0;
      entries.set(key, { value }, { ttl });
      return true;
    },
    async delete(key) {
      return entries.delete(key);
    },
    async clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
