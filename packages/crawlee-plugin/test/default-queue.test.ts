/**
 * Without a `requestQueue` the plugin wraps the crawler's default queue, opened on first use, as
 * Crawlee itself would: requests added before `run()` are crawled and checked like any other.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Configuration, LogLevel, log, RequestQueue } from '@crawlee/core';
import { HttpCrawler, type HttpCrawlerOptions } from '@crawlee/http';
import { crawlStats, politenessOf, withPoliteness } from '@politely/crawlee';
import { expect, it } from 'vitest';
import { html, startHost, text } from '../../../test/helpers/hosts.js';

it('wraps the default queue, opened lazily; requests added before run() are crawled and checked', async () => {
  // The global configuration is what a crawler without its own uses; keep it in memory.
  Configuration.getGlobalConfig().set('persistStorage', false);
  const site = await startHost({
    ip: '127.0.0.50',
    routes: { '/robots.txt': text('User-agent: *\nDisallow: /no\n') },
    fallback: html('<p>page</p>'),
  });
  try {
    const handled: string[] = [];
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          log: log.child({ prefix: 'default-queue', level: LogLevel.OFF }),
          requestHandler: async ({ request }) => void handled.push(new URL(request.url).pathname),
        },
        { userAgent: 'DefaultBot/1.0', pacing: { minDelayMs: 0 } },
      ),
    );
    await crawler.addRequests([site.url('/early'), site.url('/no/early')]);
    await crawler.run([site.url('/late')]);
    expect(handled.sort()).toEqual(['/early', '/late']);
    expect(site.requests('/no/early')).toHaveLength(0);
    expect(crawlStats(crawler).skipped.disallowed).toBe(1);
    expect(await (await crawler.getRequestQueue()).handledCount()).toBe(3);
    await politenessOf(crawler).close();
  } finally {
    await site.close();
  }
});

it("opens the default queue with the crawler's Configuration when the plugin is given it (persistStorage: false)", async () => {
  const storageDir = mkdtempSync(join(tmpdir(), 'politely-config-'));
  const config = new Configuration({
    persistStorage: false,
    storageClientOptions: { localDataDirectory: storageDir },
  });
  const site = await startHost({
    ip: '127.0.0.49',
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
    fallback: html('<p>page</p>'),
  });
  try {
    const handled: string[] = [];
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          log: log.child({ prefix: 'config-queue', level: LogLevel.OFF }),
          requestHandler: async ({ request }) => void handled.push(new URL(request.url).pathname),
        },
        { userAgent: 'ConfigBot/1.0', pacing: { minDelayMs: 0 } },
        { config },
      ),
      config,
    );
    await crawler.run([site.url('/a'), site.url('/b')]);
    expect(handled.sort()).toEqual(['/a', '/b']);
    // The queue is the default queue of the crawler's own storage (in memory: nothing on disk).
    expect(await (await RequestQueue.open(null, { config })).handledCount()).toBe(2);
    expect(existsSync(join(storageDir, 'request_queues'))).toBe(false);
    await politenessOf(crawler).close();
  } finally {
    await site.close();
    rmSync(storageDir, { recursive: true, force: true });
  }
});
