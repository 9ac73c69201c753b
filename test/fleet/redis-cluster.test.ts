/**
 * Redis at scale: a three-node Redis Cluster on loopback ports (started and stopped by PID here),
 * reached through node-redis `createCluster` and ioredis `Cluster`. Two schedulers (two processes'
 * worth) with three callers each pace one host at the wire with no gap below the delay, two CPU
 * burners beside them, and every key of a host lives in the slot of its `{host}` hash tag. Each
 * caller reports its real send (as the adapters do through Politeness.markSent).
 */
import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';
import type { Scheduler } from '../../packages/core/src/schedule/types.js';
import { startHost, text } from '../helpers/hosts.js';
import { redisClusterUnavailableReason, startRedisCluster } from '../helpers/redis-cluster.js';
import { sendGet } from '../helpers/send.js';
import { burnCpu, judgePacing, startWireCapture } from '../helpers/wire.js';

const unavailable = redisClusterUnavailableReason();
if (unavailable) {
  if (process.env.CI) throw new Error(`the Redis Cluster tests must run in CI: ${unavailable} (see .ci/run)`);
  console.warn(
    `\n!!! ${unavailable}: SKIPPING the Redis Cluster tests. Install redis-server and redis-cli (Debian: apt-get install -y redis-server) to run them. !!!\n`,
  );
}

const ASKED_MS = 200;
const CALLERS = 3;
const PAGES_PER_CALLER = 3;

interface ClusterClient {
  readonly client: object;
  keySlot(key: string): Promise<number>;
  pttl(key: string): Promise<number>;
  close(): Promise<void>;
}

const libraries: Array<{
  name: string;
  ip: string;
  open(nodes: readonly { host: string; port: number }[]): Promise<ClusterClient>;
}> = [
  {
    name: 'node-redis createCluster',
    ip: '127.0.0.80',
    async open(nodes) {
      const cluster = createCluster({
        rootNodes: nodes.map((n) => ({ url: `redis://${n.host}:${n.port}` })),
      });
      cluster.on('error', () => {});
      await cluster.connect();
      return {
        client: cluster,
        keySlot: async (key) => Number(await cluster.sendCommand(key, true, ['CLUSTER', 'KEYSLOT', key])),
        pttl: (key) => cluster.pTTL(key),
        close: async () => cluster.destroy(),
      };
    },
  },
  {
    name: 'ioredis Cluster',
    ip: '127.0.0.81',
    async open(nodes) {
      const cluster = new Cluster(nodes.map((n) => ({ host: n.host, port: n.port })));
      cluster.on('error', () => {});
      await new Promise<void>((resolve, reject) => {
        cluster.once('ready', resolve);
        cluster.once('error', reject);
      });
      return {
        client: cluster,
        keySlot: async (key) => Number(await cluster.cluster('KEYSLOT', key)),
        pttl: (key) => cluster.pttl(key),
        close: async () => cluster.disconnect(),
      };
    },
  },
];

describe.skipIf(unavailable !== undefined)('Redis Cluster (three nodes on loopback)', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  // One cluster for both libraries (its start is a few seconds of a test run alone): each test paces
  // a host of its own, so its keys (`{host}` hash tag) are its own.
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  });
  afterAll(() => cluster?.stop());

  it.each(libraries)(
    'paces one host through $name with no gap below the delay at the wire',
    async ({ open, ip }) => {
      const site = await startHost({ ip, fallback: text('page') });
      cleanups.push(() => site.close());
      const redis = await open(cluster.nodes);
      cleanups.push(() => redis.close());
      const schedulers: Scheduler[] = [0, 1].map(() =>
        createRedisScheduler({ client: redis.client as never, prefix: 'cluster-test:' }),
      );
      cleanups.push(() => Promise.all(schedulers.map((s) => s.close())));
      const host = site.ip;

      const wire = await startWireCapture([site]);
      const burners = burnCpu(2);
      cleanups.push(() => burners.stop());
      const caller = async (scheduler: Scheduler, id: string) => {
        for (let i = 0; i < PAGES_PER_CALLER; i++) {
          await scheduler.reserve(host, ASKED_MS);
          // The real send, reported as it happens (as the adapters report it): a late one moves the slot.
          let reported: Promise<unknown> | undefined;
          await sendGet(site.url(`/${id}/p${i}`), undefined, (sentAt) => {
            const ms = sentAt + ASKED_MS - Date.now();
            if (ms > 0) reported = scheduler.penalize(host, ms);
          });
          await reported;
        }
      };
      await Promise.all(
        schedulers.flatMap((scheduler, s) =>
          Array.from({ length: CALLERS }, (_, c) => caller(scheduler, `s${s}c${c}`)),
        ),
      );
      burners.stop();
      const requests = (await wire.stop()).filter((r) => r.ip === site.ip);
      const pacing = judgePacing(requests, ASKED_MS).get(site.ip);
      console.info(
        `cluster (${wire.source}): ${requests.length} pages, smallest gap ${pacing?.smallestGapMs?.toFixed(1)} ms for ${ASKED_MS} asked, efficiency ${pacing?.efficiency?.toFixed(2)}`,
      );
      expect(requests).toHaveLength(2 * CALLERS * PAGES_PER_CALLER);
      expect(pacing?.violations).toEqual([]);
      expect(schedulers.map((s) => s.kind)).toEqual(['redis', 'redis']);
      // The host's key is where its hash tag says, and it is there (with its TTL).
      const key = `cluster-test:{${host}}`;
      expect(await redis.keySlot(key)).toBe(await redis.keySlot(`{${host}}`));
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    },
    60_000,
  );
});
