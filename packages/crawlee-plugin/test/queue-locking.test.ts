/**
 * Which of Crawlee's queues the plugin opens as the default one (with-politeness.ts, withoutLocking).
 * Requests parked until their host is due stay handed out, and on local storage every refill of
 * RequestQueue v2's head re-reads each locked one from disk; so on local storage the plugin opens the
 * queue without request locking, as Crawlee does with `experiments.requestLocking: false`, unless the
 * crawler asks for locking (several consumers sharing one queue).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import { Configuration, LogLevel, log, type Request, RequestQueueV1 } from '@crawlee/core';
import { politenessOf, withPoliteness } from '@politely/crawlee';
import { afterEach, expect, it, vi } from 'vitest';
import { startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { LockKeeper } from '../src/lock-keeper.js';
import { anotherCopyOfCrawlee } from './crawlee-copy.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.restoreAllMocks();
});

/** A crawl on local disk storage of two hosts whose pages /0 to /5 link on, so requests are parked. */
async function crawlOnDisk(experiments?: { requestLocking: boolean }) {
  const storageDir = mkdtempSync(join(tmpdir(), 'politely-locking-'));
  cleanups.push(() => rmSync(storageDir, { recursive: true, force: true }));
  const config = new Configuration({ storageClientOptions: { localDataDirectory: storageDir } });
  // Every queue client of this storage shares the prototype whose calls are counted.
  const client = config.getStorageClient().requestQueue('probe');
  const prototype = Object.getPrototypeOf(client) as Record<string, (...args: never[]) => unknown>;
  const lockedHeads = vi.spyOn(prototype, 'listAndLockHead' as never);
  const hosts: TestHost[] = [];
  for (const ip of ['127.0.0.46', '127.0.0.47']) {
    const host = await startHost({
      ip,
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.1\n') },
      fallback: (req, res) => {
        const n = Number(req.url?.slice(1) || '0');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(n < 4 ? `<a href="/${n + 1}">next</a><a href="/${n + 2}">after</a>` : '<p>end</p>');
      },
    });
    hosts.push(host);
    cleanups.push(() => host.close());
  }
  const crawler = new CheerioCrawler(
    withPoliteness<CheerioCrawlerOptions>(
      {
        log: log.child({ prefix: 'queue-locking', level: LogLevel.OFF }),
        maxRequestRetries: 0,
        ...(experiments ? { experiments } : {}),
        requestHandler: async ({ enqueueLinks }) => void (await enqueueLinks({ strategy: 'same-origin' })),
      },
      { userAgent: 'LockBot/1.0', pacing: { minDelayMs: 0 } },
    ),
    config,
  );
  cleanups.push(() => politenessOf(crawler).close());
  await crawler.run(hosts.map((host) => host.url('/0')));
  const pages = hosts.map((host) => host.requests().filter((r) => r.path !== '/robots.txt').length);
  return { pages, lockedHeads: lockedHeads.mock.calls.length };
}

it('on local storage the default queue is opened without request locking: every page crawled, no head locked', async () => {
  const { pages, lockedHeads } = await crawlOnDisk();
  expect(pages).toEqual([6, 6]);
  expect(lockedHeads).toBe(0);
});

it('experiments.requestLocking: true keeps the locking queue (several consumers of one queue)', async () => {
  const { pages, lockedHeads } = await crawlOnDisk({ requestLocking: true });
  expect(pages).toEqual([6, 6]);
  expect(lockedHeads).toBeGreaterThan(0);
});

it('parked requests of a locking queue have their locks prolonged; those of RequestQueueV1 are left alone', () => {
  const parked = [{ item: { id: 'r1' } as Request, host: 'a.test', since: 0 }];
  const queueLike = (prototype: object | null) => {
    const prolongRequestLock = vi.fn(async () => ({}));
    const queue = Object.assign(Object.create(prototype), {
      requestLockSecs: 60,
      client: { prolongRequestLock },
    });
    return { queue, prolongRequestLock };
  };
  const locking = queueLike(null);
  new LockKeeper(log).sweep(locking.queue, parked, 40_000);
  expect(locking.prolongRequestLock).toHaveBeenCalledWith('r1', { lockSecs: 60 });
  const unlocked = queueLike(RequestQueueV1.prototype);
  new LockKeeper(log).sweep(unlocked.queue, parked, 40_000);
  expect(unlocked.prolongRequestLock).not.toHaveBeenCalled();
  // The same queues of another copy of @crawlee/core (an app and a package each bringing theirs).
  const copy = anotherCopyOfCrawlee().core;
  const otherUnlocked = queueLike(copy.RequestQueueV1.prototype);
  new LockKeeper(log).sweep(otherUnlocked.queue, parked, 40_000);
  expect(otherUnlocked.prolongRequestLock).not.toHaveBeenCalled();
  const otherLocking = queueLike(copy.RequestQueue.prototype);
  new LockKeeper(log).sweep(otherLocking.queue, parked, 40_000);
  expect(otherLocking.prolongRequestLock).toHaveBeenCalledWith('r1', { lockSecs: 60 });
});
