/**
 * The fault server: every way a robots.txt fetch can go, each on its own origin, checked end to end
 * through the cache and the engine: the verdict a crawler gets, and what the server saw.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  endless,
  hang,
  html,
  type Route,
  redirect,
  startHost,
  type TestHost,
  text,
} from '../../../../test/helpers/hosts.js';
import { createRobotsCache } from '../../src/cache/robots-cache.js';
import type { RobotsEntry } from '../../src/cache/types.js';
import { resolveOptions } from '../../src/facade/options.js';
import type { PolitelyEvent } from '../../src/facade/types.js';

const TOKEN = 'PoliteBot';
const IP = '127.0.0.33';
const OTHER_IP = '127.0.0.34';

function allowed(entry: RobotsEntry, url: string): boolean {
  if (entry.source === 'unavailable') return true;
  return entry.robots?.isAllowed(url, TOKEN) ?? false;
}

/** Streams 10 MB of rules; the first line disallows /big/. Counts what the socket accepted. */
const tenMegabytes = (sent: { bytes: number }) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  const chunk = Buffer.from(`${'# padding line of a very large robots.txt file\n'.repeat(1365)}`);
  res.write('User-agent: *\nDisallow: /big/\n');
  const pump = () => {
    while (sent.bytes < 10 * 1024 * 1024 && !res.destroyed) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end('Disallow: /after-ten-megabytes/\n');
  };
  pump();
};

const utf16le = (text: string) => {
  const bom = Buffer.from([0xff, 0xfe]);
  return Buffer.concat([bom, Buffer.from(text, 'utf16le')]);
};

interface Scenario {
  readonly name: string;
  /** Routes of this origin; `/robots.txt` is where the cache looks. */
  readonly routes: (other: TestHost) => Record<string, Route>;
  readonly source: RobotsEntry['source'];
  /** Paths and whether they may be crawled. */
  readonly verdicts: Record<string, boolean>;
  readonly status?: number;
  /** The server never finishes: the fetch's own time limit decides, so this origin is read with a short one. */
  readonly timesOut?: boolean;
}

const chain = (hops: number): Record<string, Route> => {
  const routes: Record<string, Route> = {};
  let path = '/robots.txt';
  for (let k = 1; k <= hops; k++) {
    routes[path] = redirect(`/hop-${k}.txt`, k % 2 ? 301 : 302);
    path = `/hop-${k}.txt`;
  }
  routes[path] = text(`User-agent: *\nDisallow: /after-${hops}-hops/\n`);
  return routes;
};

const RULES = 'User-agent: *\nDisallow: /private/\n';
const SCENARIOS: Scenario[] = [
  {
    name: '200 (2.3.1.1)',
    routes: () => ({ '/robots.txt': text(RULES) }),
    source: 'robots.txt',
    status: 200,
    verdicts: { '/private/x': false, '/public': true, '/robots.txt': true },
  },
  ...[1, 2, 3, 4, 5].map(
    (hops): Scenario => ({
      name: `${hops} redirect hop(s) (2.3.1.2)`,
      routes: () => chain(hops),
      source: 'robots.txt',
      status: 200,
      verdicts: { [`/after-${hops}-hops/x`]: false, '/private/x': true },
    }),
  ),
  {
    name: '6 redirect hops: too many, unavailable (2.3.1.2)',
    routes: () => chain(6),
    source: 'unavailable',
    verdicts: { '/after-6-hops/x': true },
  },
  {
    name: 'redirect loop: unavailable',
    routes: () => ({ '/robots.txt': redirect('/robots.txt', 302) }),
    source: 'unavailable',
    verdicts: { '/anything': true },
  },
  {
    name: 'redirect to another host: its rules apply to this origin',
    routes: (other) => ({ '/robots.txt': redirect(other.url('/robots.txt')) }),
    source: 'robots.txt',
    verdicts: { '/other-host-says-no/x': false, '/private/x': true },
  },
  ...[401, 403, 404, 410].map(
    (status): Scenario => ({
      name: `${status}: unavailable, allow all (2.3.1.3)`,
      routes: () => ({ '/robots.txt': text(RULES, status) }),
      source: 'unavailable',
      status,
      verdicts: { '/private/x': true },
    }),
  ),
  ...[429, 500, 503].map(
    (status): Scenario => ({
      name: `${status}: unreachable, disallow all (2.3.1.4)`,
      routes: () => ({ '/robots.txt': text(RULES, status) }),
      source: 'unreachable',
      status,
      verdicts: { '/public': false },
    }),
  ),
  {
    name: 'hang: timeout, unreachable',
    timesOut: true,
    routes: () => ({ '/robots.txt': hang() }),
    source: 'unreachable',
    status: 0,
    verdicts: { '/public': false },
  },
  {
    name: 'a body that never ends: unreachable',
    timesOut: true,
    routes: () => ({ '/robots.txt': endless() }),
    source: 'unreachable',
    status: 0,
    verdicts: { '/never-ending/x': false, '/public': false },
  },
  {
    name: 'an HTML page served with 200: no rules, allow all',
    source: 'robots.txt',
    status: 200,
    routes: () => ({ '/robots.txt': html('<!DOCTYPE html><html><body><p>Disallow: /</p></body></html>') }),
    verdicts: { '/public': true, '/private/x': true },
  },
  {
    name: 'gzip',
    source: 'robots.txt',
    status: 200,
    verdicts: { '/zipped/x': false, '/public': true },
    routes: () => ({
      '/robots.txt': {
        headers: { 'content-encoding': 'gzip' },
        body: gzipSync('User-agent: *\nDisallow: /zipped/\n'),
      },
    }),
  },
  {
    name: 'ISO-8859-1 from Content-Type: a Latin-1 rule matches its UTF-8 percent-encoded URL',
    source: 'robots.txt',
    routes: () => ({
      '/robots.txt': {
        headers: { 'content-type': 'text/plain; charset=ISO-8859-1' },
        body: Buffer.from('User-agent: *\nDisallow: /caf\xe9/\n', 'latin1'),
      },
    }),
    verdicts: { '/caf%C3%A9/menu': false, '/cafe/menu': true },
  },
  {
    name: 'UTF-16 with a BOM',
    source: 'robots.txt',
    routes: () => ({ '/robots.txt': { body: utf16le('User-agent: *\nDisallow: /utf16/\n') } }),
    verdicts: { '/utf16/x': false, '/public': true },
  },
];

