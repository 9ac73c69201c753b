/**
 * The store the plugin gives the facade when you give none: a Keyv-shaped view of a named Crawlee
 * key-value store, `politely`, in the crawl's own storage (on disk by default, under
 * `storage/key_value_stores/politely`, beside the request queue). It holds what core keeps in a store:
 * each origin's robots.txt record and each host's next allowed start (core's persistPace, written
 * before the request leaves). So a crawl killed and resumed on the same storage
 * (`CRAWLEE_PURGE_ON_START=false`) keeps every host's Crawl-delay, robots.txt fetch included, and
 * reads robots.txt rules that are still fresh instead of fetching them again.
 *
 * Named, not the default store: Crawlee purges the default storages on start (its default), and the
 * purge of the default key-value store runs in the background, racing the first writes. A site's
 * delay must hold after any restart, a purged one too, and a fresh robots.txt record is as good as a
 * fetch (RFC 9309 2.4 lets a crawler cache it up to 24 h), so a purge leaves this store alone.
 *
 * Crawlee's local storage (@crawlee/memory-storage) awaits the file write in `setValue`, so a write
 * acknowledged here is in the kernel's page cache and survives SIGKILL (not a power cut). Where
 * nothing persists (local storage with `persistStorage: false`, `CRAWLEE_PERSIST_STORAGE=false`), this
 * keeps nothing: there would be nothing to resume from, and the write-ahead would cost for nothing.
 *
 * A key-value store has no TTL and allows only `a-zA-Z0-9!-_.'()` in keys (256 at most): each value
 * is kept with its expiry, an expired one reads as absent, and keys are escaped (below).
 */

import { createHash } from 'node:crypto';
import type { Configuration } from '@crawlee/core';
import * as crawleeCore from '@crawlee/core';

/** The name of the plugin's key-value store in the crawl's storage. */
export const STORE_NAME = 'politely';

/** What the facade's `store` option takes (core's KeyvLike) plus the batch write core uses. */
export interface CrawleeKeyvStore {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs?: number): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  setMany(entries: readonly { key: string; value: unknown; ttl?: number }[]): Promise<boolean[]>;
}

/** The part of Crawlee's KeyValueStore this uses. */
interface KeyValueStoreLike {
  getValue(key: string): Promise<unknown>;
  setValue(key: string, value: unknown): Promise<unknown>;
}

interface Envelope {
  readonly v: 1;
  /** The key as core named it (a long key is stored under its hash: this tells them apart). */
  readonly key: string;
  readonly value: unknown;
  /** Epoch ms after which the value is gone; null: kept until overwritten. */
  readonly expiresAt: number | null;
}

/**
 * @param configOf the Configuration of the crawl's storage, asked on first use (by then the crawler
 * has shown the one it was given; undefined means Crawlee's global one).
 */
export function crawleeKeyvStore(configOf: () => Configuration | undefined): CrawleeKeyvStore {
  let opening: Promise<KeyValueStoreLike | undefined> | undefined;
  const open = () => {
    opening ??= openStore(configOf());
    return opening;
  };
  const write = async (key: string, value: unknown, ttlMs: number | undefined): Promise<boolean> => {
    const store = await open();
    if (store === undefined) return true;
    const expiresAt = ttlMs === undefined || !(ttlMs > 0) ? null : Date.now() + ttlMs;
    const envelope: Envelope = { v: 1, key, value, expiresAt };
    await store.setValue(storedKey(key), envelope);
    return true;
  };
  return {
    async get(key) {
      const store = await open();
      if (store === undefined) return undefined;
      const found = (await store.getValue(storedKey(key))) as Partial<Envelope> | null;
      if (found === null || typeof found !== 'object' || found.v !== 1 || found.key !== key) return undefined;
      if (typeof found.expiresAt === 'number' && found.expiresAt <= Date.now()) return undefined;
      return found.value;
    },
    set: (key, value, ttlMs) => write(key, value, ttlMs),
    async delete(key) {
      const store = await open();
      if (store === undefined) return true;
      await store.setValue(storedKey(key), null);
      return true;
    },
    // Side by side: each record is a file of its own in Crawlee's local storage.
    setMany: (entries) => Promise.all(entries.map((entry) => write(entry.key, entry.value, entry.ttl))),
  };
}

async function openStore(config: Configuration | undefined): Promise<KeyValueStoreLike | undefined> {
  const used = config ?? crawleeCore.Configuration.getGlobalConfig();
  const client = used.getStorageClient() as { persistStorage?: unknown } | undefined;
  // Crawlee's local storage kept in memory only: nothing outlives the process.
  if (client?.constructor?.name === 'MemoryStorage' && client.persistStorage === false) return undefined;
  return (await crawleeCore.KeyValueStore.open(STORE_NAME, { config: used })) as KeyValueStoreLike;
}

const LONGEST_KEY = 256;

/**
 * A key-value store key for core's key (`politely:pace:v1:example.com`): lower-case letters, digits,
 * `-` and `_` kept, every other byte written `!` and two hex digits. Upper case is escaped too, so two
 * keys never share a file name on a case-insensitive disk, and so is `.`, since Crawlee's local
 * storage reads a key ending in `.json` or `.map` as a file name with its extension. A key that would
 * be longer than the store allows is stored under its SHA-256 (the envelope keeps the key itself).
 */
export function storedKey(key: string): string {
  let escaped = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const char = String.fromCharCode(byte);
    escaped += /[a-z0-9_-]/.test(char) ? char : `!${byte.toString(16).padStart(2, '0')}`;
  }
  if (escaped.length <= LONGEST_KEY) return escaped;
  return `politely-sha256-${createHash('sha256').update(key).digest('hex')}`;
}
