/**
 * robots.txt refreshed with conditional requests (issue 34, point 2), over real loopback servers and a
 * fake clock: what the site saw (request headers, status, body bytes) and what the crawler decided.
 * RFC 9110 13.1.2 / 13.1.3 (If-None-Match, If-Modified-Since), 15.4.5 (304), RFC 9111 4.3.4 (a 304
 * updates the stored response's header fields).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { mergeOptions } from '../../../../test/helpers/options.js';
import { createMemoryStore } from '../../src/cache/memory-store.js';
import { createRobotsCache, type RobotsCacheDeps } from '../../src/cache/robots-cache.js';
import { storeKey } from '../../src/cache/stored-record.js';
import type { KeyvLike, RobotsEntry } from '../../src/cache/types.js';
import { type PolitenessOptions, resolveOptions } from '../../src/facade/options.js';
import type { PolitelyEvent } from '../../src/facade/types.js';
import type { FetchLike } from '../../src/fetch/types.js';

const TOKEN = 'PoliteBot';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RULES = 'User-agent: *\nDisallow: /private/\n';
const ETAG = '"rules-v1"';
const LAST_MODIFIED = 'Sun, 01 Mar 2026 00:00:00 GMT';

/** What the site answered to one robots.txt request. */
interface Answer {
  readonly ifNoneMatch: string | undefined;
  readonly ifModifiedSince: string | undefined;
  readonly status: number;
  /** Body bytes sent. */
  readonly bytes: number;
}

interface SiteOptions {
  readonly etag?: string;
  readonly lastModified?: string;
  readonly body?: string;
  /** Extra headers on the 200. */
  readonly headers200?: Record<string, string>;
  /** Extra headers on the 304 (the validators are sent too unless `bare304`). */
  readonly headers304?: Record<string, string>;
  readonly bare304?: boolean;
  /** Answer 304 to every request, conditional or not (a broken server or proxy). */
  readonly always304?: boolean;
}

/** A robots.txt route that honours conditions as a web server does (weak comparison for If-None-Match). */
function conditionalRobots(options: SiteOptions) {
  const answers: Answer[] = [];
  const body = options.body ?? RULES;
  const validators = {
    ...(options.etag !== undefined ? { etag: options.etag } : {}),
    ...(options.lastModified !== undefined ? { 'last-modified': options.lastModified } : {}),
  };
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const ifNoneMatch = req.headers['if-none-match'];
    const ifModifiedSince = req.headers['if-modified-since'];
    const unchanged =
      options.always304 ||
      (ifNoneMatch !== undefined
        ? options.etag !== undefined && opaque(ifNoneMatch) === opaque(options.etag)
        : ifModifiedSince !== undefined && ifModifiedSince === options.lastModified);
    if (unchanged) {
      res.writeHead(304, { ...(options.bare304 ? {} : validators), ...options.headers304 });
      res.end();
      answers.push({ ifNoneMatch, ifModifiedSince, status: 304, bytes: 0 });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', ...validators, ...options.headers200 });
    res.end(body);
    answers.push({ ifNoneMatch, ifModifiedSince, status: 200, bytes: Buffer.byteLength(body) });
  };
  return { handler, answers };
}

function allowed(entry: RobotsEntry, url: string): boolean {
  if (entry.source === 'unavailable') return true;
  return entry.robots?.isAllowed(url, TOKEN) ?? false;
}

const start = Date.parse('2026-03-01T00:00:00Z');

function crawler(
  overrides: Omit<PolitenessOptions, 'userAgent'> = {},
  deps: Partial<RobotsCacheDeps> & { clock?: { t: number; now(): number } } = {},
) {
  const fake: { t: number; now(): number } = { t: start, now: () => fake.t };
  const clock = deps.clock ?? fake;
  const events: PolitelyEvent[] = [];
  const cache = createRobotsCache(
    resolveOptions(mergeOptions({ userAgent: `${TOKEN}/1.0`, robots: { timeoutMs: 2000 } }, overrides)),
    { ...deps, clock, emit: (event) => events.push(event) },
  );
  const fetches = () =>
    events.flatMap((event) => (event.type === 'robots-fetch' ? [event] : [])).map((event) => event.outcome);
  return { cache, clock, events, fetches };
}

