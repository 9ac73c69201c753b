/**
 * A bounded in-process LRU with per-entry TTL, Keyv-shaped so the cache treats it like any user store
 * (exported from @politely/core/cache). The robots cache does not build one when no store is given:
 * its memory tier then holds each origin once (memory-tier.ts); a second in-process copy under its
 * own count would make a broad crawl refetch every page.
 */
import { LRUCache } from 'lru-cache';
import { checkOptions, functionOption, numberOption, type OptionTable } from '../kernel/option-table.js';
import type { KeyvLike } from './types.js';

export interface MemoryStoreOptions {
  /** Entries kept at most; the least recently used goes first. Default 10000. */
  readonly maxEntries?: number;
  /**
   * Bytes the stored values may hold in all, estimated from their JSON shape (see jsonBytes); the least
   * recently used go first. Default: no byte bound.
   */
  readonly maxBytes?: number;
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

const OPTIONS = {
  maxEntries: numberOption({ min: 1, integer: true, default: 10_000 }),
  maxBytes: numberOption({ min: 1, integer: true }),
  now: functionOption<() => number>(),
} as const satisfies OptionTable<MemoryStoreOptions>;

export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const { maxEntries, maxBytes, now } = checkOptions('memory store', OPTIONS, options);
  // lru-cache refuses `undefined` values and wants objects; wrap so any JSON-safe value fits.
  const entries = new LRUCache<string, { readonly value: unknown }>({
    max: maxEntries,
    ...(maxBytes !== undefined
      ? { maxSize: maxBytes, sizeCalculation: (entry: { readonly value: unknown }) => jsonBytes(entry.value) }
      : {}),
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

/**
 * Bytes a JSON-shaped value holds, estimated from V8's layout on 64-bit: a string 24 bytes plus its
 * chars, an array 16 plus 8 per slot, an object 32 plus 16 per property, a number in a slot nothing
 * more. Shared strings are counted at each use (an upper bound). Nesting is followed 16 deep.
 */
export function jsonBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return 24 + value.length;
  if (typeof value !== 'object' || value === null || depth > 16) return 8;
  if (Array.isArray(value)) {
    let bytes = 16 + 8 * value.length;
    for (const item of value)
      if (typeof item === 'object' || typeof item === 'string') bytes += jsonBytes(item, depth + 1);
    return bytes;
  }
  let bytes = 32;
  for (const key in value) bytes += 16 + jsonBytes((value as Record<string, unknown>)[key], depth + 1);
  return bytes;
}
