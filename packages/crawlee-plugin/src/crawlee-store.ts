/**
 * The store the plugin gives the facade when you give none: a Keyv-shaped view of a named Crawlee
 * key-value store, `politely`, in the crawl's own storage (on disk by default, under
 * `storage/key_value_stores/politely`, beside the request queue). It holds what core keeps in a store:
 * each origin's robots.txt record and each host's next allowed start (core's persistPace, written
 * before the request leaves). So a crawl killed and resumed on the same storage
 * (`CRAWLEE_PURGE_ON_START=false`) keeps every host's Crawl-delay, robots.txt fetch included, and
 * reads robots.txt rules that are still fresh instead of fetching them again.
 *
 * Only ever the crawl's own storage: where the plugin cannot tell which that is, nothing is kept. The
 * global storage may hold another crawl's records for the same origin (a reused loopback port), and
 * a robots.txt record read from there would stand for this site's own.
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
 * Host pace records (keys starting with core's PACE_KEY_PREFIX) are not one record per host but one
 * pace map for all hosts, read once when the store opens, kept in memory, and written whole: on local
 * storage each record is a file write, and core writes a batch of hosts before their requests leave,
 * so a file per host would make every batch as slow as its many writes. Writes of the map never
 * overlap: what is set while one is in flight goes into the next, and a set resolves only once a
 * write holding it has completed (core's write-ahead relies on that). Expired hosts are dropped at
 * each write, so the map holds only hosts still within their delay. robots.txt records stay one per
 * key (written once per origin and then rarely, and read per origin).
 *
 * Two hazards of a SIGKILL in the middle of a local write, and what answers them:
 * - The local storage writes a record in place (open, truncating, then write): killed between the
 *   two, the file is left empty, and the next process ignores it. So each key has two records, `-a`
 *   and `-b`, written in turn, and a read takes the newer one that is whole: a write cut short leaves
 *   the one before it. For the write-ahead that is enough: a request leaves only once its record is
 *   written, so the record before a cut write covers every request that left.
 * - It locks a record's file while writing it (a `.lock` folder, proper-lockfile), and a lock left by
 *   a killed process holds every write of that record for seconds, which core's store timeout turns
 *   into a store failure (skipped for a while: a refetch of robots.txt, a pace not restored). Only a
 *   dead process can hold a lock in this store when it is opened (Crawlee's local storage is one
 *   process's), so the locks found then are removed.
 */
import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Configuration } from '@crawlee/core';
import * as crawleeCore from '@crawlee/core';
import { PACE_KEY_PREFIX, ROBOTS_KEY_PREFIX } from '@politely/core/adapter';

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

/** Keys whose record pair is known, up to this many; past it the memory starts over. */
const MAX_REMEMBERED_KEYS = 100_000;

/**
 * The pace map's two records are stored under `politely-pace-map-a` and `-b`: no core key escapes to
 * that (core's keys hold a `:`, escaped `!3a`), nor does a hashed one (`politely-sha256-`).
 */
export const PACE_MAP = 'politely-pace-map';

/** The pace map as written: each key core gave, its value and its expiry (epoch ms, null: none). */
type PaceEntry = [key: string, value: unknown, expiresAt: number | null];
type PaceValue = Pick<Envelope, 'value' | 'expiresAt'>;

const isPaceKey = (key: string) => key.startsWith(PACE_KEY_PREFIX);
const expired = (expiresAt: number | null, at: number) => expiresAt !== null && expiresAt <= at;
const expiryOf = (ttlMs: number | undefined, at: number) =>
  ttlMs === undefined || !(ttlMs > 0) ? null : at + ttlMs;

/** One key's two records, `-a` and `-b` (see the file's comment); `newer` orders two whole ones. */
function recordPair(key: string, newer: (a: Envelope, b: Envelope) => boolean) {
  let next: Slot = 'a';
  let seq = 0;
  return {
    async read(store: KeyValueStoreLike): Promise<Envelope | undefined> {
      const [a, b] = await Promise.all([readEnvelope(store, key, 'a'), readEnvelope(store, key, 'b')]);
      const newest = a && (!b || newer(a, b)) ? a : b;
      if (newest !== undefined) {
        seq = newest.seq;
        next = newest === a ? 'b' : 'a';
      }
      return newest;
    },
    async write(store: KeyValueStoreLike, value: unknown, expiresAt: number | null): Promise<void> {
      const slot = next;
      const envelope: Envelope = { v: 1, key, value, expiresAt, at: Date.now(), seq: seq + 1 };
      await store.setValue(storedKey(key, slot), envelope);
      // Only a completed write moves on: after a failed one (maybe cut, maybe not written) the same
      // record is written again, and the other one still holds the write before it.
      seq += 1;
      next = slot === 'a' ? 'b' : 'a';
    },
  };
}

