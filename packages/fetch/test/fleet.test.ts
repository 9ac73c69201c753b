/**
 * Fleet mode: two polite fetches with their own Politeness and Redis connections stand in for two
 * processes. One `store` (Keyv on @keyv/redis) shares the robots.txt cache and the per-host pace.
 */
import { createKeyv } from '@keyv/redis';
import { DEFAULT_REDIS_PREFIX } from '@politely/core/scheduler';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../test/helpers/redis.js';
import { judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { politeFetch, politenessOf } from '../src/index.js';
import { host, track, USER_AGENT } from './setup.js';

const redisUp = await requireRedis('fetch fleet mode');

describe.skipIf(!redisUp)('fleet mode (Redis store)', () => {
  const stores: ReturnType<typeof createKeyv>[] = [];
  const runIds: string[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.clear()));
    await Promise.all(stores.splice(0).map((store) => store.disconnect()));
    const client = await createClient({ url: REDIS_URL }).connect();
    try {
      for (const runId of runIds.splice(0)) {
        // Pace keys are `<prefix>{<host key>}` (a Redis Cluster hash tag).
        const keys = await client.keys(`${DEFAULT_REDIS_PREFIX}{${runId}*`);
        if (keys.length > 0) await client.del(keys);
      }
    } finally {
      await client.quit();
    }
  });

  /** One "process": its own Politeness and Redis connection, a run-unique namespace and pacing keys. */
  function processFetch(runId: string): typeof globalThis.fetch {
    const store = createKeyv(REDIS_URL, { namespace: runId });
    stores.push(store);
    const fetch = politeFetch({
      userAgent: USER_AGENT,
      pacing: { minDelayMs: 0, hostKey: (url) => `${runId}|${url.hostname}` },
      store,
    });
    track(politenessOf(fetch));
    return fetch;
  }

  it('reads robots.txt once for the fleet and keeps its Crawl-delay across both, at the wire', async () => {
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.3\n') },
      fallback: html('ok'),
    });
    const runId = uniquePrefix('fetch-fleet');
    runIds.push(runId);
    const [first, second] = [processFetch(runId), processFetch(runId)];
    await first(site.url('/warm')); // robots.txt read by one process, then found in the shared cache

    const capture = await startWireCapture([site]);
    const crawl = Promise.all([
      ...['/a', '/b', '/c'].map((path) => first(site.url(path))),
      ...['/d', '/e', '/f'].map((path) => second(site.url(path))),
    ]);
    await crawl.catch(() => {});
    const requests = await capture.stop();
    const responses = await crawl;

    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(site.requests('/robots.txt')).toHaveLength(1);
    const pacing = judgePacing(requests, 300).get(site.ip);
    expect(pacing?.times).toHaveLength(6);
    expect(pacing?.violations).toEqual([]);
  });
});
