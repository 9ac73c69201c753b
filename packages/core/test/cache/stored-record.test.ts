/**
 * Stored records are hostile input: whatever this process would not have written itself is a miss,
 * refetched, counted and reported, never trusted and never thrown (issue 10, item 3).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { createMemoryStore } from '../../src/cache/memory-store.js';
import { createRobotsCache } from '../../src/cache/robots-cache.js';
import {
  MAX_CLOCK_SKEW_MS,
  MAX_STORED_ERROR,
  type StoreRecordRejection,
  storeKey,
} from '../../src/cache/stored-record.js';
import { resolveOptions } from '../../src/facade/options.js';
import type { PolitelyEvent } from '../../src/facade/types.js';

const DAY = 86_400_000;
const RULES = 'User-agent: *\nDisallow: /private/\n';
const ALLOW_ALL = { v: 1, b: 0, g: [{ a: ['*'], r: [] }] };

type Record = { [key: string]: unknown; good: { [key: string]: unknown } };

/** Tampering, as someone with write access to the store would do it. */
const TAMPERINGS: [string, (record: Record, now: number) => object, StoreRecordRejection | 'accepted'][] = [
  [
    'freshUntil in 2100 over allow-all rules',
    (r) => ({ freshUntil: Date.parse('2100-01-01T00:00:00Z'), good: { ...r.good, robots: ALLOW_ALL } }),
    'freshness-too-long',
  ],
  [
    'freshUntil one minute past fetchedAt + cacheTtlMs',
    (r) => ({ freshUntil: (r.fetchedAt as number) + DAY + 60_000 }),
    'freshness-too-long',
  ],
  ['fetchedAt one day in the future', (_r, now) => ({ fetchedAt: now + DAY }), 'future-fetch'],
  ['an unknown version', () => ({ v: 2 }), 'version'],
  ['another origin under this key', () => ({ origin: 'http://elsewhere.example' }), 'origin-mismatch'],
  ['another robots.txt URL', () => ({ robotsUrl: 'http://elsewhere.example/robots.txt' }), 'origin-mismatch'],
  ['a status that is a string', () => ({ status: '200' }), 'malformed'],
  ['a negative failure count', () => ({ failures: -1 }), 'malformed'],
  ['freshUntil before fetchedAt', (r) => ({ freshUntil: (r.fetchedAt as number) - 1 }), 'malformed'],
  [
    'a good copy newer than the record',
    (r) => ({ good: { ...r.good, fetchedAt: (r.fetchedAt as number) + 1 } }),
    'malformed',
  ],
  [
    'rules that do not deserialize',
    (r) => ({ good: { ...r.good, robots: { v: 1, b: 0, g: 'all' } } }),
    'rules',
  ],
  ['rules of an unknown version', (r) => ({ good: { ...r.good, robots: { v: 99 } } }), 'rules'],
  ['a version that is a string', () => ({ v: 'x' }), 'version'],
  [
    'an unreachable timeline on a robots.txt that answered',
    (r) => ({ outage: { since: r.fetchedAt, phase: 'disallow-all' } }),
    'malformed',
  ],
  ['an error text that is not a string', () => ({ error: { length: 1 } }), 'malformed'],
  [
    'an error text past the longest written',
    () => ({ error: 'x'.repeat(MAX_STORED_ERROR + 1) }),
    'malformed',
  ],
  // Allowed clock skew between fleet machines: a writer up to MAX_CLOCK_SKEW_MS ahead is trusted.
  [
    'fetchedAt inside the allowed clock skew',
    (_r, now) => ({ fetchedAt: now + MAX_CLOCK_SKEW_MS / 2, freshUntil: now + MAX_CLOCK_SKEW_MS / 2 + DAY }),
    'accepted',
  ],
];

describe('stored records are validated on read', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ ip: '127.0.0.33', routes: { '/robots.txt': text(RULES) } });
  });
  afterAll(() => host.close());

  it.each(TAMPERINGS)('%s: %s', async (_name, tamper, expected) => {
    const store = createMemoryStore();
    const clock = { t: Date.parse('2026-03-01T00:00:00Z'), now: () => clock.t };
    const writer = createRobotsCache(resolveOptions({ userAgent: 'PoliteBot/1.0', store }), {
      clock,
      emit: () => {},
    });
    await writer.get(host.url('/'));
    const key = storeKey(host.origin);
    const record = structuredClone((await store.get(key)) as Record);
    Object.assign(record, tamper(record, clock.t));
    await store.set(key, record);

    const events: PolitelyEvent[] = [];
    const before = host.requests('/robots.txt').length;
    const reader = createRobotsCache(resolveOptions({ userAgent: 'PoliteBot/1.0', store }), {
      clock,
      emit: (event) => events.push(event),
    });
    const entry = await reader.get(host.url('/private/x'));
    const refetched = host.requests('/robots.txt').length - before;
    const rejections = events.filter((event) => event.type === 'store-record-rejected');
    if (expected === 'accepted') {
      expect(refetched).toBe(0);
      expect(rejections).toEqual([]);
      expect(reader.stats()).toMatchObject({ storeHits: 1, storeRejects: 0 });
      return;
    }
    expect(refetched).toBe(1);
    expect(rejections).toEqual([{ type: 'store-record-rejected', origin: host.origin, reason: expected }]);
    expect(reader.stats()).toMatchObject({ storeHits: 0, misses: 1, storeRejects: 1 });
    expect(entry.robots?.isAllowed(host.url('/private/x'), 'PoliteBot')).toBe(false);
    // The refetch overwrote the tampered record with a true one.
    expect(await store.get(key)).toMatchObject({ v: 1, origin: host.origin, freshUntil: clock.t + DAY });
  });
});

describe('why robots.txt was unreachable travels with the record', () => {
  it('another process reading the record sees the failure the writer saw', async () => {
    const down = await startHost({ ip: '127.0.0.33', routes: { '/robots.txt': text('busy', 503) } });
    try {
      const store = createMemoryStore();
      const clock = { t: Date.parse('2026-03-01T00:00:00Z'), now: () => clock.t };
      const options = resolveOptions({ userAgent: 'PoliteBot/1.0', store });
      const writer = createRobotsCache(options, { clock, emit: () => {} });
      expect(await writer.get(down.url('/'))).toMatchObject({ source: 'unreachable', error: 'HTTP 503' });
      expect(await store.get(storeKey(down.origin))).toMatchObject({
        outcome: 'unreachable',
        error: 'HTTP 503',
      });

      const reader = createRobotsCache(options, { clock, emit: () => {} });
      expect(await reader.get(down.url('/x'))).toMatchObject({ source: 'unreachable', error: 'HTTP 503' });
      expect(down.requests('/robots.txt')).toHaveLength(1);
    } finally {
      await down.close();
    }
  });
});
