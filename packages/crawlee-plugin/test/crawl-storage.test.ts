/**
 * The plugin's `politely` store (crawlee-store.ts) lives only in the storage of the crawl: the queue's,
 * the crawler's or the one given as `config`, recognised by shape so that a Configuration of another
 * copy of @crawlee/core counts too; never Crawlee's global storage in its place. The global storage
 * here is a folder of the test's own (CRAWLEE_STORAGE_DIR, set before anything opens it), seeded by a
 * quick-start crawl (no Configuration: the global storage is the crawl's, and keeps its records) with
 * a robots.txt record that allows everything; then the site disallows /private, and a crawl on a
 * storage of its own must read the site's robots.txt, not that record, and write nothing there.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, type Log, LogLevel, log, RequestQueue } from '@crawlee/core';
import { HttpCrawler, type HttpCrawlerOptions } from '@crawlee/http';
import { crawlStats, politenessOf, withPoliteness } from '@politely/crawlee';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { html, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { anotherCopyOfCrawlee, type CrawleeCopy } from './crawlee-copy.js';

const USER_AGENT = 'StorageBot/1.0';
const ALLOW_ALL = 'User-agent: *\nAllow: /\n';
const NO_PRIVATE = 'User-agent: *\nDisallow: /private\n';

let globalDir: string;
let storedEnv: string | undefined;
const folders: string[] = [];

beforeAll(() => {
  storedEnv = process.env.CRAWLEE_STORAGE_DIR;
  globalDir = mkdtempSync(join(tmpdir(), 'politely-global-storage-'));
  process.env.CRAWLEE_STORAGE_DIR = globalDir;
});

afterAll(() => {
  if (storedEnv === undefined) delete process.env.CRAWLEE_STORAGE_DIR;
  else process.env.CRAWLEE_STORAGE_DIR = storedEnv;
  for (const folder of [globalDir, ...folders]) rmSync(folder, { recursive: true, force: true });
});

/** A folder of the test's own, removed at the end. */
function tempFolder(label: string): string {
  const folder = mkdtempSync(join(tmpdir(), `politely-${label}-`));
  folders.push(folder);
  return folder;
}

/**
 * The second copy of Crawlee, its global storage in a folder of its own: Crawlee 3.13 gives every
 * storage it opens the global Configuration, so the second copy's crawler purges its global storage's
 * default stores on start; on the watched folder, that would remove the seeding crawl's files.
 */
function secondCrawlee(label: string): { copy: CrawleeCopy; copyGlobalDir: string } {
  const copy = anotherCopyOfCrawlee();
  const copyGlobalDir = tempFolder(`${label}-copy-global`);
  process.env.CRAWLEE_STORAGE_DIR = copyGlobalDir;
  try {
    copy.core.Configuration.getGlobalConfig().getStorageClient();
  } finally {
    process.env.CRAWLEE_STORAGE_DIR = globalDir;
  }
  return { copy, copyGlobalDir };
}

/** Every file under `folder` with its content: what a crawl left there. */
function snapshot(folder: string): Record<string, string> {
  if (!existsSync(folder)) return {};
  const files: Record<string, string> = {};
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(folder.length)] = readFileSync(path, 'utf8');
  }
  return files;
}

const globalStore = () => join(globalDir, 'key_value_stores', 'politely');

/** A logger that prints nothing and notes the plugin's warnings and info lines. */
function notingLog(label: string): { log: Log; warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  const quiet = log.child({ prefix: label, level: LogLevel.OFF });
  const noted: Log = Object.assign(Object.create(quiet) as Log, {
    child: () => noted,
    warning: (message: string) => void warnings.push(message),
    info: (message: string) => void infos.push(message),
  });
  return { log: noted, warnings, infos };
}

interface CrawlSetup {
  readonly label: string;
  readonly urls: readonly string[];
  readonly requestQueue?: unknown;
  readonly config?: unknown;
  /** The crawler's class: this copy's HttpCrawler unless said otherwise. */
  readonly Crawler?: typeof HttpCrawler;
}

