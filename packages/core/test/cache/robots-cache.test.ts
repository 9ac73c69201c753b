/**
 * The robots.txt cache with a fake clock (freshness, backoff, stale-if-error) over real loopback
 * servers (what was fetched is read from the server's request log).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hang, startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { mergeOptions } from '../../../../test/helpers/options.js';
import { createMemoryStore } from '../../src/cache/memory-store.js';
import { createRobotsCache, type RobotsCacheDeps } from '../../src/cache/robots-cache.js';
import { storeKey } from '../../src/cache/stored-record.js';
import type { RobotsEntry } from '../../src/cache/types.js';
import { type PolitenessOptions, resolveOptions } from '../../src/facade/options.js';
import type { PolitelyEvent } from '../../src/facade/types.js';

const TOKEN = 'PoliteBot';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const RULES = 'User-agent: *\nDisallow: /private/\n';

/** Allowed, as the facade decides it from an entry. */
function allowed(entry: RobotsEntry, url: string): boolean {
  if (entry.source === 'unavailable') return true;
  if (!entry.robots) return false;
  return entry.robots.isAllowed(url, TOKEN);
}

function setup(
  host: TestHost,
  overrides: Omit<PolitenessOptions, 'userAgent'> = {},
  deps: Partial<RobotsCacheDeps> = {},
) {
  const clock = { t: Date.parse('2026-03-01T00:00:00Z'), now: () => clock.t };
  const events: PolitelyEvent[] = [];
  const cache = createRobotsCache(
    resolveOptions(mergeOptions({ userAgent: `${TOKEN}/1.0`, robots: { timeoutMs: 2000 } }, overrides)),
    { clock, emit: (event) => events.push(event), ...deps },
  );
  const before = host.requests('/robots.txt').length;
  const fetched = () => host.requests('/robots.txt').length - before;
  return { cache, clock, events, fetched, url: (path: string) => new URL(host.url(path)) };
}

