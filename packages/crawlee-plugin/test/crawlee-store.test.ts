/**
 * The store the plugin gives the facade when you give none (crawlee-store.ts): records in a named
 * Crawlee key-value store on disk, read back by the next process (a new MemoryStorage on the same
 * folder stands in for it), expiring as core asked, surviving a write cut short by a kill and a lock
 * left by a killed process; nothing at all where Crawlee keeps nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration } from '@crawlee/core';
import { MemoryStorage } from '@crawlee/memory-storage';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { crawleeKeyvStore, STORE_NAME, storedKey } from '../src/crawlee-store.js';

let dir: string | undefined;

afterEach(() => {
  vi.useRealTimers();
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
    const key = 'politely:pace:v1:b.test';
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
    const key = 'politely:pace:v1:c.test';
    await processOn(dir).set(key, 1, 60_000);
    const lock = join(storeFolder(dir), `${storedKey(key, 'b')}.json.lock`);
    mkdirSync(lock);
    const next = processOn(dir);
    expect(await next.get(key)).toBe(1);
    expect(existsSync(lock)).toBe(false);
    await next.set(key, 2, 60_000);
    expect(await processOn(dir).get(key)).toBe(2);
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
});
