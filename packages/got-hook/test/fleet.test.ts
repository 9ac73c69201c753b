/**
 * Fleet mode: two polite clients with their own Redis connections stand in for two processes. One
 * `store` (Keyv on @keyv/redis) shares both the robots.txt cache and the per-host pacing.
 */
import { createKeyv } from '@keyv/redis';
import got from 'got';
import { afterEach, describe, expect, it } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../test/helpers/redis.js';
import { politeGot, politenessOf } from '../src/index.js';
import { atTheWire, gapBetween, host, track, USER_AGENT } from './setup.js';

const redisUp = await requireRedis('got fleet mode');

describe.skipIf(!redisUp)('fleet mode (Redis store)', () => {
  const stores: ReturnType<typeof createKeyv>[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.disconnect()));
  });

  /** One "process": its own Redis connection, a run-unique namespace and pacing keys. */
  function processClient(runId: string) {
    const store = createKeyv(REDIS_URL, { namespace: runId });
    stores.push(store);
    const options = politeGot({
      userAgent: USER_AGENT,
      pacing: { minDelayMs: 0, hostKey: (url: URL) => `${runId}|${url.hostname}` },
      store,
    });
    track(politenessOf(options));
    return got.extend(options, { retry: { limit: 0 }, throwHttpErrors: false });
  }

  it('fetches robots.txt once for the fleet, and a 429 Retry-After on one process paces the other', async () => {
    const site = await host({
      routes: {
        '/robots.txt': text('User-agent: *\nAllow: /\n'),
        '/busy': text('slow down', 429, { 'retry-after': '1' }),
      },
      fallback: html('ok'),
    });
    const runId = uniquePrefix('got-fleet');
    const [first, second] = [processClient(runId), processClient(runId)];

    const seen = await atTheWire([site], async () => {
      expect((await first(site.url('/busy'))).statusCode).toBe(429);
      expect((await second(site.url('/next'))).statusCode).toBe(200);
    });

    expect(gapBetween(seen, '/busy', '/next')).toBeGreaterThanOrEqual(1000);
    expect(site.requests('/robots.txt')).toHaveLength(1);
  });
});
