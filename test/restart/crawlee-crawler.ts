/**
 * The @politely/crawlee README's quick start, run by tsx in a process of its own for
 * crawlee-restart.test.ts and scripts/restart-gaps.ts: a CheerioCrawler through withPoliteness on
 * Crawlee's defaults (its storage on disk, in CRAWLEE_STORAGE_DIR), whose handler follows the links
 * of each host's start page. Prints `ready` once loaded (a restart under test is not timed by tsx's
 * start-up), waits for `go` on stdin, then crawls and prints `handled <url>` per page; exits 0 when
 * done. Resuming is Crawlee's own: run again with CRAWLEE_PURGE_ON_START=false on the same storage.
 *
 * argv: startUrlsJson [userAgent]
 */
import { createInterface } from 'node:readline';
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import { log } from '@crawlee/core';
import type { withPoliteness as WithPoliteness } from '../../packages/crawlee-plugin/src/index.js';

// scripts/restart-gaps.ts measures another tree's plugin (main's, for a before-and-after) through
// POLITELY_CRAWLEE_PLUGIN, and passes extra politeness options (minDelayMs, persistPace) through
// POLITELY_CRAWLEE_OPTIONS.
const plugin = process.env.POLITELY_CRAWLEE_PLUGIN ?? '../../packages/crawlee-plugin/src/index.js';
const { withPoliteness } = (await import(plugin)) as { withPoliteness: typeof WithPoliteness };
const extra = JSON.parse(process.env.POLITELY_CRAWLEE_OPTIONS ?? '{}') as Record<string, unknown>;

const [startUrlsJson, userAgent = 'RestartBot/1.0 (+https://example.test/bot)'] = process.argv.slice(2);
if (!startUrlsJson) throw new Error('usage: crawlee-crawler startUrlsJson [userAgent]');

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) if (line === 'go') break;
// An open stdin would keep the process alive once the crawl is done.
process.stdin.destroy();
log.setLevel(log.LEVELS.WARNING);

const crawler = new CheerioCrawler(
  withPoliteness<CheerioCrawlerOptions>(
    {
      async requestHandler({ request, enqueueLinks }) {
        await enqueueLinks();
        process.stdout.write(`handled ${request.url}\n`);
      },
    },
    { userAgent, ...extra },
  ),
);
await crawler.run(JSON.parse(startUrlsJson) as string[]);
