/**
 * `unreachablePolicy: 'google'`: Google's timeline for a robots.txt that stays unreachable, on a fake
 * clock over real loopback servers that answer 503 or drop the connection, then recover. What was
 * asked of the site is read from its request log; what a crawler may do, from the entries and events.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { mergeOptions } from '../../../../test/helpers/options.js';
import { createMemoryStore } from '../../src/cache/memory-store.js';
import { createRobotsCache } from '../../src/cache/robots-cache.js';
import { storeKey } from '../../src/cache/stored-record.js';
import type { RobotsEntry } from '../../src/cache/types.js';
import {
  DISALLOW_ALL_FOR_MS,
  LAST_GOOD_COPY_UNTIL_MS,
  phaseAt,
  phaseEndsAt,
  phaseFits,
} from '../../src/cache/unreachable-timeline.js';
import { type PolitenessOptions, resolveOptions } from '../../src/facade/options.js';
import type { PolitelyEvent } from '../../src/facade/types.js';

const TOKEN = 'TimelineBot';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RULES = 'User-agent: *\nDisallow: /private/\n';
const START = Date.parse('2026-03-01T00:00:00Z');

/** A connection closed before any answer: a network error. */
const drop = () => (req: { socket: { destroy(): void } }, _res: ServerResponse) => req.socket.destroy();

/** Allowed, as the facade decides it from an entry with `onUnreachable: 'disallow'` (the default). */
function allowed(entry: RobotsEntry, url: string): boolean {
  if (entry.source === 'unavailable') return true;
  if (!entry.robots) return false;
  return entry.robots.isAllowed(url, TOKEN);
}

function setup(host: TestHost, overrides: Omit<PolitenessOptions, 'userAgent'> = {}) {
  const clock = { t: START, now: () => clock.t };
  const events: PolitelyEvent[] = [];
  const cache = createRobotsCache(
    resolveOptions(
      mergeOptions(
        {
          userAgent: `${TOKEN}/1.0`,
          robots: { timeoutMs: 2000, unreachablePolicy: 'google' },
        },
        overrides,
      ),
    ),
    { clock, emit: (event) => events.push(event) },
  );
  const phases = () => events.filter((e) => e.type === 'unreachable-phase');
  return { cache, clock, events, phases, url: (path: string) => new URL(host.url(path)) };
}

describe('Google unreachable timeline: phases (pure)', () => {
  it('12 h disallow all, then the last good copy up to 30 days, then the home page decides', () => {
    expect(phaseAt(0, 0, true)).toBe('disallow-all');
    expect(phaseAt(0, DISALLOW_ALL_FOR_MS - 1, true)).toBe('disallow-all');
    expect(phaseAt(0, 12 * HOUR, false)).toBe('last-good-copy');
    expect(phaseAt(0, 30 * DAY - 1, false)).toBe('last-good-copy');
    expect(phaseAt(0, LAST_GOOD_COPY_UNTIL_MS, true)).toBe('allow-all');
    expect(phaseAt(0, 400 * DAY, false)).toBe('site-down');
    expect(phaseEndsAt(0, HOUR)).toBe(12 * HOUR);
    expect(phaseEndsAt(0, 13 * HOUR)).toBe(30 * DAY);
    expect(phaseEndsAt(0, 31 * DAY)).toBeUndefined();
    expect(phaseFits('last-good-copy', 0, HOUR)).toBe(false);
    expect(phaseFits('site-down', 0, 31 * DAY)).toBe(true);
    expect(phaseFits('allow-all', 0, 29 * DAY)).toBe(false);
  });
});

