/**
 * Rate-limit headers across a fleet: two polite fetches, each with its own Politeness and Redis
 * connection (two processes, as far as pacing goes), crawl one host that keeps a quota. What one of
 * them reads in a `RateLimit` header paces the other too (the host's signal and next start live on
 * Redis), so at the wire no answer's quota is overrun and the host never has to refuse a request.
 */
import { createKeyv } from '@keyv/redis';
import { politeFetch, politenessOf } from '@politely/fetch';
import { afterEach, describe, expect, it } from 'vitest';
import { judgeQuota, startQuotaHost } from '../helpers/quota-host.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';
import { startWireCapture } from '../helpers/wire.js';

const redisUp = await requireRedis('rate-limit headers in a fleet');

const QUOTA = 6;
const WINDOW_MS = 3000;
const PER_PROCESS = 5;

describe.skipIf(!redisUp)('rate-limit headers in a fleet (two facades, one Redis)', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** One "process": its own Politeness and Redis connection; pace keys unique to this run (deleted after). */
  function processFetch(runId: string): typeof globalThis.fetch {
    const store = createKeyv(REDIS_URL, { namespace: runId });
    const fetch = politeFetch({
      userAgent: 'QuotaBot/1.0 (+http://127.0.0.1/bot)',
      pacing: { minDelayMs: 20, hostKey: (url) => `${runId}|${url.hostname}` },
      store,
    });
    cleanups.push(async () => {
      await politenessOf(fetch).close();
      await store.disconnect();
    });
    return fetch;
  }

  it("what one process reads paces the other: no answer's quota is overrun at the wire", async () => {
    const { host, answers } = await startQuotaHost('127.0.0.162', QUOTA, WINDOW_MS);
    cleanups.push(() => host.close());
    const runId = uniquePrefix('rate-limit-fleet');
    const processes = [processFetch(runId), processFetch(runId)];
    const capture = await startWireCapture([host]);
    const sentBy: number[] = [];
    const statuses = await Promise.all(
      processes.flatMap((fetch, index) =>
        Array.from({ length: PER_PROCESS }, async (_, i) => {
          const response = await fetch(host.url(`/p${index}-${i}`));
          await response.arrayBuffer();
          sentBy.push(index);
          return response.status;
        }),
      ),
    );
    const wire = await capture.stop();

    expect(statuses).toEqual(Array(2 * PER_PROCESS).fill(200));
    expect(new Set(sentBy)).toEqual(new Set([0, 1]));
    expect(answers[0]).toMatchObject({ remaining: QUOTA - 1, resetSeconds: WINDOW_MS / 1000 });
    expect(judgeQuota(wire, host.ip, answers)).toEqual([]);
    expect(answers.filter((answer) => answer.status === 429)).toEqual([]);
  }, 90_000);
});
