/**
 * The cache-store contract as a suite of tests registered for a store factory (after keyv's
 * @keyv/test-suite): every store politely accepts must give the same visible behaviour. Working stores
 * share robots.txt across processes; failing stores (throwing, hanging) cost a refetch, never a verdict.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRobotsCache } from '../../packages/core/src/cache/robots-cache.js';
import { storeKey } from '../../packages/core/src/cache/stored-record.js';
import type { KeyvLike, RobotsEntry } from '../../packages/core/src/cache/types.js';
import { type PolitenessOptions, resolveOptions } from '../../packages/core/src/facade/options.js';
import type { PolitelyEvent } from '../../packages/core/src/facade/types.js';
import { startHost, type TestHost, text } from '../helpers/hosts.js';
import { mergeOptions } from '../helpers/options.js';

export interface StoreUnderTest {
  /** A handle on the shared storage as one process opens it; called once per simulated process. */
  open(): KeyvLike | Promise<KeyvLike>;
  /** Calls the store received, when the fixture counts them. */
  readonly calls?: () => number;
  /** Removes what the test wrote and closes connections. */
  cleanup?(): Promise<void>;
}

export interface CacheStoreSuiteOptions {
  /** `working` (default): values are kept and shared. `failing`: every call throws or hangs. */
  readonly behaviour?: 'working' | 'failing';
  /** Store calls slower than this count as failed (keep it short for hanging stores). */
  readonly storeTimeoutMs?: number;
  /** For Keyv instances: check that namespace and listeners are left as the user set them. */
  readonly keyv?: boolean;
}

const TOKEN = 'StoreSuiteBot';
const DAY = 86_400_000;
const RULES = 'User-agent: *\nDisallow: /private/\n';

function allowed(entry: RobotsEntry, url: string): boolean {
  if (entry.source === 'unavailable') return true;
  return entry.robots?.isAllowed(url, TOKEN) ?? false;
}