describe("robots cache, unreachablePolicy: 'google'", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ ip: '127.0.0.84' });
  });
  afterAll(() => host.close());

  it('walks the whole timeline on 503s, checks the home page once per retry after 30 days, and recovers', async () => {
    host.route('/robots.txt', text(RULES));
    host.route('/', text('home'));
    const { cache, clock, phases, url } = setup(host);
    await cache.get(url('/'));
    const robotsBefore = host.requests('/robots.txt').length;
    clock.t += DAY; // the copy is stale: the next lookup refetches
    host.route('/robots.txt', text('down for maintenance', 503));
    const outageStart = clock.t;

    // First 12 hours: nothing allowed, not even what the good copy allowed; robots.txt retried.
    let entry = await cache.get(url('/public'));
    expect(entry).toMatchObject({
      source: 'unreachable',
      outage: { phase: 'disallow-all', since: outageStart },
    });
    expect(allowed(entry, host.url('/public'))).toBe(false);
    expect(phases()).toEqual([
      { type: 'unreachable-phase', origin: host.origin, phase: 'disallow-all', since: outageStart },
    ]);
    clock.t = entry.freshUntil;
    entry = await cache.get(url('/public'));
    expect(entry.outage).toEqual({ phase: 'disallow-all', since: outageStart });
    expect(phases()).toHaveLength(1); // the phase stays: no new event
    // However long the backoff, the phase ends on time: the entry expires at the 12 h mark.
    for (let i = 0; i < 40 && entry.outage?.phase === 'disallow-all'; i++) {
      expect(entry.freshUntil).toBeLessThanOrEqual(outageStart + 12 * HOUR);
      clock.t = entry.freshUntil;
      entry = await cache.get(url('/public'));
    }
    expect(clock.t).toBe(outageStart + 12 * HOUR);

    // 12 hours to 30 days: the last good copy is in force.
    expect(entry).toMatchObject({ source: 'stale', outage: { phase: 'last-good-copy', since: outageStart } });
    expect(allowed(entry, host.url('/public'))).toBe(true);
    expect(allowed(entry, host.url('/private/x'))).toBe(false);
    expect(phases().at(-1)).toMatchObject({ phase: 'last-good-copy', since: outageStart });

    // 30 days: the home page answers, so the site is crawled as if it had no robots.txt.
    const homeBefore = host.requests('/').length;
    clock.t = outageStart + 30 * DAY;
    entry = await cache.get(url('/private/x'));
    expect(entry).toMatchObject({ source: 'unavailable', outage: { phase: 'allow-all' } });
    expect(allowed(entry, host.url('/private/x'))).toBe(true);
    expect(phases().at(-1)).toEqual({
      type: 'unreachable-phase',
      origin: host.origin,
      phase: 'allow-all',
      since: outageStart,
      siteStatus: 200,
    });
    expect(host.requests('/').length - homeBefore).toBe(1);

    // The home page fails too: the site is down, nothing is allowed; one home page request per retry.
    host.route('/', text('oops', 502));
    clock.t = entry.freshUntil;
    entry = await cache.get(url('/public'));
    expect(entry).toMatchObject({ source: 'unreachable', outage: { phase: 'site-down' } });
    expect(allowed(entry, host.url('/public'))).toBe(false);
    expect(phases().at(-1)).toMatchObject({ phase: 'site-down', since: outageStart, siteStatus: 502 });
    expect(host.requests('/').length - homeBefore).toBe(2);

    // robots.txt answers again: the outage ends, and the event says how long ago it began.
    host.route('/robots.txt', text('User-agent: *\nDisallow: /new/\n'));
    clock.t = entry.freshUntil;
    entry = await cache.get(url('/'));
    expect(entry.source).toBe('robots.txt');
    expect(entry.outage).toBeUndefined();
    expect(allowed(entry, host.url('/new/x'))).toBe(false);
    expect(phases().at(-1)).toEqual({
      type: 'unreachable-phase',
      origin: host.origin,
      phase: 'recovered',
      since: outageStart,
    });
    expect(phases().map((e) => e.phase)).toEqual([
      'disallow-all',
      'last-good-copy',
      'allow-all',
      'site-down',
      'recovered',
    ]);
    // The home page was never asked for before the 30 days were up.
    expect(host.requests('/').length - homeBefore).toBe(2);
    expect(host.requests('/robots.txt').length - robotsBefore).toBeGreaterThan(4);
  });

  it('dropped connections count as unreachable; after 30 days a dead home page keeps everything disallowed', async () => {
    host.route('/robots.txt', drop());
    host.route('/', drop());
    const { cache, clock, phases, url } = setup(host);
    const outageStart = clock.t;
    let entry = await cache.get(url('/a'));
    expect(entry).toMatchObject({ status: 0, outage: { phase: 'disallow-all', since: outageStart } });
    // No good copy: from 12 h on the entry says unreachable, and onUnreachable decides (the facade).
    clock.t = outageStart + 12 * HOUR;
    entry = await cache.get(url('/a'));
    expect(entry).toMatchObject({ source: 'unreachable', outage: { phase: 'last-good-copy' } });
    expect(entry.robots).toBeUndefined();
    clock.t = outageStart + 30 * DAY;
    entry = await cache.get(url('/a'));
    expect(entry).toMatchObject({ source: 'unreachable', outage: { phase: 'site-down', siteStatus: 0 } });
    expect(host.requests('/').length).toBeGreaterThanOrEqual(1);
    host.route('/robots.txt', text('', 404));
    clock.t = entry.freshUntil;
    entry = await cache.get(url('/a'));
    expect(entry.source).toBe('unavailable');
    expect(phases().map((e) => e.phase)).toEqual([
      'disallow-all',
      'last-good-copy',
      'site-down',
      'recovered',
    ]);
  });

  it('the outage start survives a restart: another process on the same store goes on with the timeline', async () => {
    host.route('/robots.txt', text(RULES));
    const store = createMemoryStore();
    const first = setup(host, { store });
    await first.cache.get(first.url('/'));
    host.route('/robots.txt', text('busy', 503));
    first.clock.t += DAY;
    const outageStart = first.clock.t;
    expect((await first.cache.get(first.url('/'))).outage?.phase).toBe('disallow-all');

    // A new process (restart, or another member of the fleet) 13 hours into the outage.
    const second = setup(host, { store });
    second.clock.t = outageStart + 13 * HOUR;
    const entry = await second.cache.get(second.url('/public'));
    expect(entry).toMatchObject({ source: 'stale', outage: { phase: 'last-good-copy', since: outageStart } });
    expect(allowed(entry, host.url('/public'))).toBe(true);
    expect(second.phases()).toEqual([
      { type: 'unreachable-phase', origin: host.origin, phase: 'last-good-copy', since: outageStart },
    ]);
    // What the store holds is read back as the same outage (no refetch while it is fresh).
    const third = setup(host, { store });
    third.clock.t = second.clock.t;
    const before = host.requests('/robots.txt').length;
    expect((await third.cache.get(third.url('/'))).outage).toEqual(entry.outage);
    expect(host.requests('/robots.txt').length).toBe(before);
  });

  it('a stored outage whose phase does not fit its length is not trusted', async () => {
    host.route('/robots.txt', text('busy', 503));
    const store = createMemoryStore();
    const { cache, clock, events, url } = setup(host, { store });
    await cache.get(url('/'));
    const key = storeKey(host.origin);
    const record = (await store.get(key)) as Record<string, unknown>;
    // Someone writes "30 days down, home page fine" over a fresh outage: allow-all would follow.
    await store.set(key, { ...record, outage: { since: clock.t, phase: 'allow-all', siteStatus: 200 } });
    const reader = setup(host, { store });
    reader.clock.t = clock.t;
    const entry = await reader.cache.get(url('/'));
    expect(entry.outage?.phase).toBe('disallow-all');
    expect(reader.events).toContainEqual({
      type: 'store-record-rejected',
      origin: host.origin,
      reason: 'malformed',
    });
    expect(events.filter((e) => e.type === 'store-record-rejected')).toHaveLength(0);
  });

  it("'rfc' (the default) is unchanged: the good copy stands in at once, no phases, no home page check", async () => {
    host.route('/robots.txt', text(RULES));
    const { cache, clock, phases, url } = setup(host, { robots: { unreachablePolicy: 'rfc' } });
    await cache.get(url('/'));
    host.route('/robots.txt', text('busy', 503));
    const homeBefore = host.requests('/').length;
    clock.t += DAY;
    const entry = await cache.get(url('/public'));
    expect(entry.source).toBe('stale');
    expect(entry.outage).toBeUndefined();
    clock.t += 40 * DAY;
    expect((await cache.get(url('/public'))).source).toBe('unreachable');
    expect(phases()).toEqual([]);
    expect(host.requests('/').length).toBe(homeBefore);
  });
});
