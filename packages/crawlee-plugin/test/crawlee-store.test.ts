/**
 * The store the plugin gives the facade when you give none (crawlee-store.ts): records in a named
 * Crawlee key-value store on disk, read back by the next process (a new MemoryStorage on the same
 * folder stands in for it), expiring as core asked, surviving a write cut short by a kill and a lock
 * left by a killed process; nothing at all where Crawlee keeps nothing. Host pace records are one
 * pace map written whole: sets made during a write share the next one, each resolves once a write
 * holding it is on disk, a cut write leaves the map before it, expired hosts leave the map.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, KeyValueStore } from '@crawlee/core';
import { MemoryStorage } from '@crawlee/memory-storage';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { crawleeKeyvStore, PACE_MAP, STORE_NAME, storedKey } from '../src/crawlee-store.js';

let dir: string | undefined;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A process's view of the storage folder: its own MemoryStorage, as a new process would have. */
function processOn(folder: string) {
  const config = new Configuration({ purgeOnStart: false });
  config.useStorageClient(new MemoryStorage({ localDataDirectory: folder, writeMetadata: false }));
  return crawleeKeyvStore(() => config);
}

const storeFolder = (folder: string) => join(folder, 'key_value_stores', STORE_NAME);

const paceRecordFile = (folder: string, slot: 'a' | 'b') =>
  join(storeFolder(folder), `${storedKey(PACE_MAP, slot)}.json`);

/** The keys held by a pace map record on disk, read as the next process would find the file now. */
function keysOnDisk(folder: string, slot: 'a' | 'b'): string[] {
  const file = paceRecordFile(folder, slot);
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  if (text === '') return [];
  return (JSON.parse(text) as { value: [string, unknown, unknown][] }).value.map(([key]) => key);
}