describe('conditional robots.txt refresh', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ ip: '127.0.0.61' });
  });
  afterAll(() => host.close());

  it('three rounds past cacheTtlMs: one full fetch, then If-None-Match / If-Modified-Since answered 304', async () => {
    const site = conditionalRobots({ etag: ETAG, lastModified: LAST_MODIFIED });
    host.route('/robots.txt', site.handler);
    const { cache, clock, fetches } = crawler({ robots: { cacheTtlMs: 1000 } });

    const verdicts: boolean[] = [];
    for (let round = 0; round < 3; round++) {
      const entry = await cache.get(host.url('/private/x'));
      verdicts.push(allowed(entry, host.url('/private/x')), allowed(entry, host.url('/public')));
      clock.t += 1300;
    }

    expect(site.answers).toEqual([
      { ifNoneMatch: undefined, ifModifiedSince: undefined, status: 200, bytes: RULES.length },
      { ifNoneMatch: ETAG, ifModifiedSince: LAST_MODIFIED, status: 304, bytes: 0 },
      { ifNoneMatch: ETAG, ifModifiedSince: LAST_MODIFIED, status: 304, bytes: 0 },
    ]);
    expect(verdicts).toEqual([false, true, false, true, false, true]);
    expect(fetches()).toEqual(['ok', 'not-modified', 'not-modified']);
    expect(cache.stats().fetches).toEqual({ ok: 1, unavailable: 0, unreachable: 0, notModified: 2 });
  });

  it('a renewed copy is fresh for what the 304 says, else for what the 200 said (RFC 9111 4.3.4)', async () => {
    const site = conditionalRobots({
      etag: ETAG,
      headers200: { 'cache-control': 'max-age=120' },
      headers304: { 'cache-control': 'max-age=600' },
    });
    host.route('/robots.txt', site.handler);
    const { cache, clock } = crawler();
    expect((await cache.get(host.url('/'))).freshUntil).toBe(clock.t + 120_000);
    clock.t += 121_000;
    const renewed = await cache.get(host.url('/'));
    expect(renewed).toMatchObject({ source: 'robots.txt', status: 200, fetchedAt: clock.t });
    expect(renewed.freshUntil).toBe(clock.t + 600_000);

    // A 304 without caching headers keeps the copy's own: max-age=120 from the 200.
    const quiet = conditionalRobots({ etag: ETAG, headers200: { 'cache-control': 'max-age=120' } });
    host.route('/robots.txt', quiet.handler);
    const other = crawler();
    await other.cache.get(host.url('/'));
    other.clock.t += 121_000;
    expect((await other.cache.get(host.url('/'))).freshUntil).toBe(other.clock.t + 120_000);
    expect(quiet.answers.map((answer) => answer.status)).toEqual([200, 304]);
  });

  it('a 304 is bounded like a 200: never past cacheTtlMs, never under robots.minTtlMs', async () => {
    const site = conditionalRobots({ etag: ETAG, headers304: { 'cache-control': 'max-age=31536000' } });
    host.route('/robots.txt', site.handler);
    const { cache, clock } = crawler({ robots: { cacheTtlMs: HOUR } });
    await cache.get(host.url('/'));
    clock.t += HOUR;
    expect((await cache.get(host.url('/'))).freshUntil).toBe(clock.t + HOUR);

    const noStore = conditionalRobots({ etag: ETAG, headers304: { 'cache-control': 'no-store' } });
    host.route('/robots.txt', noStore.handler);
    const floor = crawler({ robots: { minTtlMs: 30_000 } });
    await floor.cache.get(host.url('/'));
    floor.clock.t += DAY;
    expect((await floor.cache.get(host.url('/'))).freshUntil).toBe(floor.clock.t + 30_000);
  });

  it('Last-Modified only: If-Modified-Since alone, and its 304 renews', async () => {
    const site = conditionalRobots({ lastModified: LAST_MODIFIED });
    host.route('/robots.txt', site.handler);
    const { cache, clock, fetches } = crawler();
    await cache.get(host.url('/'));
    clock.t += DAY;
    const entry = await cache.get(host.url('/private/x'));
    expect(site.answers.slice(1)).toEqual([
      { ifNoneMatch: undefined, ifModifiedSince: LAST_MODIFIED, status: 304, bytes: 0 },
    ]);
    expect(allowed(entry, host.url('/private/x'))).toBe(false);
    expect(fetches()).toEqual(['ok', 'not-modified']);
  });

  it('a weak ETag only: If-None-Match W/"..." alone, and its 304 renews', async () => {
    const site = conditionalRobots({ etag: 'W/"abc"' });
    host.route('/robots.txt', site.handler);
    const { cache, clock, fetches } = crawler();
    await cache.get(host.url('/'));
    clock.t += DAY;
    await cache.get(host.url('/'));
    expect(site.answers.slice(1)).toEqual([
      { ifNoneMatch: 'W/"abc"', ifModifiedSince: undefined, status: 304, bytes: 0 },
    ]);
    expect(fetches()).toEqual(['ok', 'not-modified']);
  });

  it('no validators: every refresh is a plain request, as before', async () => {
    const site = conditionalRobots({});
    host.route('/robots.txt', site.handler);
    const { cache, clock } = crawler();
    await cache.get(host.url('/'));
    clock.t += DAY;
    await cache.get(host.url('/'));
    expect(site.answers.map((answer) => [answer.ifNoneMatch, answer.status])).toEqual([
      [undefined, 200],
      [undefined, 200],
    ]);
  });

  it('a file that changed under an ETag that did not: fetched whole again after 7 days of 304s (issue 43.7)', async () => {
    host.route('/robots.txt', text(RULES, 200, { etag: ETAG }));
    const { cache, clock, fetches } = crawler();
    await cache.get(host.url('/'));
    // The file now allows everything, but its ETag never changed: by HTTP's rules each 304 renews the old copy.
    const site = conditionalRobots({ etag: ETAG, body: 'User-agent: *\nAllow: /\n' });
    host.route('/robots.txt', site.handler);
    const verdicts: boolean[] = [];
    for (let day = 1; day <= 8; day++) {
      clock.t += DAY;
      verdicts.push(allowed(await cache.get(host.url('/private/x')), host.url('/private/x')));
    }
    expect(site.answers.map((answer) => [answer.ifNoneMatch, answer.status])).toEqual([
      ...Array(6).fill([ETAG, 304]),
      [undefined, 200],
      [ETAG, 304],
    ]);
    expect(fetches()).toEqual(['ok', ...Array(6).fill('not-modified'), 'ok', 'not-modified']);
    expect(verdicts).toEqual([...Array(6).fill(false), true, true]);
  });

  it('a 304 to a request without conditions is unreachable (disallow all), never an empty robots.txt', async () => {
    const site = conditionalRobots({ etag: ETAG, always304: true });
    host.route('/robots.txt', site.handler);
    const { cache, fetches } = crawler();
    const entry = await cache.get(host.url('/public'));
    expect(site.answers).toEqual([
      { ifNoneMatch: undefined, ifModifiedSince: undefined, status: 304, bytes: 0 },
    ]);
    expect(entry).toMatchObject({ source: 'unreachable', status: 304, error: 'HTTP 304' });
    expect(allowed(entry, host.url('/public'))).toBe(false);
    expect(fetches()).toEqual(['unreachable']);
  });

  it('a 304 after the copy was evicted from memory (no store): asked without conditions, so unreachable', async () => {
    const site = conditionalRobots({ etag: ETAG });
    host.route('/robots.txt', site.handler);
    const other = await startHost({ ip: '127.0.0.61', routes: { '/robots.txt': text('') } });
    try {
      const { cache, clock } = crawler({ memory: { cacheSize: 1 } });
      await cache.get(host.url('/'));
      await cache.get(other.url('/')); // pushes the first origin out: its copy and validators are gone
      clock.t += DAY;
      host.route('/robots.txt', conditionalRobots({ etag: ETAG, always304: true }).handler);
      const entry = await cache.get(host.url('/public'));
      expect(host.requests('/robots.txt').at(-1)?.headers['if-none-match']).toBeUndefined();
      expect(entry.source).toBe('unreachable');
      expect(allowed(entry, host.url('/public'))).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('a 304 naming another ETag renews nothing: one request without conditions follows', async () => {
    let version = 1;
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      if (req.headers['if-none-match'] !== undefined) {
        // A broken cache in front of the site: "not modified", about some other copy.
        res.writeHead(304, { etag: '"something-else"' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', etag: `"v${version}"` });
      res.end(version === 1 ? RULES : 'User-agent: *\nDisallow: /\n');
    };
    host.route('/robots.txt', handler);
    const { cache, clock, events, fetches } = crawler();
    await cache.get(host.url('/'));
    version = 2;
    clock.t += DAY;
    const entry = await cache.get(host.url('/public'));
    const sent = host.requests('/robots.txt').slice(-2);
    expect(sent.map((request) => request.headers['if-none-match'])).toEqual(['"v1"', undefined]);
    expect(allowed(entry, host.url('/public'))).toBe(false); // the new rules, fetched whole
    expect(fetches()).toEqual(['ok', 'unreachable', 'ok']);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'robots-fetch',
        status: 304,
        error: '304 Not Modified for another copy (ETag "something-else"); fetched again without conditions',
      }),
    );
  });

  it('a 304 that comes with content renews nothing: one request without conditions follows', async () => {
    const site = conditionalRobots({ etag: ETAG });
    host.route('/robots.txt', site.handler);
    // A client that hands a 304 over with bytes (RFC 9110 15.4.5 says it has none): a broken proxy.
    const withBody: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (response.status !== 304) return response;
      return { status: 304, headers: response.headers, body: new Response('User-agent: *\nAllow: /\n').body };
    };
    const { cache, clock, fetches, events } = crawler({}, { fetch: withBody });
    await cache.get(host.url('/'));
    clock.t += DAY;
    const entry = await cache.get(host.url('/private/x'));
    expect(site.answers.map((answer) => [answer.ifNoneMatch, answer.status])).toEqual([
      [undefined, 200],
      [ETAG, 304],
      [undefined, 200],
    ]);
    expect(allowed(entry, host.url('/private/x'))).toBe(false);
    expect(fetches()).toEqual(['ok', 'unreachable', 'ok']);
    expect(events).toContainEqual(
      expect.objectContaining({ error: '304 Not Modified with content; fetched again without conditions' }),
    );
  });

  it('through a redirect: the conditions go to the URL the copy came from, not to the first hop', async () => {
    const before = host.requests('/robots.txt').length;
    const site = conditionalRobots({ etag: ETAG });
    host.route('/robots.txt', { status: 301, headers: { location: '/real/robots.txt' } });
    host.route('/real/robots.txt', site.handler);
    const { cache, clock, fetches } = crawler();
    await cache.get(host.url('/'));
    clock.t += DAY;
    const entry = await cache.get(host.url('/private/x'));
    const firstHops = host.requests('/robots.txt').slice(before);
    expect(firstHops.map((request) => request.headers['if-none-match'])).toEqual([undefined, undefined]);
    expect(site.answers.map((answer) => [answer.ifNoneMatch, answer.status])).toEqual([
      [undefined, 200],
      [ETAG, 304],
    ]);
    expect(allowed(entry, host.url('/private/x'))).toBe(false);
    expect(fetches()).toEqual(['ok', 'not-modified']);

    // The redirect now leads elsewhere: that URL gets no conditions (they belong to the old one).
    const moved = conditionalRobots({ etag: ETAG, body: 'User-agent: *\nDisallow: /\n' });
    host.route('/robots.txt', { status: 301, headers: { location: '/moved/robots.txt' } });
    host.route('/moved/robots.txt', moved.handler);
    clock.t += DAY;
    expect(allowed(await cache.get(host.url('/public')), host.url('/public'))).toBe(false);
    expect(moved.answers.map((answer) => [answer.ifNoneMatch, answer.status])).toEqual([[undefined, 200]]);
  });

  it('a 404 with an ETag is not revalidated (RFC 9110 13.2.1: conditions only apply to a 2xx)', async () => {
    host.route('/robots.txt', text('none here', 404, { etag: ETAG }));
    const { cache, clock } = crawler();
    await cache.get(host.url('/'));
    clock.t += DAY;
    await cache.get(host.url('/'));
    expect(
      host
        .requests('/robots.txt')
        .slice(-2)
        .map((r) => r.headers['if-none-match']),
    ).toEqual([undefined, undefined]);
  });

  it('an outage after a renewal still has the last good copy (stale-if-error and Google timeline)', async () => {
    for (const unreachablePolicy of ['rfc', 'google'] as const) {
      const site = conditionalRobots({ etag: ETAG });
      host.route('/robots.txt', site.handler);
      const { cache, clock } = crawler({ robots: { unreachablePolicy, staleTtlMs: 2 * DAY } });
      await cache.get(host.url('/'));
      clock.t += 1.5 * DAY;
      await cache.get(host.url('/')); // 304: the copy is confirmed now, so its stale-if-error horizon moves
      host.route('/robots.txt', text('down', 503));
      clock.t += DAY;
      await cache.get(host.url('/'));
      if (unreachablePolicy === 'google') clock.t += 13 * HOUR; // past the 12 h disallow-all phase
      const entry = await cache.get(host.url('/public'));
      expect(entry.source, unreachablePolicy).toBe('stale');
      expect(allowed(entry, host.url('/private/x'))).toBe(false);
      expect(allowed(entry, host.url('/public'))).toBe(true);
      expect(site.answers.map((answer) => answer.status)).toEqual([200, 304]);
    }
  });
});

