/**
 * Change awareness (issue 12, item 5): a refresh that changes the rules for our product token emits
 * `robots-changed` with what changed. Real loopback servers whose robots.txt changes between fetches;
 * a fake clock moves past freshness.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { internalOptions, mergeOptions } from '../../../../test/helpers/options.js';
import { createMemoryStore } from '../../src/cache/memory-store.js';
import { createRobotsCache, type RobotsCacheDeps } from '../../src/cache/robots-cache.js';
import { type PolitenessOptions, resolveOptions } from '../../src/facade/options.js';
import type { PolitelyEvent } from '../../src/facade/types.js';
import { createPoliteness } from '../../src/index.js';

const TOKEN = 'PoliteBot';
const HOUR = 3_600_000;
const V1 = 'User-agent: *\nDisallow: /private/\nCrawl-delay: 1\n';
const V2 = 'User-agent: *\nDisallow: /private/\nDisallow: /drafts/\nCrawl-delay: 3\n';

type Changed = Extract<PolitelyEvent, { type: 'robots-changed' }>;

function setup(
  clock: { t: number; now: () => number },
  overrides: Omit<PolitenessOptions, 'userAgent'> = {},
  deps: Partial<RobotsCacheDeps> = {},
) {
  const events: PolitelyEvent[] = [];
  const cache = createRobotsCache(
    resolveOptions(
      mergeOptions(
        {
          userAgent: `${TOKEN}/1.0`,
          robots: { timeoutMs: 2000, cacheTtlMs: HOUR, unreachableRetryMs: 60_000 },
        },
        overrides,
      ),
    ),
    { clock, emit: (event) => events.push(event), ...deps },
  );
  const changes = () => events.filter((event): event is Changed => event.type === 'robots-changed');
  return { cache, changes, events };
}

const newClock = () => {
  const clock = { t: Date.parse('2026-03-01T00:00:00Z'), now: () => clock.t };
  return clock;
};

describe('robots-changed', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ ip: '127.0.0.33' });
  });
  afterEach(() => host.route('/robots.txt', text(V1)));
  afterAll(() => host.close());

  it('is emitted once when a refresh changes the rules, with what was added and the Crawl-delay', async () => {
    host.route('/robots.txt', text(V1));
    const clock = newClock();
    const { cache, changes, events } = setup(clock);
    await cache.get(host.url('/'));
    expect(changes()).toEqual([]); // a first fetch is no change
    host.route('/robots.txt', text(V2));
    clock.t += HOUR;
    await cache.get(host.url('/'));
    await cache.get(host.url('/again'));
    expect(changes()).toEqual([
      {
        type: 'robots-changed',
        origin: host.origin,
        robotsUrl: host.url('/robots.txt'),
        diff: {
          productToken: TOKEN,
          changed: true,
          added: [{ directive: 'disallow', pattern: '/drafts/', line: 3 }],
          removed: [],
          crawlDelay: { before: 1, after: 3 },
          sitemaps: { added: [], removed: [] },
        },
      },
    ]);
    // After the fetch that found the change.
    const types = events.map((event) => event.type);
    expect(types.indexOf('robots-changed')).toBeGreaterThan(types.lastIndexOf('robots-fetch'));
  });

  it('is not emitted when a refresh brings the same rules (comments, order, other crawlers aside)', async () => {
    host.route('/robots.txt', text(V1));
    const clock = newClock();
    const { cache, changes } = setup(clock);
    await cache.get(host.url('/'));
    host.route(
      '/robots.txt',
      text(`# edited\nUser-agent: OtherBot\nDisallow: /\n\n${V1}Sitemap: https://a.example/s.xml\n`),
    );
    clock.t += HOUR;
    await cache.get(host.url('/'));
    expect(host.requests('/robots.txt').length).toBeGreaterThanOrEqual(2);
    expect(changes()).toEqual([]);
  });

  it('not while robots.txt is unreachable (the old copy stands in); on recovery, against that copy', async () => {
    host.route('/robots.txt', text(V1));
    const clock = newClock();
    const { cache, changes } = setup(clock);
    await cache.get(host.url('/'));
    host.route('/robots.txt', text('down', 503));
    clock.t += HOUR;
    expect((await cache.get(host.url('/'))).source).toBe('stale');
    expect(changes()).toEqual([]);
    host.route('/robots.txt', text(V2));
    clock.t += HOUR;
    expect((await cache.get(host.url('/'))).source).toBe('robots.txt');
    expect(changes()).toHaveLength(1);
    expect(changes()[0]?.diff.added).toEqual([{ directive: 'disallow', pattern: '/drafts/', line: 3 }]);
  });

  it('a robots.txt that goes away (404: allow all) removes every rule', async () => {
    host.route('/robots.txt', text(V1));
    const clock = newClock();
    const { cache, changes } = setup(clock);
    await cache.get(host.url('/'));
    host.route('/robots.txt', text('gone', 404));
    clock.t += HOUR;
    expect((await cache.get(host.url('/'))).source).toBe('unavailable');
    expect(changes()[0]?.diff).toMatchObject({
      removed: [{ directive: 'disallow', pattern: '/private/', line: 2 }],
      crawlDelay: { before: 1 },
    });
  });

  it('is emitted by a process that reads the new rules from the store, written by another', async () => {
    host.route('/robots.txt', text(V1));
    const clock = newClock();
    const store = createMemoryStore();
    const writer = setup(clock, { store });
    const reader = setup(clock, { store });
    await writer.cache.get(host.url('/'));
    await reader.cache.get(host.url('/')); // from the store
    const fetchedBefore = host.requests('/robots.txt').length;
    host.route('/robots.txt', text(V2));
    clock.t += HOUR;
    await writer.cache.get(host.url('/'));
    await reader.cache.get(host.url('/'));
    expect(host.requests('/robots.txt').length).toBe(fetchedBefore + 1); // the reader did not fetch
    expect(writer.changes()).toHaveLength(1);
    expect(reader.changes()).toHaveLength(1);
    expect(reader.changes()[0]?.diff.crawlDelay).toEqual({ before: 1, after: 3 });
  });

  it('reaches subscribers of the facade', async () => {
    host.route('/robots.txt', text(V1));
    const clock = newClock();
    const politeness = createPoliteness(
      internalOptions({
        userAgent: `${TOKEN}/1.0`,
        scheduler: 'memory',
        logger: false,
        robots: { cacheTtlMs: HOUR },
        clock: { now: () => clock.t, sleep: async () => {} },
      }),
    );
    const seen: Changed[] = [];
    politeness.subscribe((event) => {
      if (event.type === 'robots-changed') seen.push(event);
    });
    try {
      expect((await politeness.check(host.url('/drafts/a'))).allowed).toBe(true);
      host.route('/robots.txt', text(V2));
      clock.t += HOUR;
      expect((await politeness.check(host.url('/drafts/a'))).allowed).toBe(false);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.diff.added).toEqual([{ directive: 'disallow', pattern: '/drafts/', line: 3 }]);
    } finally {
      await politeness.close();
    }
  });
});
