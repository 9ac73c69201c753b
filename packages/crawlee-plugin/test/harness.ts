/**
 * Crawlee set up for tests: in-memory storage that writes nothing to disk, a fresh queue per crawl,
 * and Crawlee's own logging turned off (the plugin's counters and the servers' logs are asserted).
 */
import { Configuration, LogLevel, log, RequestQueue } from '@crawlee/core';

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