describe('crawleeKeyvStore', () => {
  it('keeps what core writes for the next process, under keys Crawlee accepts', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const first = processOn(dir);
    const pace = 'politely:pace:v1:Example.COM';
    // A host name that ends like a file extension Crawlee's local storage would read as one.
    const rules = 'politely:robots:v1:https://cdn.example.json:8443';
    await first.set(pace, { v: 1, notBefore: 123 }, 60_000);
    await first.setMany([{ key: rules, value: { body: 'User-agent: *' }, ttl: 60_000 }]);

    const next = processOn(dir);
    expect(await next.get(pace)).toEqual({ v: 1, notBefore: 123 });
    expect(await next.get(rules)).toEqual({ body: 'User-agent: *' });
    expect(await next.get('politely:pace:v1:example.com')).toBeUndefined();
    for (const file of readdirSync(storeFolder(dir))) expect(file).toMatch(/^[a-z0-9_!-]+\.json$/);
  });

  it('reads an expired record as absent', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const store = processOn(dir);
    await store.set('politely:pace:v1:a.test', 1, 5000);
    await store.set('politely:robots:v1:https://a.test', 2);
    vi.setSystemTime(1_004_999);
    expect(await processOn(dir).get('politely:pace:v1:a.test')).toBe(1);
    vi.setSystemTime(1_005_000);
    expect(await processOn(dir).get('politely:pace:v1:a.test')).toBeUndefined();
    expect(await processOn(dir).get('politely:robots:v1:https://a.test')).toBe(2);
  });

  it('reads the record before a write a kill cut short, and the newest otherwise', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const key = 'politely:robots:v1:https://b.test';
    const store = processOn(dir);
    for (const notBefore of [1, 2, 3]) await store.set(key, notBefore, 60_000);
    expect(await processOn(dir).get(key)).toBe(3);
    // The third write went to the record the first one used: left empty, as a kill between the
    // local storage's truncating open and its write leaves it.
    writeFileSync(join(storeFolder(dir), `${storedKey(key, 'a')}.json`), '');
    const next = processOn(dir);
    expect(await next.get(key)).toBe(2);
    // The next process writes over the cut record, not over the one it read.
    await next.set(key, 4, 60_000);
    writeFileSync(join(storeFolder(dir), `${storedKey(key, 'b')}.json`), '');
    expect(await processOn(dir).get(key)).toBe(4);
  });

  it("removes the locks a killed process left, so the next one's writes go through", async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const key = 'politely:robots:v1:https://c.test';
    const pace = 'politely:pace:v1:c.test';
    await processOn(dir).set(key, 1, 60_000);
    await processOn(dir).set(pace, 1, 60_000);
    // The next writes go to the `-b` records: a lock on each, as a process killed mid-write leaves.
    const locks = [storedKey(key, 'b'), storedKey(PACE_MAP, 'b')].map((name) =>
      join(storeFolder(dir as string), `${name}.json.lock`),
    );
    for (const lock of locks) mkdirSync(lock);
    const next = processOn(dir);
    expect(await next.get(key)).toBe(1);
    expect(await next.get(pace)).toBe(1);
    for (const lock of locks) expect(existsSync(lock)).toBe(false);
    await next.set(key, 2, 60_000);
    await next.set(pace, 2, 60_000);
    expect(await processOn(dir).get(key)).toBe(2);
    expect(await processOn(dir).get(pace)).toBe(2);
  });

  it('keeps nothing where Crawlee keeps nothing (persistStorage: false)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const config = new Configuration({ persistStorage: false, purgeOnStart: false });
    config.useStorageClient(new MemoryStorage({ localDataDirectory: dir, persistStorage: false }));
    const store = crawleeKeyvStore(() => config);
    expect(await store.set('politely:pace:v1:d.test', 1, 60_000)).toBe(true);
    expect(await store.get('politely:pace:v1:d.test')).toBeUndefined();
    expect(existsSync(join(dir, 'key_value_stores'))).toBe(false);
  });

  it('stores a key too long for Crawlee under its hash, and tells it from any other', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const long = `politely:robots:v1:https://${'x'.repeat(240)}.test`;
    expect(storedKey(long, 'a').length).toBeLessThanOrEqual(256);
    await processOn(dir).set(long, 'rules');
    expect(await processOn(dir).get(long)).toBe('rules');
    expect(await processOn(dir).get(`${long}x`)).toBeUndefined();
  });

  it('writes host pace as one pace map: sets made during a write share the next, each resolves once on disk', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const folder = dir;
    const writes = vi.spyOn(KeyValueStore.prototype, 'setValue');
    const store = processOn(folder);
    const hosts = Array.from({ length: 100 }, (_, i) => `politely:pace:v1:h${i}.test`);
    const onDiskWhenResolved: boolean[] = [];
    await Promise.all(
      hosts.map((key, i) =>
        // Core's batches and single sets alike, all at once as a crawl's first hosts come.
        (i % 2 === 0 ? store.set(key, i, 60_000) : store.setMany([{ key, value: i, ttl: 60_000 }])).then(
          () => {
            // Read at once, synchronously: what a SIGKILL right now would leave on disk.
            onDiskWhenResolved.push(
              keysOnDisk(folder, 'a').includes(key) || keysOnDisk(folder, 'b').includes(key),
            );
          },
        ),
      ),
    );
    expect(onDiskWhenResolved).toEqual(hosts.map(() => true));
    // One file per host before; now the first write carries what came before it, the next the rest.
    expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
    expect(readdirSync(storeFolder(folder)).sort()).toEqual(
      writes.mock.calls.length === 1 ? [`${PACE_MAP}-a.json`] : [`${PACE_MAP}-a.json`, `${PACE_MAP}-b.json`],
    );
    const next = processOn(folder);
    for (const [i, key] of hosts.entries()) expect(await next.get(key)).toBe(i);
  });

  it('a pace map write a kill cut short leaves the map before it; the next process writes over the cut one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const first = processOn(dir);
    await first.set('politely:pace:v1:x.test', 1, 60_000); // -a: x
    await first.set('politely:pace:v1:y.test', 2, 60_000); // -b: x, y
    // Cut the newest in the middle of its JSON, as a kill during a longer write leaves it.
    const cut = paceRecordFile(dir, 'b');
    const whole = readFileSync(cut, 'utf8');
    writeFileSync(cut, whole.slice(0, Math.floor(whole.length / 2)));
    const next = processOn(dir);
    expect(await next.get('politely:pace:v1:x.test')).toBe(1);
    expect(await next.get('politely:pace:v1:y.test')).toBeUndefined();
    // Cut to nothing (killed between the truncating open and the write): the same.
    writeFileSync(cut, '');
    expect(await processOn(dir).get('politely:pace:v1:x.test')).toBe(1);
    // The next process writes over the cut record and keeps the one it read.
    await next.set('politely:pace:v1:z.test', 3, 60_000);
    expect(keysOnDisk(dir, 'b').sort()).toEqual(['politely:pace:v1:x.test', 'politely:pace:v1:z.test']);
    expect(keysOnDisk(dir, 'a')).toEqual(['politely:pace:v1:x.test']);
    // Cut that one too: the record before it answers.
    writeFileSync(cut, '');
    const third = processOn(dir);
    expect(await third.get('politely:pace:v1:x.test')).toBe(1);
    expect(await third.get('politely:pace:v1:z.test')).toBeUndefined();
  });

  it('a pace map write that failed resolves nothing and is written again to the same record', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const store = processOn(dir);
    await store.set('politely:pace:v1:x.test', 1, 60_000); // -a
    const failing = vi
      .spyOn(KeyValueStore.prototype, 'setValue')
      .mockRejectedValueOnce(new Error('disk full'));
    await expect(store.set('politely:pace:v1:y.test', 2, 60_000)).rejects.toThrow('disk full');
    failing.mockRestore();
    await store.set('politely:pace:v1:z.test', 3, 60_000);
    // Written to -b, not over -a: the record before the failed write is still whole.
    expect(keysOnDisk(dir, 'a')).toEqual(['politely:pace:v1:x.test']);
    expect(keysOnDisk(dir, 'b').sort()).toEqual([
      'politely:pace:v1:x.test',
      'politely:pace:v1:y.test',
      'politely:pace:v1:z.test',
    ]);
  });

  it('drops expired hosts from the pace map when it writes it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const store = processOn(dir);
    await store.setMany([
      { key: 'politely:pace:v1:short.test', value: 1, ttl: 5000 },
      { key: 'politely:pace:v1:long.test', value: 2, ttl: 60_000 },
    ]);
    vi.setSystemTime(1_005_000);
    expect(await store.get('politely:pace:v1:short.test')).toBeUndefined();
    await store.set('politely:pace:v1:new.test', 3, 60_000);
    expect(keysOnDisk(dir, 'b').sort()).toEqual(['politely:pace:v1:long.test', 'politely:pace:v1:new.test']);
    const next = processOn(dir);
    expect(await next.get('politely:pace:v1:long.test')).toBe(2);
    expect(await next.get('politely:pace:v1:new.test')).toBe(3);
  });

  it('deletes a host from the pace map', async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-store-'));
    const store = processOn(dir);
    await store.set('politely:pace:v1:x.test', 1, 60_000);
    await store.set('politely:pace:v1:y.test', 2, 60_000);
    await store.delete('politely:pace:v1:x.test');
    const next = processOn(dir);
    expect(await next.get('politely:pace:v1:x.test')).toBeUndefined();
    expect(await next.get('politely:pace:v1:y.test')).toBe(2);
  });
});
