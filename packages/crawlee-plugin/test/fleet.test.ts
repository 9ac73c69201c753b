/**
 * Fleet mode: two crawlers, each with its own facade (as two processes would have), share a host's
 * pace through the Redis scheduler. The wire must show the Crawl-delay between any two of their
 * requests, whichever crawler sent them, even when one crawler's requests go out long after they
 * left its queue (a loaded machine): the slot is reserved when a request is sent.
 */
import { HttpCrawler, type HttpCrawlerOptions } from '@crawlee/http';
import { createPoliteness } from '@politely/core';
import { createRedisScheduler } from '@politely/core/scheduler';
import { crawlStats, withPoliteness } from '@politely/crawlee';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { html, startHost, text } from '../../../test/helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../test/helpers/redis.js';
import { judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { crawleeTestEnv } from './harness.js';

const redisUp = await requireRedis('crawlee fleet pacing');
const DELAY_MS = 300;
/** Longer than the delay: a slot reserved when the request left the queue would be stale. */
const LAG_MS = 450;

describe.skipIf(!redisUp)('fleet: two crawlers share a host pace through Redis', () => {
  it('keeps the Crawl-delay between requests of different crawlers, one of them slow to send', async () => {
    const site = await startHost({
      ip: '127.0.0.46',
      routes: { '/robots.txt': text(`User-agent: *\nCrawl-delay: ${DELAY_MS / 1000}\n`) },
      fallback: html('<p>page</p>'),
    });
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    const prefix = `${uniquePrefix('crawlee-fleet')}:`;
    const capture = await startWireCapture([site]);
    let stopped = false;
    try {
      const crawls = ['x', 'y'].map(async (name) => {
        const lagMs = name === 'x' ? LAG_MS : 0;
        const env = await crawleeTestEnv(`fleet-${name}`);
        const politeness = createPoliteness({
          userAgent: 'FleetBot/1.0',
          pacing: { minDelayMs: 0 },
          scheduler: createRedisScheduler({ client: redis, prefix }),
        });
        const crawler = new HttpCrawler(
          withPoliteness<HttpCrawlerOptions>(
            {
              requestQueue: env.requestQueue,
              log: env.log,
              maxConcurrency: 3,
              preNavigationHooks: [
                async () => void (await new Promise((resolve) => setTimeout(resolve, lagMs))),
              ],
              requestHandler: async () => {},
            },
            politeness,
          ),
          env.config,
        );
        await crawler.run([1, 2, 3].map((index) => site.url(`/${name}/${index}`)));
        expect(crawlStats(crawler).fetched).toBe(3);
        await politeness.close();
      });
      await Promise.all(crawls);
      const wire = await capture.stop();
      stopped = true;

      const pages = site.log.filter((request) => request.path !== '/robots.txt');
      expect(pages).toHaveLength(6);
      expect(new Set(pages.map((request) => request.path.split('/')[1]))).toEqual(new Set(['x', 'y']));
      expect(judgePacing(wire, DELAY_MS).get(site.ip)?.violations).toEqual([]);
    } finally {
      if (!stopped) await capture.stop();
      for await (const keys of redis.scanIterator({ MATCH: `${prefix}*` })) {
        if (keys.length > 0) await redis.del(keys);
      }
      await redis.quit();
      await site.close();
    }
  });
});
