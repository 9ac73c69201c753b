/**
 * Redis schedulers sharing hosts while the server goes away, killed and restarted empty (issue 33.5);
 * and one scheduler alone on its Redis. Judged by the start times handed out: no two starts on a host
 * closer than its delay. Real time: the outage is a real server's. The other outages are in
 * redis-fallback-share-paused.test.ts and redis-fallback-share-starved.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisServerSkip } from '../../../../test/helpers/redis.js';
import type { PolitelyEvent } from '../../src/facade/types.js';
import { type PrivateRedis, startPrivateRedis } from './redis-server.js';
import { DELAY_MS, FALLBACK_RETRY_MS, keepsDelayAcrossOutage, makeScheduler, sleep } from './share-fleet.js';

const unavailable = redisServerSkip('Redis fallback shared across schedulers');

describe.skipIf(unavailable !== undefined)('Redis schedulers sharing hosts while Redis is away', () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await startPrivateRedis();
  });
  afterAll(async () => {
    await server.kill();
  });

  it("keeps every host's delay across 3 schedulers when the server is killed and restarted empty", async () => {
    await keepsDelayAcrossOutage(server.url, 'share-killed:', {
      begin: () => server.kill(),
      end: () => server.restart(),
    });
  }, 30_000);

  it('a scheduler alone on its Redis keeps pacing every host itself while Redis is away', async () => {
    const events: PolitelyEvent[] = [];
    const { client, scheduler } = await makeScheduler(server.url, 'share-alone:', events);
    try {
      const first = await scheduler.reserve('a.test', DELAY_MS);
      await sleep(2 * FALLBACK_RETRY_MS);
      await server.kill();
      const during = [];
      for (const host of ['a.test', 'b.test', 'a.test']) during.push(await scheduler.reserve(host, DELAY_MS));
      expect(events[0]).toMatchObject({ type: 'scheduler-fallback', share: 'all', members: 1 });
      expect(scheduler.kind).toBe('memory-fallback');
      const [a0 = 0, a1 = 0, a2 = 0] = [first, during[0], during[2]].map((r) => r?.startAt ?? 0);
      expect(a1).toBeGreaterThanOrEqual(a0 + DELAY_MS);
      expect(a2).toBeGreaterThanOrEqual(a1 + DELAY_MS);
      // b.test, never seen before, starts at once: nobody else could be pacing it.
      expect(during[1]?.waitMs).toBeLessThan(DELAY_MS);
    } finally {
      await server.restart();
      await scheduler.close();
      client.destroy();
    }
  });
});