export function cacheStoreSuite(
  name: string,
  factory: () => StoreUnderTest | Promise<StoreUnderTest>,
  options: CacheStoreSuiteOptions = {},
): void {
  describe(`cache store: ${name}`, () => {
    let fixture: StoreUnderTest;
    let host: TestHost;
    const clock = { t: 0, now: () => clock.t };
    let events: PolitelyEvent[];

    /** One crawler process: its own cache (own memory), the shared store. */
    async function crawlerProcess(overrides: Omit<PolitenessOptions, 'userAgent'> = {}) {
      const store = await fixture.open();
      return createRobotsCache(
        resolveOptions(
          mergeOptions({ userAgent: `${TOKEN}/1.0`, store, robots: { timeoutMs: 2000 } }, overrides),
        ),
        {
          clock,
          emit: (event) => events.push(event),
          ...(options.storeTimeoutMs !== undefined ? { storeTimeoutMs: options.storeTimeoutMs } : {}),
        },
      );
    }
    const robotsFetches = () => host.requests('/robots.txt').length;

    beforeEach(async () => {
      fixture = await factory();
      host = await startHost({ ip: '127.0.0.41', routes: { '/robots.txt': text(RULES) } });
      clock.t = Date.parse('2026-03-01T00:00:00Z');
      events = [];
    });
    afterEach(async () => {
      await host.close();
      await fixture.cleanup?.();
    });

    it('gives the right verdicts and never rejects', async () => {
      const cache = await crawlerProcess();
      const entry = await cache.get(host.url('/private/x'));
      expect(entry.source).toBe('robots.txt');
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
      expect(allowed(entry, host.url('/public'))).toBe(true);
      await cache.get(host.url('/again'));
      expect(robotsFetches()).toBe(1);
    });

    if (options.behaviour === 'failing') {
      it('every process refetches, and the store trouble is reported', async () => {
        const first = await crawlerProcess();
        const second = await crawlerProcess();
        const verdicts = [await first.get(host.url('/private/x')), await second.get(host.url('/private/x'))];
        expect(verdicts.map((entry) => allowed(entry, host.url('/private/x')))).toEqual([false, false]);
        expect(robotsFetches()).toBe(2);
        expect(events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'get' }));
        expect(first.stats().storeErrors).toBeGreaterThanOrEqual(1);
      });

      it('after a failure the store is skipped for a while (one failure, not one per origin)', async () => {
        const cache = await crawlerProcess();
        const others = await Promise.all(
          [1, 2, 3].map(() => startHost({ ip: '127.0.0.42', routes: { '/robots.txt': text(RULES) } })),
        );
        try {
          await cache.get(host.url('/'));
          const callsAfterFirst = fixture.calls?.();
          for (const other of others) await cache.get(other.url('/'));
          if (callsAfterFirst !== undefined) expect(fixture.calls?.()).toBe(callsAfterFirst);
          expect(events.filter((event) => event.type === 'store-error')).toHaveLength(1);
          expect(others.map((other) => other.requests('/robots.txt').length)).toEqual([1, 1, 1]);
        } finally {
          await Promise.all(others.map((other) => other.close()));
        }
      });
      return;
    }

    it('a second process sharing the store does not refetch', async () => {
      const fetched = await (await crawlerProcess()).get(host.url('/'));
      const second = await crawlerProcess();
      const entry = await second.get(host.url('/private/x'));
      expect(robotsFetches()).toBe(1);
      expect(entry.source).toBe('robots.txt');
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
      // The rules came through the store intact: same verdict, same deciding line.
      const verdict = (robots: RobotsEntry['robots']) => robots?.check(host.url('/private/x'), TOKEN);
      expect(verdict(entry.robots)).toEqual(verdict(fetched.robots));
      expect(verdict(entry.robots)?.rule).toMatchObject({
        directive: 'disallow',
        pattern: '/private/',
        line: 2,
      });
      expect(second.stats()).toMatchObject({ storeHits: 1, misses: 0 });
      expect(events.filter((event) => event.type === 'store-error')).toEqual([]);
    });

    it('writes plain JSON under politely:robots:v1:<origin>', async () => {
      await (await crawlerProcess()).get(host.url('/'));
      const value = await (await fixture.open()).get(storeKey(host.origin));
      expect(value).toMatchObject({ v: 1, origin: host.origin, outcome: 'ok', status: 200 });
      expect(JSON.parse(JSON.stringify(value))).toEqual(value);
    });

    it('a stored entry past its freshness is refetched by the next process', async () => {
      await (await crawlerProcess({ robots: { cacheTtlMs: DAY } })).get(host.url('/'));
      clock.t += DAY;
      host.route('/robots.txt', text('User-agent: *\nDisallow: /\n'));
      const entry = await (await crawlerProcess({ robots: { cacheTtlMs: DAY } })).get(host.url('/public'));
      expect(robotsFetches()).toBe(2);
      expect(allowed(entry, host.url('/public'))).toBe(false);
    });

    it('another process refreshes conditionally from the stored validators; a 304 renews the record', async () => {
      const served: [string | undefined, number][] = [];
      host.route('/robots.txt', (req, res) => {
        const condition = req.headers['if-none-match'];
        const status = condition === '"r1"' ? 304 : 200;
        served.push([condition, status]);
        res.writeHead(status, { 'content-type': 'text/plain', etag: '"r1"' });
        res.end(status === 200 ? RULES : undefined);
      });
      await (await crawlerProcess()).get(host.url('/'));
      clock.t += DAY;
      const second = await crawlerProcess();
      const entry = await second.get(host.url('/private/x'));
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
      expect(second.stats().fetches).toMatchObject({ ok: 0, notModified: 1 });
      // The renewal went back to the store: a third process is fresh without asking.
      await (await crawlerProcess()).get(host.url('/'));
      expect(served).toEqual([
        [undefined, 200],
        ['"r1"', 304],
      ]);
    });

    it('stale-if-error works across processes through the store', async () => {
      await (await crawlerProcess()).get(host.url('/'));
      clock.t += 2 * DAY;
      host.route('/robots.txt', text('down', 503));
      const entry = await (await crawlerProcess()).get(host.url('/public'));
      expect(entry).toMatchObject({ source: 'stale', status: 503 });
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
      expect(allowed(entry, host.url('/public'))).toBe(true);
      // The failure is shared too: a third process waits for the retry time instead of refetching.
      const third = await (await crawlerProcess()).get(host.url('/'));
      expect(third.source).toBe('stale');
      expect(robotsFetches()).toBe(2);
    });

    it('garbage under our key is a miss, then overwritten', async () => {
      const store = await fixture.open();
      await store.set(storeKey(host.origin), { v: 1, origin: host.origin, outcome: 'ok', good: 'garbage' });
      const entry = await (await crawlerProcess()).get(host.url('/private/x'));
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
      expect(robotsFetches()).toBe(1);
      expect(await store.get(storeKey(host.origin))).toMatchObject({ v: 1, outcome: 'ok', failures: 0 });
    });

    it("leaves the user's other keys alone", async () => {
      const store = await fixture.open();
      await store.set('user:session', { id: 42 });
      await (await crawlerProcess()).get(host.url('/'));
      expect(await store.get('user:session')).toEqual({ id: 42 });
    });

    if (options.keyv) {
      it("never changes the user's Keyv (namespace, listeners)", async () => {
        const store = (await fixture.open()) as KeyvLike & {
          namespace?: string;
          listenerCount?: (event: string) => number;
        };
        const namespace = store.namespace;
        const listeners = store.listenerCount?.('error');
        const cache = createRobotsCache(resolveOptions({ userAgent: `${TOKEN}/1.0`, store }), {
          clock,
          emit: () => {},
        });
        await cache.get(host.url('/'));
        expect(store.namespace).toBe(namespace);
        expect(store.listenerCount?.('error')).toBe(listeners);
      });
    }
  });
}
