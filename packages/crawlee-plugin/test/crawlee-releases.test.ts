/**
 * Uses of Crawlee that broke with releases inside the peer range (`>=3.13`), written as a user would
 * write them. The version matrix (`npm run matrix`) runs this file on Crawlee 3.13 and on the newest
 * 3.x; the repository's own install has only the newest.
 * - `context.sendRequest()`: before 3.18 Crawlee's got-scraping client spread the got response into a
 *   plain object, which loses got's `headers` getter.
 * - A `Configuration` passed as the crawler's second argument, and no `requestQueue`: the plugin opens
 *   the crawler's default queue, and must do it with the crawler's configuration. Crawlee hands that
 *   argument to nobody else, so the README asks for it as the plugin's `config` option too: these
 *   tests do what the README says.
 */

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Configuration, Log, Logger, LogLevel, log, RequestQueue } from '@crawlee/core';
import { HttpCrawler, type HttpCrawlerOptions } from '@crawlee/http';
import { crawlStats, politenessOf, withPoliteness } from '@politely/crawlee';
import { afterAll, afterEach, expect, it } from 'vitest';
import { html, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'ReleaseBot/1.0';
const open: TestHost[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
});

// A regression would write Crawlee's default queue under ./storage: remove the folders it made,
// only where they are empty, so that nothing another test file keeps there is touched.
afterAll(() => {
  for (const dir of ['storage/request_queues/default', 'storage/request_queues', 'storage']) {
    const path = join(process.cwd(), dir);
    if (existsSync(path) && readdirSync(path).length === 0) rmSync(path, { recursive: true });
  }
});

async function site(ip: string): Promise<TestHost> {
  const started = await startHost({
    ip,
    routes: {
      '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
      '/api/data': { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' },
    },
    fallback: html('<p>page</p>'),
  });
  open.push(started);
  return started;
}

it('a CheerioCrawler handler calls context.sendRequest() and gets the response', async () => {
  const target = await site('127.0.0.61');
  const bodies: string[] = [];
  const failures: string[] = [];
  const crawler = await politeCheerioCrawler(
    'release-send',
    {
      maxRequestRetries: 0,
      requestHandler: async ({ sendRequest }) => {
        const response = await sendRequest({ url: target.url('/api/data') });
        bodies.push(response.body);
      },
      failedRequestHandler: (_context, error) => void failures.push(error.message),
    },
    { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
  );
  await crawler.run([target.url('/page')]);
  expect(failures).toEqual([]);
  expect(bodies).toEqual(['{"ok":true}']);
  expect(target.requests('/api/data')).toHaveLength(1);
  await politenessOf(crawler).close();
});

it('a crawler given its own Configuration (persistStorage: false) and no queue crawls and checks', async () => {
  const target = await site('127.0.0.62');
  const handled: string[] = [];
  const failures: string[] = [];
  const config = new Configuration({ persistStorage: false });
  const crawler = new HttpCrawler(
    withPoliteness<HttpCrawlerOptions>(
      {
        log: log.child({ prefix: 'release-config', level: LogLevel.OFF }),
        maxRequestRetries: 0,
        requestHandler: async ({ request }) => void handled.push(new URL(request.url).pathname),
        failedRequestHandler: (_context, error) => void failures.push(error.message),
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      { config },
    ),
    config,
  );
  await crawler.run([target.url('/a'), target.url('/private/b')]);
  expect(failures).toEqual([]);
  expect(handled).toEqual(['/a']);
  expect(target.requests('/private/b')).toHaveLength(0);
  expect(crawlStats(crawler).skipped.disallowed).toBe(1);
  await politenessOf(crawler).close();
  expect(takeQueueFilesMentioning(target.origin)).toEqual([]);
});

/**
 * The files of Crawlee's default queue folder (in the working directory) that mention `origin`,
 * deleted once read so that a failing run leaves nothing behind.
 */
function takeQueueFilesMentioning(origin: string): string[] {
  const dir = join(process.cwd(), 'storage', 'request_queues', 'default');
  if (!existsSync(dir)) return [];
  const found = readdirSync(dir).filter((file) => {
    try {
      return readFileSync(join(dir, file), 'utf8').includes(origin);
    } catch {
      return false; // a lock or a file another test file is writing
    }
  });
  for (const file of found) rmSync(join(dir, file), { force: true });
  return found;
}

it('a crawler and plugin given one Configuration (persistStorage: false) write nothing to disk', async () => {
  const target = await site('127.0.0.63');
  const config = new Configuration({ persistStorage: false });
  const crawler = new HttpCrawler(
    withPoliteness<HttpCrawlerOptions>(
      {
        log: log.child({ prefix: 'release-disk', level: LogLevel.OFF }),
        maxRequestRetries: 0,
        requestHandler: async () => {},
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      { config },
    ),
    config,
  );
  try {
    await crawler.run([target.url('/a')]);
  } finally {
    await politenessOf(crawler).close();
  }
  expect(takeQueueFilesMentioning(target.origin)).toEqual([]);
});

it("a Configuration given to the crawler alone is the queue's too: no crash, nothing on disk, no second queue", async () => {
  const target = await site('127.0.0.64');
  const handled: string[] = [];
  const failures: string[] = [];
  const warnings: string[] = [];
  const config = new Configuration({ persistStorage: false });
  const logger = new (class extends Logger {
    override _log(level: number, message: string): void {
      if (level <= LogLevel.WARNING) warnings.push(message);
    }
  })({});
  const quiet = new Log({ prefix: 'release-crawler-config', level: LogLevel.WARNING, logger });
  const crawler = new HttpCrawler(
    withPoliteness<HttpCrawlerOptions>(
      {
        log: quiet,
        maxRequestRetries: 0,
        requestHandler: async ({ request }) => void handled.push(new URL(request.url).pathname),
        failedRequestHandler: (_context, error) => void failures.push(error.message),
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
    ),
    config,
  );
  try {
    await crawler.run([target.url('/a'), target.url('/private/b')]);
  } finally {
    await politenessOf(crawler).close();
  }
  expect(failures).toEqual([]);
  expect(handled).toEqual(['/a']);
  expect(target.requests('/private/b')).toHaveLength(0);
  expect(takeQueueFilesMentioning(target.origin)).toEqual([]);
  // The one queue the crawl used lives in the crawler's storage.
  const queue = await crawler.getRequestQueue();
  expect(await queue.handledCount()).toBe(2);
  expect((await RequestQueue.open(null, { config })).id).toBe(queue.id);
  expect(warnings).toEqual([]);
});