type RecordPair = ReturnType<typeof recordPair>;

/** Written by several processes in turn: the later write wins, the count of writes breaks a tie. */
const byTime = (a: Envelope, b: Envelope) => a.at > b.at || (a.at === b.at && a.seq > b.seq);

/**
 * @param configOf the Configuration of the crawl's storage, asked on first use (by then the crawler
 * has shown the one it was given); undefined when the crawl's storage is not known, and this keeps
 * nothing then: Crawlee's global storage may be another crawl's (with-politeness.ts says which
 * Configuration counts as the crawl's, and warns).
 * @param onKept told once, of the first robots.txt record read that an earlier run wrote: a user who
 * changed a site's robots.txt between two runs sees the crawl use the copy kept from the first.
 */
export function crawleeKeyvStore(
  configOf: () => Configuration | undefined,
  onKept?: (kept: { origin: string; writtenAt: number }) => void,
): CrawleeKeyvStore {
  const openedAt = Date.now();
  let keptTold = false;
  let opening: Promise<KeyValueStoreLike | undefined> | undefined;
  const open = () => {
    opening ??= openStore(configOf());
    return opening;
  };
  /**
   * Each key's record pair, learned from reads and writes. Core reads a host's pace and an origin's
   * rules before it writes them, so the newer record is known when it matters; a key forgotten (past
   * MAX_REMEMBERED_KEYS) is written to `-a`.
   */
  let pairs = new Map<string, RecordPair>();
  const pairOf = (key: string) => {
    let pair = pairs.get(key);
    if (pair === undefined) {
      if (pairs.size >= MAX_REMEMBERED_KEYS) pairs = new Map();
      pair = recordPair(key, byTime);
      pairs.set(key, pair);
    }
    return pair;
  };
  const write = async (key: string, value: unknown, ttlMs: number | undefined): Promise<boolean> => {
    const store = await open();
    if (store !== undefined) await pairOf(key).write(store, value, expiryOf(ttlMs, Date.now()));
    return true;
  };

  const pace = paceMap(open);

  return {
    async get(key) {
      if (isPaceKey(key)) return pace.get(key);
      const store = await open();
      const found = store && (await pairOf(key).read(store));
      if (found === undefined || expired(found.expiresAt, Date.now())) return undefined;
      if (!keptTold && found.at < openedAt && key.startsWith(ROBOTS_KEY_PREFIX)) {
        keptTold = true;
        onKept?.({ origin: key.slice(ROBOTS_KEY_PREFIX.length), writtenAt: found.at });
      }
      return found.value;
    },
    set: (key, value, ttlMs) =>
      isPaceKey(key) ? pace.set([{ key, value, ttl: ttlMs }]) : write(key, value, ttlMs),
    async delete(key) {
      if (isPaceKey(key)) return pace.delete(key);
      const store = await open();
      if (store === undefined) return true;
      await Promise.all([
        store.setValue(storedKey(key, 'a'), null),
        store.setValue(storedKey(key, 'b'), null),
      ]);
      pairs.delete(key);
      return true;
    },
    // Core's batch of host pace records is one write of the pace map; any other record is a file of
    // its own on local storage, written side by side.
    async setMany(entries) {
      const paced = entries.filter((entry) => isPaceKey(entry.key));
      const [pacedOk, others] = await Promise.all([
        paced.length > 0 ? pace.set(paced) : true,
        Promise.all(
          entries
            .filter((entry) => !isPaceKey(entry.key))
            .map((entry) => write(entry.key, entry.value, entry.ttl)),
        ),
      ]);
      let other = 0;
      return entries.map((entry) => (isPaceKey(entry.key) ? pacedOk : (others[other++] ?? false)));
    },
  };
}

/**
 * The pace map (see the file's comment): loaded once, changed in memory, written whole. Its writes
 * are counted across processes (each starts past the count it read): the higher count is the newer.
 */