describe('robots cache', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ ip: '127.0.0.31' });
  });
  afterEach(() => {
    host.route('/robots.txt', text(RULES));
  });
  afterAll(() => host.close());

  it('1,000 concurrent gets for an unknown origin make exactly one robots.txt fetch', async () => {
    host.route('/robots.txt', { ...text(RULES), delayMs: 50 });
    const { cache, fetched, url } = setup(host);
    const entries = await Promise.all(Array.from({ length: 1000 }, (_, i) => cache.get(url(`/page/${i}`))));
    expect(fetched()).toBe(1);
    expect(new Set(entries).size).toBe(1);
    expect(entries[0]).toMatchObject({ source: 'robots.txt', status: 200, origin: host.origin });
    expect(allowed(entries[0] as RobotsEntry, host.url('/private/x'))).toBe(false);
    expect(cache.stats()).toMatchObject({ misses: 1, memoryHits: 0, fetches: { ok: 1 } });
  });

  it('a warm origin is answered from memory (get and peek), without a fetch', async () => {
    const { cache, fetched, url } = setup(host);
    expect(cache.peek(url('/a'))).toBeUndefined();
    const first = await cache.get(url('/a'));
    const again = await cache.get(url('/b?q=1'));
    expect(again).toBe(first);
    expect(cache.peek(url('/c'))).toBe(first);
    expect(fetched()).toBe(1);
    expect(cache.stats()).toMatchObject({ memoryHits: 2, misses: 1 });
  });

  it('default ports and letter case share one entry; another port is another origin', async () => {
    const { cache, fetched } = setup(host);
    await cache.get(new URL(`http://127.0.0.31:${host.port}/a`));
    const other = await startHost({ ip: '127.0.0.31', routes: { '/robots.txt': text('') } });
    try {
      const entry = await cache.get(other.url('/a'));
      expect(entry.origin).toBe(other.origin);
      expect(fetched()).toBe(1);
      expect(other.requests('/robots.txt')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('refetches after cacheTtlMs and serves the new rules at once (no stale-while-revalidate)', async () => {
    const { cache, clock, fetched, url } = setup(host, { robots: { cacheTtlMs: HOUR } });
    await cache.get(url('/'));
    clock.t += HOUR - 1;
    await cache.get(url('/'));
    expect(fetched()).toBe(1);
    host.route('/robots.txt', text('User-agent: *\nDisallow: /\n'));
    clock.t += 1;
    const refreshed = await cache.get(url('/'));
    expect(fetched()).toBe(2);
    expect(allowed(refreshed, host.url('/public'))).toBe(false);
  });

  it('Cache-Control max-age shortens freshness; refreshes are single-flight too', async () => {
    host.route('/robots.txt', { ...text(RULES, 200, { 'cache-control': 'max-age=300' }), delayMs: 30 });
    const { cache, clock, fetched, url } = setup(host);
    const entry = await cache.get(url('/'));
    expect(entry.freshUntil - entry.fetchedAt).toBe(5 * MINUTE);
    clock.t += 5 * MINUTE;
    await Promise.all(Array.from({ length: 50 }, () => cache.get(url('/'))));
    expect(fetched()).toBe(2);
  });

  it('404 is unavailable (allow all), 401/403 too by default (RFC 9309 2.3.1.3)', async () => {
    for (const status of [404, 410, 401, 403]) {
      host.route('/robots.txt', text('nope', status));
      const { cache, url } = setup(host);
      const entry = await cache.get(url('/private/x'));
      expect(entry).toMatchObject({ source: 'unavailable', status });
      expect(allowed(entry, host.url('/private/x'))).toBe(true);
    }
  });

  it("onUnauthorized: 'disallow' turns 401/403 into disallow-all", async () => {
    host.route('/robots.txt', text('login first', 403));
    const { cache, url } = setup(host, { robots: { onUnauthorized: 'disallow' } });
    const entry = await cache.get(url('/x'));
    expect(entry.source).toBe('unreachable');
    expect(allowed(entry, host.url('/x'))).toBe(false);
  });

  it('unreachable with no good copy: disallow all, retry after 1, 2, 4 min, then the recovered rules', async () => {
    host.route('/robots.txt', text('down', 503));
    const { cache, clock, fetched, url } = setup(host);
    const first = await cache.get(url('/x'));
    expect(first).toMatchObject({ source: 'unreachable', status: 503 });
    expect(allowed(first, host.url('/x'))).toBe(false);
    const retries: number[] = [];
    for (let i = 0; i < 3; i++) {
      const entry = await cache.get(url('/x'));
      retries.push(entry.freshUntil - clock.t);
      clock.t = entry.freshUntil - 1;
      await cache.get(url('/x'));
      expect(fetched()).toBe(i + 1);
      clock.t += 1;
      await cache.get(url('/x'));
      expect(fetched()).toBe(i + 2);
    }
    expect(retries).toEqual([MINUTE, 2 * MINUTE, 4 * MINUTE]);
    host.route('/robots.txt', text(RULES));
    clock.t = (await cache.get(url('/x'))).freshUntil;
    const recovered = await cache.get(url('/x'));
    expect(recovered.source).toBe('robots.txt');
    expect(allowed(recovered, host.url('/x'))).toBe(true);
  });

  it('Retry-After on a 503 sets the retry time', async () => {
    host.route('/robots.txt', text('busy', 503, { 'retry-after': '600' }));
    const { cache } = setup(host);
    const entry = await cache.get(new URL(host.url('/')));
    expect(entry.freshUntil - entry.fetchedAt).toBe(10 * MINUTE);
  });

  it('stale-if-error: a good copy stays in force while robots.txt is unreachable, up to staleTtlMs', async () => {
    const { cache, clock, fetched, url } = setup(host, { robots: { staleTtlMs: 3 * DAY } });
    const good = await cache.get(url('/'));
    host.route('/robots.txt', text('oops', 500));
    clock.t += DAY;
    const stale = await cache.get(url('/'));
    expect(fetched()).toBe(2);
    expect(stale).toMatchObject({ source: 'stale', status: 500 });
    expect(stale.robots).toBe(good.robots);
    expect(allowed(stale, host.url('/private/x'))).toBe(false);
    expect(allowed(stale, host.url('/public'))).toBe(true);
    clock.t += 2 * DAY - MINUTE;
    const lastStale = await cache.get(url('/'));
    expect(lastStale.source).toBe('stale');
    // The next retry comes after the good copy turned older than staleTtlMs.
    clock.t = lastStale.freshUntil;
    expect(clock.t - good.fetchedAt).toBeGreaterThan(3 * DAY);
    const expired = await cache.get(url('/'));
    expect(expired.source).toBe('unreachable');
    expect(allowed(expired, host.url('/public'))).toBe(false);
  });

  it('a 4xx after a good copy drops it: the site says there are no rules', async () => {
    const { cache, clock, url } = setup(host);
    await cache.get(url('/'));
    host.route('/robots.txt', text('gone', 410));
    clock.t += DAY;
    const entry = await cache.get(url('/'));
    expect(entry.source).toBe('unavailable');
    host.route('/robots.txt', text('down', 503));
    clock.t += DAY;
    expect((await cache.get(url('/'))).source).toBe('unreachable');
  });

  it('emits one robots-fetch event per fetch', async () => {
    const { cache, events, url } = setup(host);
    await Promise.all([cache.get(url('/a')), cache.get(url('/b'))]);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'robots-fetch',
        origin: host.origin,
        robotsUrl: host.url('/robots.txt'),
        status: 200,
        outcome: 'ok',
        redirects: 0,
        bytes: RULES.length,
        truncated: false,
      }),
    ]);
  });

  it('a listener that throws changes nothing', async () => {
    const { cache, url } = setup(
      host,
      {},
      {
        emit: () => {
          throw new Error('listener bug');
        },
      },
    );
    await expect(cache.get(url('/'))).resolves.toMatchObject({ source: 'robots.txt' });
  });

  it('an aborted caller rejects alone; the shared fetch goes on for the others', async () => {
    host.route('/robots.txt', { ...text(RULES), delayMs: 150 });
    const { cache, fetched, url } = setup(host);
    const controller = new AbortController();
    const aborted = cache.get(url('/a'), controller.signal);
    const patient = cache.get(url('/b'));
    controller.abort(new Error('user gave up'));
    await expect(aborted).rejects.toThrow('user gave up');
    await expect(patient).resolves.toMatchObject({ source: 'robots.txt' });
    await expect(cache.get(url('/c'))).resolves.toMatchObject({ source: 'robots.txt' });
    expect(fetched()).toBe(1);
  });

  it('an already-aborted signal rejects without fetching', async () => {
    const { cache, fetched, url } = setup(host);
    await expect(cache.get(url('/'), AbortSignal.abort(new Error('stop')))).rejects.toThrow('stop');
    expect(fetched()).toBe(0);
  });

  it('rejects a non-http(s) URL with a TypeError', async () => {
    const { cache } = setup(host);
    await expect(cache.get('ftp://127.0.0.31/file')).rejects.toThrow(TypeError);
    expect(() => cache.peek('mailto:x@example.com')).toThrow(TypeError);
  });

  it('a robots.txt that hangs is unreachable after timeoutMs, for every waiter', async () => {
    host.route('/robots.txt', hang());
    const { cache, url } = setup(host, { robots: { timeoutMs: 200 } });
    const entries = await Promise.all([cache.get(url('/a')), cache.get(url('/b'))]);
    expect(entries.map((entry) => entry.source)).toEqual(['unreachable', 'unreachable']);
  });

  describe('with a shared store', () => {
    it('a second cache on the same store does not refetch', async () => {
      const shared = createMemoryStore();
      const one = setup(host, { store: shared });
      const two = setup(host, { store: shared });
      await one.cache.get(one.url('/'));
      const entry = await two.cache.get(two.url('/private/x'));
      expect(one.fetched()).toBe(1);
      expect(entry.source).toBe('robots.txt');
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
      expect(two.cache.stats()).toMatchObject({ storeHits: 1, misses: 0 });
    });

    it('keeps freshness inside the value and stores it for staleTtlMs', async () => {
      const writes: { key: string; value: unknown; ttl: number | undefined }[] = [];
      const store = createMemoryStore();
      const spy = {
        ...store,
        set: (key: string, value: unknown, ttl?: number) => {
          writes.push({ key, value, ttl });
          return store.set(key, value, ttl);
        },
      };
      const { cache, clock } = setup(host, { store: spy, robots: { staleTtlMs: 7 * DAY } });
      await cache.get(host.url('/'));
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatchObject({
        key: `politely:robots:v1:${host.origin}`,
        ttl: 7 * DAY,
        value: {
          v: 1,
          origin: host.origin,
          outcome: 'ok',
          status: 200,
          fetchedAt: clock.t,
          freshUntil: clock.t + DAY,
        },
      });
      expect(JSON.parse(JSON.stringify(writes[0]?.value))).toEqual(writes[0]?.value);
    });

    it.each([
      ['garbage', 'not json at all'],
      ['null', null],
      ['an older layout', { v: 0, origin: 'x', rules: [] }],
      ['another origin', { v: 1, origin: 'http://elsewhere', outcome: 'ok' }],
      ['broken rules', 'BROKEN_RULES'],
    ])('a stored value that is %s is a miss', async (_name, value) => {
      const store = createMemoryStore();
      const { cache, clock, fetched } = setup(host, { store });
      const key = storeKey(host.origin);
      if (value === 'BROKEN_RULES') {
        await store.set(key, {
          v: 1,
          origin: host.origin,
          robotsUrl: host.url('/robots.txt'),
          outcome: 'ok',
          status: 200,
          fetchedAt: clock.t,
          freshUntil: clock.t + DAY,
          failures: 0,
          parse: 'longest/true/exact/rfc',
          good: { robots: { v: 99 }, status: 200, fetchedAt: clock.t },
        });
      } else {
        await store.set(key, value);
      }
      const entry = await cache.get(host.url('/private/x'));
      expect(fetched()).toBe(1);
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
      expect(await store.get(key)).toMatchObject({ v: 1, outcome: 'ok' });
    });

    it('other parse options do not share stored rules', async () => {
      const shared = createMemoryStore();
      await setup(host, { store: shared }).cache.get(host.url('/'));
      const other = setup(host, { store: shared, robots: { parse: { precedence: 'first' } } });
      await other.cache.get(host.url('/'));
      expect(other.fetched()).toBe(1);
    });

    it('a stale record from the store seeds stale-if-error in another process', async () => {
      const shared = createMemoryStore();
      const one = setup(host, { store: shared });
      await one.cache.get(one.url('/'));
      host.route('/robots.txt', text('down', 502));
      const two = setup(host, { store: shared });
      two.clock.t = one.clock.t + 2 * DAY;
      const entry = await two.cache.get(two.url('/'));
      expect(entry.source).toBe('stale');
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
    });

    it('memoryCacheSize bounds the compiled entries; evicted origins come back from the store', async () => {
      const other = await startHost({ ip: '127.0.0.32', routes: { '/robots.txt': text(RULES) } });
      try {
        const { cache, fetched } = setup(host, { memory: { cacheSize: 1 }, store: createMemoryStore() });
        for (let i = 0; i < 3; i++) {
          await cache.get(host.url('/'));
          await cache.get(other.url('/'));
        }
        expect(fetched()).toBe(1);
        expect(other.requests('/robots.txt')).toHaveLength(1);
        expect(cache.stats()).toMatchObject({ misses: 2, storeHits: 4 });
      } finally {
        await other.close();
      }
    });
  });
});