/** One polite HttpCrawler crawl; the paths it handled and the plugin's warnings. */
async function crawl(
  setup: CrawlSetup,
): Promise<{ handled: string[]; warnings: string[]; infos: string[]; disallowed: number }> {
  const handled: string[] = [];
  const { log: noted, warnings, infos } = notingLog(setup.label);
  const options = withPoliteness<HttpCrawlerOptions>(
    {
      ...(setup.requestQueue === undefined ? {} : { requestQueue: setup.requestQueue as RequestQueue }),
      log: noted,
      maxRequestRetries: 0,
      requestHandler: async ({ request }) => void handled.push(new URL(request.url).pathname),
    },
    { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
  );
  const Crawler = setup.Crawler ?? HttpCrawler;
  const crawler = new Crawler(options, setup.config as Configuration | undefined);
  try {
    await crawler.run([...setup.urls]);
  } finally {
    await politenessOf(crawler).close();
  }
  return { handled: handled.sort(), warnings, infos, disallowed: crawlStats(crawler).skipped.disallowed };
}

/**
 * The site, and the global storage seeded with its robots.txt as it was (everything allowed) by a
 * quick-start crawl: no Configuration, no queue, so the global storage is the crawl's on purpose.
 */
async function seededSite(ip: string): Promise<TestHost> {
  const site = await startHost({
    ip,
    routes: { '/robots.txt': text(ALLOW_ALL) },
    fallback: html('<p>page</p>'),
  });
  // Precondition: this process's global storage is the test's folder.
  const globalClient = Configuration.getGlobalConfig().getStorageClient() as {
    keyValueStoresDirectory?: string;
  };
  expect(globalClient.keyValueStoresDirectory).toBe(join(globalDir, 'key_value_stores'));
  const { handled } = await crawl({ label: 'quick-start', urls: [site.url('/private/seed')] });
  expect(handled).toEqual(['/private/seed']);
  const seeded = readdirSync(globalStore()).filter((file) => file.includes(site.port.toString()));
  expect(seeded.length).toBeGreaterThan(0);
  site.route('/robots.txt', text(NO_PRIVATE));
  return site;
}

it("a crawler and queue on a persistStorage: false Configuration: the site's robots.txt holds, not a record in the global storage", async () => {
  const site = await seededSite('127.0.0.151');
  try {
    const before = snapshot(globalDir);
    const config = new Configuration({ persistStorage: false, purgeOnStart: false });
    const requestQueue = await RequestQueue.open(`storage-memory-${process.pid}`, { config });
    const { handled, disallowed } = await crawl({
      label: 'memory',
      urls: [site.url('/private/x'), site.url('/public')],
      requestQueue,
      config,
    });
    expect(handled).toEqual(['/public']);
    expect(site.requests('/private/x')).toHaveLength(0);
    expect(disallowed).toBe(1);
    // Read again for this crawl: once for the seeding crawl, once for this one.
    expect(site.requests('/robots.txt')).toHaveLength(2);
    expect(snapshot(globalDir)).toEqual(before);
    await requestQueue.drop();
  } finally {
    await site.close();
  }
});

it('a Configuration of another copy of @crawlee/core with a storage folder of its own: the store is kept there, never in the global storage', async () => {
  const site = await seededSite('127.0.0.152');
  try {
    const before = snapshot(globalDir);
    const { copy, copyGlobalDir } = secondCrawlee('own');
    const ownDir = tempFolder('own-storage');
    const config = new copy.core.Configuration({
      purgeOnStart: false,
      storageClientOptions: { localDataDirectory: ownDir },
    });
    expect(config).not.toBeInstanceOf(Configuration);
    const requestQueue = await copy.core.RequestQueue.open(`storage-copy-${process.pid}`, { config });
    const { handled, warnings, disallowed } = await crawl({
      label: 'copy',
      urls: [site.url('/private/x'), site.url('/public')],
      requestQueue,
      config,
      Crawler: copy.HttpCrawler,
    });
    expect(handled).toEqual(['/public']);
    expect(site.requests('/private/x')).toHaveLength(0);
    expect(disallowed).toBe(1);
    expect(site.requests('/robots.txt')).toHaveLength(2);
    expect(snapshot(globalDir)).toEqual(before);
    expect(existsSync(join(copyGlobalDir, 'key_value_stores', 'politely'))).toBe(false);
    // The crawl's own storage holds the site's robots.txt record, for a resumed crawl to read.
    const kept = readdirSync(join(ownDir, 'key_value_stores', 'politely'));
    expect(kept.filter((file) => file.includes(site.port.toString())).length).toBeGreaterThan(0);
    expect(warnings).toEqual([]);
    // The crawler showed its Configuration through the second copy's class, which is as it was.
    expect(copy.core.Configuration.prototype.getEventManager.name).toBe('getEventManager');
    expect(Configuration.prototype.getEventManager.name).toBe('getEventManager');
  } finally {
    await site.close();
  }
});

it('a crawl whose Configuration cannot be seen keeps its records in memory only, and says so once', async () => {
  const site = await seededSite('127.0.0.153');
  try {
    const before = snapshot(globalDir);
    const { copy, copyGlobalDir } = secondCrawlee('unseen');
    const ownDir = tempFolder('unseen-storage');
    const config = new copy.core.Configuration({
      purgeOnStart: false,
      storageClientOptions: { localDataDirectory: ownDir },
    });
    const queue = await copy.core.RequestQueue.open(`storage-unseen-${process.pid}`, { config });
    // A queue that does not tell its Configuration (a wrapper of yours, say) on a crawler given one of
    // another copy: nothing shows the plugin which storage is the crawl's.
    const requestQueue = new Proxy(queue, {
      get: (target, key) => (key === 'config' ? undefined : Reflect.get(target, key, target)),
    });
    const { handled, warnings, disallowed } = await crawl({
      label: 'unseen',
      urls: [site.url('/private/x'), site.url('/public'), site.url('/public2')],
      requestQueue,
      config,
      Crawler: copy.HttpCrawler,
    });
    expect(handled).toEqual(['/public', '/public2']);
    expect(site.requests('/private/x')).toHaveLength(0);
    expect(disallowed).toBe(1);
    expect(site.requests('/robots.txt')).toHaveLength(2);
    expect(snapshot(globalDir)).toEqual(before);
    expect(existsSync(join(copyGlobalDir, 'key_value_stores', 'politely'))).toBe(false);
    expect(existsSync(join(ownDir, 'key_value_stores', 'politely'))).toBe(false);
    expect(warnings.filter((message) => message.includes('in memory only'))).toHaveLength(1);
    expect(warnings.find((message) => message.includes('in memory only'))).toContain('{ config }');
  } finally {
    await site.close();
  }
});

it('a quick start run again reads the robots.txt the run before kept, and says so once at info, with its age and how to start fresh', async () => {
  const site = await seededSite('127.0.0.154');
  try {
    // The seeding run kept ALLOW_ALL; the site now disallows /private. Within the day RFC 9309 allows,
    // the kept copy stands (by design), and the log says where the rules came from.
    const { handled, infos } = await crawl({
      label: 'again',
      urls: [site.url('/private/again'), site.url('/public')],
    });
    expect(handled).toEqual(['/private/again', '/public']);
    expect(site.requests('/robots.txt')).toHaveLength(1);
    const kept = infos.filter((message) => message.includes('kept by an earlier run'));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toContain(site.url('/').replace(/\/$/, ''));
    expect(kept[0]).toMatch(/fetched \d+ s ago/);
    expect(kept[0]).toContain('delete storage/key_value_stores/politely');
  } finally {
    await site.close();
  }
});