function paceMap(open: () => Promise<KeyValueStoreLike | undefined>) {
  const pair = recordPair(PACE_MAP, (a, b) => a.seq > b.seq);
  let loading: Promise<KeyValueStoreLike | undefined> | undefined;
  const entries = new Map<string, PaceValue>();
  /** The write under way, and the next one, which carries every set made before it starts. */
  let writing: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  const load = () => {
    // A read that failed (the store itself, not a cut record) is tried again by the next call.
    loading ??= (async () => {
      const store = await open();
      const newest = store && (await pair.read(store));
      const at = Date.now();
      for (const [key, value, expiresAt] of paceEntriesOf(newest?.value)) {
        if (!expired(expiresAt, at)) entries.set(key, { value, expiresAt });
      }
      return store;
    })();
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  /** One write of the whole map at a time; what changes during one goes into the next. */
  const written = (): Promise<void> =>
    (next ??= (async () => {
      await writing?.catch(() => {});
      next = undefined;
      writing = writeOnce();
      await writing;
    })());

  async function writeOnce(): Promise<void> {
    const store = await load();
    if (store === undefined) return;
    // The map is taken as it is now, before any await: a set after this point waits for the next write.
    const at = Date.now();
    const kept: PaceEntry[] = [];
    for (const [key, { value, expiresAt }] of entries) {
      if (expired(expiresAt, at)) entries.delete(key);
      else kept.push([key, value, expiresAt]);
    }
    await pair.write(store, kept, null);
  }

  return {
    async get(key: string): Promise<unknown> {
      if ((await load()) === undefined) return undefined;
      const found = entries.get(key);
      return found === undefined || expired(found.expiresAt, Date.now()) ? undefined : found.value;
    },
    async set(batch: readonly { key: string; value: unknown; ttl?: number | undefined }[]): Promise<boolean> {
      if ((await load()) === undefined) return true;
      const at = Date.now();
      for (const { key, value, ttl } of batch) entries.set(key, { value, expiresAt: expiryOf(ttl, at) });
      await written();
      return true;
    },
    async delete(key: string): Promise<boolean> {
      if ((await load()) === undefined) return true;
      if (entries.delete(key)) await written();
      return true;
    },
  };
}

/** The entries of a pace map record, skipping any that is not shaped as this module writes them. */
function paceEntriesOf(value: unknown): readonly PaceEntry[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is PaceEntry =>
      Array.isArray(entry) &&
      entry.length === 3 &&
      typeof entry[0] === 'string' &&
      isPaceKey(entry[0]) &&
      (entry[2] === null || typeof entry[2] === 'number'),
  );
}

/**
 * One of a key's two records, or undefined. A file cut short by a kill reads as absent: empty, or
 * (a longer one, the pace map) JSON the local storage fails to parse, which it throws as a
 * SyntaxError. Any other failure is the store's, and is thrown (core's safe store reports it).
 */
async function readEnvelope(
  store: KeyValueStoreLike,
  key: string,
  slot: Slot,
): Promise<Envelope | undefined> {
  try {
    return envelopeOf(await store.getValue(storedKey(key, slot)), key);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
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
  if (config === undefined) return undefined;
  const used = ofThisCopy(config);
  const client = used.getStorageClient() as { persistStorage?: unknown } | undefined;
  // Crawlee's local storage kept in memory only: nothing outlives the process.
  if (client?.constructor?.name === 'MemoryStorage') {
    if (client.persistStorage === false) return undefined;
    const directory = (client as { keyValueStoresDirectory?: unknown }).keyValueStoresDirectory;
    if (typeof directory === 'string') await removeDeadLocks(join(directory, STORE_NAME));
  }
  return (await crawleeCore.KeyValueStore.open(STORE_NAME, { config: used })) as KeyValueStoreLike;
}

/** The stand-ins made for Configurations of another copy of @crawlee/core, one per Configuration. */
const standIns = new WeakMap<Configuration, Configuration>();

/**
 * `config`, or when it comes from another copy of @crawlee/core (recognised by shape), a Configuration
 * of this copy on the same storage client: this copy's KeyValueStore.open accepts only its own class.
 * It does not purge on start (the crawl's own Configuration does what it asked for; this store is
 * named, and a purge leaves it alone anyway), and one stand-in per Configuration keeps the store
 * opened once, as Crawlee caches storages per Configuration.
 */
function ofThisCopy(config: Configuration): Configuration {
  if (config instanceof crawleeCore.Configuration) return config;
  let standIn = standIns.get(config);
  if (standIn === undefined) {
    standIn = new crawleeCore.Configuration({ purgeOnStart: false });
    // Typed as this copy's class, which `instanceof` just ruled out: read through the shape.
    standIn.useStorageClient((config as Pick<Configuration, 'getStorageClient'>).getStorageClient());
    standIns.set(config, standIn);
  }
  return standIn;
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
