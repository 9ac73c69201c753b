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
 *
 * Two hazards of a SIGKILL in the middle of a local write, and what answers them:
 * - The local storage writes a record in place (open, truncating, then write): killed between the
 *   two, the file is left empty, and the next process ignores it. So each key has two records, `-a`
 *   and `-b`, written in turn, and a read takes the newer one that is whole: a write cut short leaves
 *   the one before it. For the write-ahead that is enough: a request leaves only once its record is
 *   written, so the record before a cut write covers every request that left.
 * - It locks a record's file while writing it (a `.lock` folder, proper-lockfile), and a lock left by
 *   a killed process holds every write of that record for about 10 s, which core's store timeout
 *   turns into a store failure (skipped for a while: a refetch of robots.txt, a pace not restored).
 *   Only a dead process can hold a lock in this store when it is opened (Crawlee's local storage is
 *   one process's), so the locks found then are removed.
 */
import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
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
  /** When it was written (epoch ms), then the writer's count of writes: the newer record wins. */
  readonly at: number;
  readonly seq: number;
}

type Slot = 'a' | 'b';

/** Keys whose newer record is known, up to this many; past it the memory starts over (see `newer`). */
const MAX_REMEMBERED_KEYS = 100_000;

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
  /**
   * Which record of each key holds its newest value (learned from reads and writes): the next write
   * goes to the other one. Core reads a host's pace and an origin's rules before it writes them, so
   * this is known when it matters; a key forgotten (past MAX_REMEMBERED_KEYS) is written to `-a`.
   */
  let newer = new Map<string, Slot>();
  let writes = 0;
  const remember = (key: string, slot: Slot) => {
    if (newer.size >= MAX_REMEMBERED_KEYS && !newer.has(key)) newer = new Map();
    newer.set(key, slot);
  };
  const write = async (key: string, value: unknown, ttlMs: number | undefined): Promise<boolean> => {
    const store = await open();
    if (store === undefined) return true;
    const at = Date.now();
    const expiresAt = ttlMs === undefined || !(ttlMs > 0) ? null : at + ttlMs;
    const envelope: Envelope = { v: 1, key, value, expiresAt, at, seq: ++writes };
    const slot: Slot = newer.get(key) === 'a' ? 'b' : 'a';
    await store.setValue(storedKey(key, slot), envelope);
    remember(key, slot);
    return true;
  };
  return {
    async get(key) {
      const store = await open();
      if (store === undefined) return undefined;
      const [a, b] = await Promise.all([
        store.getValue(storedKey(key, 'a')).then((found) => envelopeOf(found, key)),
        store.getValue(storedKey(key, 'b')).then((found) => envelopeOf(found, key)),
      ]);
      const newest = a && (!b || a.at > b.at || (a.at === b.at && a.seq > b.seq)) ? 'a' : b ? 'b' : undefined;
      if (newest === undefined) return undefined;
      remember(key, newest);
      const found = newest === 'a' ? a : b;
      if (found === undefined || (found.expiresAt !== null && found.expiresAt <= Date.now()))
        return undefined;
      return found.value;
    },
    set: (key, value, ttlMs) => write(key, value, ttlMs),
    async delete(key) {
      const store = await open();
      if (store === undefined) return true;
      await Promise.all([
        store.setValue(storedKey(key, 'a'), null),
        store.setValue(storedKey(key, 'b'), null),
      ]);
      newer.delete(key);
      return true;
    },
    // Side by side: each record is a file of its own in Crawlee's local storage.
    setMany: (entries) => Promise.all(entries.map((entry) => write(entry.key, entry.value, entry.ttl))),
  };
}

/** A record this module wrote for `key`, or undefined (absent, cut short, another key's or not ours). */
function envelopeOf(found: unknown, key: string): Envelope | undefined {
  if (found === null || typeof found !== 'object') return undefined;
  const record = found as Partial<Envelope>;
  if (
    record.v !== 1 ||
    record.key !== key ||
    typeof record.at !== 'number' ||
    typeof record.seq !== 'number'
  ) {
    return undefined;
  }
  if (record.expiresAt !== null && typeof record.expiresAt !== 'number') return undefined;
  return record as Envelope;
}

async function openStore(config: Configuration | undefined): Promise<KeyValueStoreLike | undefined> {
  const used = config ?? crawleeCore.Configuration.getGlobalConfig();
  const client = used.getStorageClient() as { persistStorage?: unknown } | undefined;
  // Crawlee's local storage kept in memory only: nothing outlives the process.
  if (client?.constructor?.name === 'MemoryStorage') {
    if (client.persistStorage === false) return undefined;
    const directory = (client as { keyValueStoresDirectory?: unknown }).keyValueStoresDirectory;
    if (typeof directory === 'string') await removeDeadLocks(join(directory, STORE_NAME));
  }
  return (await crawleeCore.KeyValueStore.open(STORE_NAME, { config: used })) as KeyValueStoreLike;
}

/** The `.lock` folders a killed process left beside the store's records (none when it has no folder yet). */
async function removeDeadLocks(directory: string): Promise<void> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && entry.name.endsWith('.lock'))
      .map((entry) => rm(join(directory, entry.name), { recursive: true, force: true })),
  );
}

/** Crawlee's longest key, less the record's `-a` or `-b`. */
const LONGEST_KEY = 254;

/**
 * A key-value store key for core's key (`politely:pace:v1:example.com`): lower-case letters, digits,
 * `-` and `_` kept, every other byte written `!` and two hex digits. Upper case is escaped too, so two
 * keys never share a file name on a case-insensitive disk, and so is `.`, since Crawlee's local
 * storage reads a key ending in `.json` or `.map` as a file name with its extension. A key that would
 * be longer than the store allows is stored under its SHA-256 (the envelope keeps the key itself).
 * Then `-a` or `-b`, the key's two records.
 */
export function storedKey(key: string, slot: Slot): string {
  return `${escapedKey(key)}-${slot}`;
}

function escapedKey(key: string): string {
  let escaped = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const char = String.fromCharCode(byte);
    escaped += /[a-z0-9_-]/.test(char) ? char : `!${byte.toString(16).padStart(2, '0')}`;
  }
  if (escaped.length <= LONGEST_KEY) return escaped;
  return `politely-sha256-${createHash('sha256').update(key).digest('hex')}`;
}
