/**
 * Tampering with robots.txt records in a real Redis, through @keyv/redis as a fleet shares them:
 * the facade refetches, reports, counts, and keeps disallowing (issue 10, item 3).
 */
import { createKeyv } from '@keyv/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKey } from '../../packages/core/src/cache/stored-record.js';
import { createPoliteness, type PolitelyEvent } from '../../packages/core/src/index.js';
import { startHost, type TestHost, text } from '../helpers/hosts.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../helpers/redis.js';

const redisUp = await requireRedis('tampered records in Redis');

describe.skipIf(!redisUp)('tampered robots.txt records in Redis', () => {
  let host: TestHost;
  const namespace = uniquePrefix('tamper');
  const keyv = createKeyv(REDIS_URL, { namespace });
  beforeAll(async () => {
    host = await startHost({
      ip: '127.0.0.34',
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /private\n') },
    });
  });
  afterAll(async () => {
    await keyv.clear();
    await keyv.disconnect();
    await host.close();
  });

  const polite = (events: PolitelyEvent[]) =>
    createPoliteness({
      userAgent: 'PoliteBot/1.0',
      store: keyv,
      scheduler: 'memory',
      pacing: { minDelayMs: 0 },
      logger: false,
      onEvent: (event) => events.push(event),
    });

  it.each([
    [
      'freshUntil in the year 2100 over allow-all rules',
      (record: Record<string, unknown>) => ({
        ...record,
        freshUntil: Date.parse('2100-01-01T00:00:00Z'),
        good: { ...(record.good as object), robots: { v: 1, b: 0, g: [{ a: ['*'], r: [] }] } },
      }),
      'freshness-too-long',
    ],
    [
      'fetchedAt a year in the future',
      (record: Record<string, unknown>) => ({ ...record, fetchedAt: Date.now() + 365 * 86_400_000 }),
      'future-fetch',
    ],
    ['a string', () => 'allow everything', 'malformed'],
  ])('%s: refetched, reported, still disallowed', async (_name, tamper, reason) => {
    const key = storeKey(host.origin);
    const writer = polite([]);
    expect((await writer.check(host.url('/private/a'))).allowed).toBe(false);
    const stored = (await keyv.get(key)) as Record<string, unknown>;
    expect(stored).toMatchObject({ v: 1, origin: host.origin });
    await keyv.set(key, tamper(stored));

    const events: PolitelyEvent[] = [];
    const reader = polite(events);
    const before = host.requests('/robots.txt').length;
    const decision = await reader.check(host.url('/private/secret'));
    expect(decision).toMatchObject({ allowed: false, reason: 'disallowed', source: 'robots.txt' });
    expect(host.requests('/robots.txt').length - before).toBe(1);
    expect(events.filter((event) => event.type === 'store-record-rejected')).toEqual([
      { type: 'store-record-rejected', origin: host.origin, reason },
    ]);
    expect(reader.stats().cache).toMatchObject({ storeRejects: 1, storeHits: 0, misses: 1 });
    // The true record is back in Redis for the rest of the fleet.
    expect(await keyv.get(key)).toMatchObject({ v: 1, origin: host.origin, outcome: 'ok' });
    await Promise.all([writer.close(), reader.close()]);
  });
});
