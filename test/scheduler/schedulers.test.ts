/**
 * The scheduler contract suite run against every backend politely ships: memory, Redis (node-redis
 * and ioredis), and Redis behind a connection whose every command fails (the in-process fallback).
 */
import { createClient } from 'redis';
import { type Clock, systemClock } from '../../packages/core/src/kernel/clock.js';
import { createMemoryScheduler } from '../../packages/core/src/schedule/memory-scheduler.js';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';
import { createFakeClock } from '../../packages/core/test/schedule/fake-clock.js';
import { Redis } from '../../packages/core/test/schedule/ioredis.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { type FullScheduler, type SchedulerUnderTest, schedulerSuite } from './suite.js';

/**
 * A backend under test: `make` opens one process's scheduler; after each test every scheduler opened
 * is closed, then `after` lets go of what they used (their clients).
 */
function backend(clock: Clock, make: () => FullScheduler, after = () => {}): SchedulerUnderTest {
  const opened: FullScheduler[] = [];
  return {
    clock,
    open: () => {
      const scheduler = make();
      opened.push(scheduler);
      return scheduler;
    },
    cleanup: async () => {
      for (const scheduler of opened.splice(0)) await scheduler.close();
      after();
    },
  };
}

schedulerSuite(
  'memory',
  () => {
    const clock = createFakeClock();
    return backend(clock, () => createMemoryScheduler({ clock }));
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
    return backend(clock, () => createRedisScheduler({ client: deadClient, clock, fallbackRetryMs: 60_000 }));
  },
  { fleet: false, kind: 'memory-fallback' },
);

const redisUp = await requireRedis('scheduler contract on Redis');
if (redisUp) {
  schedulerSuite(
    'Redis through node-redis',
    () => {
      const prefix = `${uniquePrefix('scheduler-suite')}:`;
      const clients: ReturnType<typeof createClient>[] = [];
      // Each simulated process gets its own connection, as separate machines would.
      return backend(
        systemClock,
        () => {
          const client = createClient({ url: REDIS_URL });
          client.on('error', () => {});
          clients.push(client);
          return createRedisScheduler({ client, prefix, connect: () => client.connect() });
        },
        () => {
          for (const client of clients.splice(0)) if (client.isOpen) client.destroy();
        },
      );
    },
    { fleet: true, kind: 'redis' },
  );

  schedulerSuite(
    'Redis through ioredis',
    () => {
      const prefix = `${uniquePrefix('scheduler-suite')}:`;
      const clients: Redis[] = [];
      return backend(
        systemClock,
        () => {
          const client = new Redis(REDIS_URL);
          client.on('error', () => {});
          clients.push(client);
          return createRedisScheduler({ client, prefix });
        },
        () => {
          for (const client of clients.splice(0)) client.disconnect();
        },
      );
    },
    { fleet: true, kind: 'redis' },
  );
}