describe('conditional refresh through a shared store', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ ip: '127.0.0.62' });
  });
  afterAll(() => host.close());

  it('another process refreshes conditionally from the stored validators, and writes the renewal back', async () => {
    const site = conditionalRobots({ etag: ETAG, lastModified: LAST_MODIFIED });
    host.route('/robots.txt', site.handler);
    const store = createMemoryStore();
    const clock = { t: start, now: () => clock.t };
    await crawler({ store }, { clock }).cache.get(host.url('/'));
    expect(await store.get(storeKey(host.origin))).toMatchObject({
      good: { revalidation: { url: host.url('/robots.txt'), etag: ETAG, lastModified: LAST_MODIFIED } },
    });
    clock.t += DAY;
    const second = crawler({ store }, { clock });
    const entry = await second.cache.get(host.url('/private/x'));
    expect(allowed(entry, host.url('/private/x'))).toBe(false);
    expect(second.fetches()).toEqual(['not-modified']);
    // A third process finds the renewal in the store: fresh, no request at all.
    const third = crawler({ store }, { clock });
    await third.cache.get(host.url('/'));
    expect(third.fetches()).toEqual([]);
    expect(site.answers.map((answer) => [answer.ifNoneMatch, answer.status])).toEqual([
      [undefined, 200],
      [ETAG, 304],
    ]);
  });

  /** A record written with the copy's revalidation, tampered with, then read by another process. */
  async function readTampered(tamper: (revalidation: Record<string, unknown>) => unknown) {
    const site = conditionalRobots({ etag: ETAG, lastModified: LAST_MODIFIED });
    host.route('/robots.txt', site.handler);
    const store: KeyvLike = createMemoryStore();
    const clock = { t: start, now: () => clock.t };
    await crawler({ store }, { clock }).cache.get(host.url('/'));
    const record = structuredClone(
      (await store.get(storeKey(host.origin))) as { good: Record<string, unknown> },
    );
    const revalidation = tamper(record.good.revalidation as Record<string, unknown>);
    if (revalidation === undefined) delete record.good.revalidation;
    else record.good.revalidation = revalidation;
    await store.set(storeKey(host.origin), record);
    const reader = crawler({ store }, { clock });
    clock.t += DAY;
    await reader.cache.get(host.url('/'));
    const rejected = reader.events.flatMap((event) =>
      event.type === 'store-record-rejected' ? [event.reason] : [],
    );
    return { rejected, sent: site.answers.slice(1).map((answer) => [answer.ifNoneMatch, answer.status]) };
  }

  it('a record from before validators were kept loads, and is refreshed without conditions', async () => {
    expect(await readTampered(() => undefined)).toEqual({ rejected: [], sent: [[undefined, 200]] });
  });

  it.each([
    [
      'an ETag with a line break (header injection)',
      (r: Record<string, unknown>) => ({ ...r, etag: '"a"\r\nX-Evil: 1' }),
    ],
    ['an ETag that is not a string', (r: Record<string, unknown>) => ({ ...r, etag: 42 })],
    ['an empty ETag', (r: Record<string, unknown>) => ({ ...r, etag: '' })],
    [
      'an over-long Last-Modified',
      (r: Record<string, unknown>) => ({ ...r, lastModified: 'x'.repeat(2000) }),
    ],
    ['no validator at all', (r: Record<string, unknown>) => ({ url: r.url })],
    [
      'a source URL that is not http(s)',
      (r: Record<string, unknown>) => ({ ...r, url: 'file:///etc/passwd' }),
    ],
    ['not an object', () => 'etag'],
  ])(
    'a record whose revalidation has %s is rejected (malformed) and refetched whole',
    async (_name, tamper) => {
      expect(await readTampered(tamper)).toEqual({ rejected: ['malformed'], sent: [[undefined, 200]] });
    },
  );
});
