/**
 * Redis schedulers sharing hosts while the server is paused with DEBUG SLEEP (issue 33.5): no two
 * starts on a host closer than its delay, before, during and after. Real time: the pause is a real
 * server's.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { redisServerSkip } from '../../../../test/helpers/redis.js';
import { type PrivateRedis, startPrivateRedis } from './redis-server.js';
import { keepsDelayAcrossOutage, sleep } from './share-fleet.js';

const unavailable = redisServerSkip('Redis fallback shared across schedulers');

describe.skipIf(unavailable !== undefined)('Redis schedulers sharing hosts while Redis is paused', () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await startPrivateRedis(['--enable-debug-command', 'yes']);
  });
  afterAll(async () => {
    await server.kill();
  });

  it("keeps every host's delay across 3 schedulers when the server is paused with DEBUG SLEEP", async () => {
    await keepsDelayAcrossOutage(server.url, 'share-paused:', {
      begin: async () => {
        const admin = createClient({ url: server.url });
        await admin.connect();
        // Not awaited: the server answers it only when it wakes.
        void admin
          .sendCommand(['DEBUG', 'SLEEP', '2.5'])
          .catch(() => {})
          .finally(() => admin.destroy());
      },
      end: () => sleep(1400),
    });
  }, 30_000);
});
