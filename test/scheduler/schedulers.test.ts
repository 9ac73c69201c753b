/**
 * The scheduler contract suite run against every backend politely ships: memory, Redis (node-redis
 * and ioredis), and Redis behind a connection whose every command fails (the in-process fallback).
 */
import { createClient } from 'redis';
import { systemClock } from '../../packages/core/src/kernel/clock.js';
import { createMemoryScheduler } from '../../packages/core/src/schedule/memory-scheduler.js';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';
import { createFakeClock } from '../../packages/core/test/schedule/fake-clock.js';
import { Redis } from '../../packages/core/test/schedule/ioredis.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { type FullScheduler, schedulerSuite } from './suite.js';

schedulerSuite(
  'memory',
  () => {
    const clock = createFakeClock();
    const opened: FullScheduler[] = [];
    return {
      clock,
      open: () => {
        const scheduler = createMemoryScheduler({ clock });
        opened.push(scheduler);
        return scheduler;
      },
      cleanup: async () => {
        for (const scheduler of opened.splice(0)) await scheduler.close();
      },
    };
  },
  { fleet: false, kind: 'memory' },
);

/** A node-redis-shaped client whose every command fails, as a dead or unreachable server's would. */
const deadClient = {
  evalSha: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
  eval: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
  isOpen: true,
};

schedulerSuite(
  'Redis with a failing connection (in-process fallback)',
  () => {
    const clock = createFakeClock();
    const opened: FullScheduler[] = [];
    return {
      clock,
      open: () => {
        const scheduler = createRedisScheduler({ client: deadClient, clock, fallbackRetryMs: 60_000 });
        opened.push(scheduler);
        return scheduler;
      },
      cleanup: async () => {
        for (const scheduler of opened.splice(0)) await scheduler.close();
      },
    };
  },
  { fleet: false, kind: 'memory-fallback' },
);

const redisUp = await requireRedis('scheduler contract on Redis');
if (redisUp) {
  schedulerSuite(
    'Redis through node-redis',
    () => {
      const prefix = `${uniquePrefix('scheduler-suite')}:`;
      const opened: FullScheduler[] = [];
      const clients: ReturnType<typeof createClient>[] = [];
      return {
        clock: systemClock,
        // Each simulated process gets its own connection, as separate machines would.
        open: () => {
          const client = createClient({ url: REDIS_URL });
          client.on('error', () => {});
          clients.push(client);
          const scheduler = createRedisScheduler({ client, prefix, connect: () => client.connect() });
          opened.push(scheduler);
          return scheduler;
        },
        cleanup: async () => {
          for (const scheduler of opened.splice(0)) await scheduler.close();
          for (const client of clients.splice(0)) if (client.isOpen) client.destroy();
        },
      };
    },
    { fleet: true, kind: 'redis' },
  );

  schedulerSuite(
    'Redis through ioredis',
    () => {
      const prefix = `${uniquePrefix('scheduler-suite')}:`;
      const opened: FullScheduler[] = [];
      const clients: Redis[] = [];
      return {
        clock: systemClock,
        open: () => {
          const client = new Redis(REDIS_URL);
          client.on('error', () => {});
          clients.push(client);
          const scheduler = createRedisScheduler({ client, prefix });
          opened.push(scheduler);
          return scheduler;
        },
        cleanup: async () => {
          for (const scheduler of opened.splice(0)) await scheduler.close();
          for (const client of clients.splice(0)) client.disconnect();
        },
      };
    },
    { fleet: true, kind: 'redis' },
  );
}