describe('fault server: RFC 9309 verdicts through the cache and the engine', () => {
  const hosts = new Map<string, TestHost>();
  let other: TestHost;
  const tenMb = { bytes: 0 };
  const events: PolitelyEvent[] = [];
  // A busy machine can take longer than a short limit over five redirect hops or 512,000 bytes, and a
  // timeout would turn a verdict into 'unreachable': those origins get a generous limit, and only the
  // ones that never finish meet a short one.
  const cacheWith = (robotsTimeoutMs: number) =>
    createRobotsCache(
      resolveOptions({
        userAgent: `${TOKEN}/2.0 (+https://example.com/bot)`,
        robots: { timeoutMs: robotsTimeoutMs },
      }),
      { clock: { now: () => Date.parse('2026-03-01T00:00:00Z') }, emit: (event) => events.push(event) },
    );
  const cache = cacheWith(20_000);
  const timingOut = cacheWith(400);

  beforeAll(async () => {
    other = await startHost({
      ip: OTHER_IP,
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /other-host-says-no/\n') },
    });
    for (const scenario of SCENARIOS)
      hosts.set(scenario.name, await startHost({ ip: IP, routes: scenario.routes(other) }));
    hosts.set('10 MB', await startHost({ ip: IP, routes: { '/robots.txt': tenMegabytes(tenMb) } }));
  });
  afterAll(async () => {
    await Promise.all([...hosts.values(), other].map((host) => host.close()));
  });

  it.each(SCENARIOS.map((scenario) => [scenario.name, scenario] as const))('%s', async (_name, scenario) => {
    const host = hosts.get(scenario.name) as TestHost;
    const reader = scenario.timesOut ? timingOut : cache;
    const entry = await reader.get(new URL(host.url('/')));
    expect(entry.source).toBe(scenario.source);
    if (scenario.status !== undefined) expect(entry.status).toBe(scenario.status);
    for (const [path, expected] of Object.entries(scenario.verdicts)) {
      if (path === '/robots.txt') continue; // always fetchable (2.2.2): the facade's job, not the rules'
      expect({ path, allowed: allowed(entry, host.url(path)) }).toEqual({ path, allowed: expected });
    }
    // One robots.txt request per origin, carrying our User-Agent; a first transport failure (a
    // timeout) is not kept, so the next look asks once more, and the second is kept a while.
    const first = host.requests('/robots.txt');
    expect(first.length).toBeGreaterThanOrEqual(1);
    expect(first[0]?.headers['user-agent']).toMatch(/^PoliteBot\/2\.0/);
    const again = scenario.timesOut ? first.length + 1 : first.length;
    await reader.get(new URL(host.url('/again')));
    expect(host.requests('/robots.txt')).toHaveLength(again);
    await reader.get(new URL(host.url('/and-again')));
    expect(host.requests('/robots.txt')).toHaveLength(again);
  });

  it('a 10 MB robots.txt: 512,000 bytes are parsed, the rest never sent', async () => {
    const host = hosts.get('10 MB') as TestHost;
    const entry = await cache.get(host.url('/'));
    expect(entry.source).toBe('robots.txt');
    expect(entry.robots?.truncated).toBe(true);
    expect(entry.robots?.byteLength).toBe(512_000);
    expect(allowed(entry, host.url('/big/x'))).toBe(false);
    expect(allowed(entry, host.url('/after-ten-megabytes/x'))).toBe(true);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'robots-fetch', origin: host.origin, bytes: 512_000, truncated: true }),
    );
    await expect.poll(() => tenMb.bytes, { timeout: 2000 }).toBeGreaterThan(0);
    expect(tenMb.bytes).toBeLessThan(5 * 1024 * 1024);
  });

  it('reports each fetch with its outcome, redirects and error', () => {
    const byOrigin = new Map(
      events.map((event) => [event.type === 'robots-fetch' ? event.origin : '', event]),
    );
    const fiveHops = hosts.get('5 redirect hop(s) (2.3.1.2)') as TestHost;
    expect(byOrigin.get(fiveHops.origin)).toMatchObject({ outcome: 'ok', redirects: 5, status: 200 });
    const hung = hosts.get('hang: timeout, unreachable') as TestHost;
    expect(byOrigin.get(hung.origin)).toMatchObject({
      outcome: 'unreachable',
      status: 0,
      error: expect.stringMatching(/timed out/),
    });
    const tooMany = hosts.get('6 redirect hops: too many, unavailable (2.3.1.2)') as TestHost;
    expect(byOrigin.get(tooMany.origin)).toMatchObject({ outcome: 'unavailable', status: 0, redirects: 5 });
  });
});
