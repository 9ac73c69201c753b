/**
 * A broad crawl through the robots.txt cache with the default options: every origin's robots.txt is
 * fetched once per freshness period however many origins the crawl touches, until the byte budget is
 * full; then the least recently used origin goes, and only it is fetched again (issue 25, point 2).
 * The fetch is a stub that logs each robots.txt request, as a server would: 12,000 loopback servers
 * would test the machine, not the cache.
 */
import { describe, expect, it } from 'vitest';
import { createRobotsCache } from '../../src/cache/robots-cache.js';
import { type PolitenessOptions, resolveOptions } from '../../src/facade/options.js';
import type { FetchLike } from '../../src/fetch/types.js';

const TOKEN = 'PoliteBot';
const BODY = new TextEncoder().encode('User-agent: *\nDisallow: /private/\n');

function setup(overrides: Omit<PolitenessOptions, 'userAgent'> = {}) {
  const clock = { t: Date.parse('2026-03-01T00:00:00Z'), now: () => clock.t };
  const requested = new Map<string, number>();
  const fetch: FetchLike = async (url) => {
    requested.set(url, (requested.get(url) ?? 0) + 1);
    return {
      status: 200,
      headers: new Headers({ 'content-type': 'text/plain' }),
      body: (async function* () {
        yield BODY;
      })(),
    };
  };
  const cache = createRobotsCache(resolveOptions({ userAgent: `${TOKEN}/1.0`, ...overrides }), {
    clock,
    emit: () => {},
    fetch,
  });
  const fetches = () => [...requested.values()].reduce((sum, n) => sum + n, 0);
  const fetchesOf = (origin: string) => requested.get(`${origin}/robots.txt`) ?? 0;
  return { cache, clock, fetches, fetchesOf };
}

const originOf = (i: number) => `https://site-${i}.example`;

describe('robots cache at breadth (defaults)', () => {
  it('12,000 origins checked round-robin 3 times: 12,000 robots.txt fetches, the rest from memory', async () => {
    const { cache, fetches } = setup();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 12_000; i++) {
        const entry = await cache.get(`${originOf(i)}/page/${round}`);
        expect(entry.source).toBe('robots.txt');
      }
    }
    expect(fetches()).toBe(12_000);
    expect(cache.stats()).toMatchObject({ misses: 12_000, memoryHits: 24_000 });
  });

  // Refetching is per origin whatever their number; holding more origins than the old 10,000 count
  // is the test above's (this one took 26 s at 11,000 origins for what 2,000 show as well).
  it('past the freshness period each origin is fetched once more, not once per page', async () => {
    const { cache, clock, fetches } = setup();
    for (let i = 0; i < 2_000; i++) await cache.get(`${originOf(i)}/`);
    clock.t += 25 * 60 * 60 * 1000; // the default freshness is 24 h
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 2_000; i++) await cache.get(`${originOf(i)}/${round}`);
    expect(fetches()).toBe(4_000);
  });

  it('a full byte budget evicts the least recently used origin, and only that one is fetched again', async () => {
    // A budget for about 13 of these small entries (~2.4 KB each as estimated).
    const { cache, fetches, fetchesOf } = setup({ memory: { budgetBytes: 32 * 1024 } });
    const hot = originOf(0);
    for (let i = 1; i <= 200; i++) {
      await cache.get(`${hot}/page/${i}`); // used between every other origin: never the least recent
      await cache.get(`${originOf(i)}/`);
    }
    expect(fetchesOf(hot)).toBe(1);
    expect(fetches()).toBe(201);
    // The most recent origins are still held; the first ones were evicted and come back by a fetch.
    await cache.get(`${originOf(200)}/again`);
    expect(fetchesOf(originOf(200))).toBe(1);
    await cache.get(`${originOf(1)}/again`);
    expect(fetchesOf(originOf(1))).toBe(2);
  });

  it('memoryCacheSize, when set, is an extra bound on the count', async () => {
    const { cache, fetches } = setup({ memory: { cacheSize: 100 } });
    for (let round = 0; round < 2; round++) for (let i = 0; i < 101; i++) await cache.get(`${originOf(i)}/`);
    expect(fetches()).toBe(202);
  });
});
