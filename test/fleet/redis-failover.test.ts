/**
 * Redis failing mid-crawl, judged at the wire: one process, three callers, one host asking 330 ms.
 * The private redis-server (started and stopped by PID here) is killed and restarted, paused with
 * `DEBUG SLEEP 2`, driven out of memory (maxmemory 1, noeviction), or restarted empty, while two
 * CPU-burning processes run beside the crawl. In every case: no two requests to the host closer than
 * asked at the server, one fallback warning per outage, and "back" only once Redis takes writes again.
 */
import { adapterKit } from '@politely/core/adapter';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { createPoliteness, isWaitTooLongError, type PolitelyEvent } from '../../packages/core/src/index.js';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';
import { type PrivateRedis, startPrivateRedis } from '../../packages/core/test/schedule/redis-server.js';
import { startHost, type TestHost, text } from '../helpers/hosts.js';
import { redisServerSkip } from '../helpers/redis.js';
import { sendGet } from '../helpers/send.js';
import { burnCpu, judgePacing, startWireCapture } from '../helpers/wire.js';

const ASKED_MS = 330;
const CALLERS = 3;
const MAX_WAIT_MS = 3000;

const unavailable = redisServerSkip('Redis failover at the wire');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Fault {
  readonly name: string;
  /** A restart quicker than a command's timeout may never be seen as an outage at all. */
  readonly mayGoUnnoticed?: boolean;
  readonly serverArgs?: readonly string[];
  /**
   * Breaks Redis; returns what lifts the fault (resolves once Redis can take writes again). `lifting`
   * is called the moment the fault starts to lift: a client may reconnect and find Redis back before
   * the lift itself resolves, and a recovery reported from then on is not one reported during the outage.
   */
  inject(server: PrivateRedis, admin: AdminClient, lifting: () => void): Promise<() => Promise<void>>;
}

type AdminClient = ReturnType<typeof createClient>;

const faults: readonly Fault[] = [
  {
    name: 'killed, then started again 2 s later',
    async inject(server, _admin, lifting) {
      await server.kill();
      return async () => {
        await sleep(2000);
        lifting();
        await server.restart();
      };
    },
  },
  {
    name: 'paused (DEBUG SLEEP 2)',
    serverArgs: ['--enable-debug-command', 'yes'],
    async inject(_server, admin, lifting) {
      const slept = admin.sendCommand(['DEBUG', 'SLEEP', '2']);
      return async () => {
        // The server wakes by itself 2 s after the command: no write can succeed before that.
        await sleep(1950);
        lifting();
        await slept;
      };
    },
  },
  {
    name: 'out of memory (maxmemory 1, noeviction) for 2 s',
    async inject(_server, admin, lifting) {
      await admin.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
      await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '1']);
      return async () => {
        await sleep(2000);
        lifting();
        await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
      };
    },
  },
  {
    name: 'restarted empty at once',
    mayGoUnnoticed: true,
    async inject(server, _admin, lifting) {
      await server.kill();
      lifting();
      await server.restart();
      return async () => {};
    },
  },
];

describe.skipIf(unavailable !== undefined)(
  'Redis failover at the wire (3 callers, 330 ms, 2 CPU burners)',
  () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    for (const [index, fault] of faults.entries()) {
      it(`Redis ${fault.name}: no gap below the delay, one warning, back only when writes work`, async () => {
        const server = await startPrivateRedis(fault.serverArgs ?? []);
        cleanups.push(() => server.kill());
        const site: TestHost = await startHost({
          ip: `127.0.0.${60 + index}`,
          routes: { '/robots.txt': text('User-agent: *\nDisallow:\n') },
          fallback: text('page'),
        });
        cleanups.push(() => site.close());
        const client = createClient({ url: server.url, socket: { reconnectStrategy: () => 50 } });
        client.on('error', () => {});
        await client.connect();
        cleanups.push(() => client.destroy());
        const admin = createClient({ url: server.url, socket: { reconnectStrategy: () => 50 } });
        admin.on('error', () => {});
        await admin.connect();
        cleanups.push(() => admin.destroy());

        let lifted = true;
        const events: Array<{ type: PolitelyEvent['type']; lifted: boolean }> = [];
        const scheduler = createRedisScheduler({
          client,
          prefix: `failover-${index}:`,
          commandTimeoutMs: 500,
          fallbackRetryMs: 200,
          emit: (event) => events.push({ type: event.type, lifted }),
        });
        const polite = createPoliteness({
          userAgent: 'politely-failover-test',
          pacing: { minDelayMs: ASKED_MS, maxWaitMs: MAX_WAIT_MS },
          scheduler,
          logger: false,
        });
        cleanups.push(() => polite.close());
        await polite.check(site.url('/warm-up')); // robots.txt fetched before the capture starts

        const wire = await startWireCapture([site]);
        const burners = burnCpu(2);
        cleanups.push(() => burners.stop());
        let running = true;
        let sent = 0;
        let tooLong = 0;
        const caller = async (id: number) => {
          for (let i = 0; running; i++) {
            const url = site.url(`/c${id}/p${i}`);
            let decision: Awaited<ReturnType<typeof polite.admit>>;
            try {
              decision = await polite.admit(url);
            } catch (error) {
              if (!isWaitTooLongError(error)) throw error;
              tooLong++;
              await sleep(50);
              continue;
            }
            sent++;
            // The real send, reported as the adapters do: a send that went out late moves the slot.
            let reported: Promise<void> | undefined;
            await sendGet(url, undefined, (at) => {
              reported = adapterKit(polite).markSent(decision, { at });
            });
            await reported;
          }
        };
        const crawl = Promise.all(Array.from({ length: CALLERS }, (_, id) => caller(id)));
        await sleep(1500);
        lifted = false;
        const lift = await fault.inject(server, admin, () => {
          lifted = true;
        });
        await lift();
        // Long enough for the probe to find Redis back and for the callers to pace through it again.
        const until = Date.now() + (fault.mayGoUnnoticed ? 1000 : 8000);
        while (Date.now() < until && !events.some((e) => e.type === 'scheduler-recovered')) await sleep(50);
        await sleep(1500);
        running = false;
        await crawl;
        burners.stop();
        const requests = (await wire.stop()).filter((r) => r.ip === site.ip && r.path !== '/robots.txt');

        const pacing = judgePacing(requests, ASKED_MS).get(site.ip);
        console.info(
          `failover (${fault.name}, ${wire.source}): ${requests.length} pages, smallest gap ${pacing?.smallestGapMs?.toFixed(1)} ms for ${ASKED_MS} asked, efficiency ${pacing?.efficiency?.toFixed(2)}, ${tooLong} waits over maxWaitMs, events ${events.map((e) => e.type).join(',')}`,
        );
        expect(requests).toHaveLength(sent);
        expect(requests.length).toBeGreaterThan(5);
        expect(pacing?.violations).toEqual([]);
        // One warning for the outage and one recovery, reported only once Redis took writes again.
        if (!(fault.mayGoUnnoticed && events.length === 0)) {
          expect(events.map((e) => e.type)).toEqual(['scheduler-fallback', 'scheduler-recovered']);
          expect(events.find((e) => e.type === 'scheduler-recovered')?.lifted).toBe(true);
        }
        expect(scheduler.kind).toBe('redis');
      }, 60_000);
    }
  },
);
