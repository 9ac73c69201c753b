/**
 * Crawlee set up for tests: in-memory storage that writes nothing to disk, a fresh queue per crawl,
 * and Crawlee's own logging turned off (the plugin's counters and the servers' logs are asserted).
 */
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import { Configuration, LogLevel, log, RequestQueue } from '@crawlee/core';
import type { Politeness, PolitenessOptions } from '@politely/core';
import { type CrawleePolitenessOptions, withPoliteness } from '@politely/crawlee';

let queues = 0;

export interface CrawleeTestEnv {
  readonly config: Configuration;
  readonly requestQueue: RequestQueue;
  /** A Crawlee logger that prints nothing. */
  readonly log: typeof log;
}

export async function crawleeTestEnv(label: string): Promise<CrawleeTestEnv> {
  const config = new Configuration({ persistStorage: false, purgeOnStart: false });
  const requestQueue = await RequestQueue.open(`${label}-${process.pid}-${++queues}`, { config });
  return { config, requestQueue, log: log.child({ prefix: label, level: LogLevel.OFF }) };
}

/**
 * A polite CheerioCrawler on a fresh in-memory queue that logs nothing: the set-up every crawl test
 * shares. `crawlerOptions` are what the test is about (handlers, concurrency, the HTTP client...).
 */
export async function politeCheerioCrawler(
  label: string,
  crawlerOptions: CheerioCrawlerOptions,
  politeness: PolitenessOptions | Politeness,
  pluginOptions?: CrawleePolitenessOptions,
): Promise<CheerioCrawler> {
  const env = await crawleeTestEnv(label);
  const options = { requestQueue: env.requestQueue, log: env.log, ...crawlerOptions };
  return new CheerioCrawler(withPoliteness(options, politeness, pluginOptions), env.config);
}
