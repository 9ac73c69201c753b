/**
 * TDMRep's file through the facade, judged from a loopback server's log: fetched once per origin
 * (single flight in a process, the store across instances), a stored record we would not write
 * refused, and what `stats()` and events say.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Route, startHost, startHosts, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { createMemoryStore } from '../../src/cache/memory-store.js';
import { TDMREP_KEY_PREFIX } from '../../src/cache/tdmrep-cache.js';
import {
  createPoliteness,
  type PolitelyEvent,
  type Politeness,
  type PolitenessOptions,
} from '../../src/index.js';
import { tdmRefusal } from '../../src/kernel/tdm-reservation.js';
import { adapterKit } from '../../src/public/adapter.js';
import { createFakeClock } from '../schedule/fake-clock.js';

const FILE = JSON.stringify([
  { location: '/books/', 'tdm-reservation': 1, 'tdm-policy': 'https://p.test/x' },
]);

const opened: Politeness[] = [];
let site: TestHost | undefined;
const sites: TestHost[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((politeness) => politeness.close()));
  await Promise.all([site?.close(), ...sites.splice(0).map((host) => host.close())]);
  site = undefined;
});

/** A file of `count` rules, rule i reserving /r<i>/ (the i-th from 0). */
function rules(count: number, pad = '') {
  return JSON.stringify(
    Array.from({ length: count }, (_, i) => ({ location: `/r${i}/${pad}`, 'tdm-reservation': 1 })),
  );
}

async function start(file: Route = text(FILE)) {
  site = await startHost({
    ip: '127.0.0.41',
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n'), '/.well-known/tdmrep.json': file },
  });
  return site;
}

function polite(options: Partial<PolitenessOptions> = {}) {
  const events: PolitelyEvent[] = [];
  const politeness = createPoliteness({
    userAgent: 'FooBot/1.0',
    purpose: 'ai-train',
    pacing: { minDelayMs: 0 },
    logger: false,
    onEvent: (event) => void events.push(event),
    ...options,
  });
  opened.push(politeness);
  return { politeness, events };
}

describe('tdmrep.json through the facade', () => {
  it('is fetched once for many checks at once (single flight)', async () => {
    const target = await start();
    const { politeness } = polite();
    const decisions = await Promise.all(
      ['/books/1', '/books/2', '/news/1', '/news/2'].map((path) => politeness.check(target.url(path))),
    );
    expect(decisions.map((decision) => decision.reason)).toEqual([
      'tdm-reserved',
      'tdm-reserved',
      'allowed',
      'allowed',
    ]);
    expect(target.requests('/.well-known/tdmrep.json')).toHaveLength(1);
  });

  it('is fetched once for two instances on one store, the second reading the stored copy', async () => {
    const target = await start();
    const store = createMemoryStore();
    const first = polite({ store }).politeness;
    const second = polite({ store }).politeness;
    expect((await first.check(target.url('/books/1'))).reason).toBe('tdm-reserved');
    expect(await second.check(target.url('/books/2'))).toMatchObject({
      reason: 'tdm-reserved',
      tdm: { policy: 'https://p.test/x', location: '/books/' },
    });
    expect(target.requests('/.well-known/tdmrep.json')).toHaveLength(1);
    expect(target.requests('/robots.txt')).toHaveLength(1);
  });

  it('a stored record we would not write (a rule the parser refuses) is rejected, reported and refetched', async () => {
    const target = await start();
    const store = createMemoryStore();
    const now = Date.now();
    // robots.txt's record layout (stored-record.ts), under tdmrep.json's prefix and path.
    await store.set(`${TDMREP_KEY_PREFIX}${target.origin}`, {
      v: 1,
      origin: target.origin,
      robotsUrl: `${target.origin}/.well-known/tdmrep.json`,
      outcome: 'ok',
      status: 200,
      fetchedAt: now,
      freshUntil: now + 60_000,
      failures: 0,
      parse: 'tdmrep',
      good: {
        robots: { outcome: 'ok', rules: [{ location: '/books/', 'tdm-reservation': 'maybe' }] },
        status: 200,
        fetchedAt: now,
      },
    });
    const { politeness, events } = polite({ store });
    expect((await politeness.check(target.url('/books/1'))).reason).toBe('tdm-reserved');
    expect(events).toContainEqual({ type: 'store-record-rejected', origin: target.origin, reason: 'rules' });
    expect(target.requests('/.well-known/tdmrep.json')).toHaveLength(1);
  });

  it('stats() and events count refusals before the fetch and after the response', async () => {
    const target = await start();
    const { politeness, events } = polite();
    await politeness.check(target.url('/books/1'));
    const allowed = await politeness.check(target.url('/news/1'));
    const refused = tdmRefusal(allowed, { reservation: '1' });
    if (!refused) throw new Error('expected a refusal');
    adapterKit(politeness).reportSkip(refused, 'response');
    const stats = politeness.stats();
    expect(stats.decisions.tdmReserved).toBe(1);
    expect(stats.tdmrep).toEqual({
      fetches: { ok: 1, absent: 0, malformed: 0, unreachable: 0 },
      reservedAfterResponse: 1,
    });
    expect(
      events.filter((event) => event.type === 'tdm-reserved').map((event) => event.decision.tdm?.source),
    ).toEqual(['tdmrep.json', 'header']);
  });

  it('with a purpose that is not TDM, nothing is fetched and the counters stay at zero', async () => {
    const target = await start();
    const { politeness } = polite({ purpose: 'search' });
    expect((await politeness.check(target.url('/books/1'))).reason).toBe('allowed');
    expect(target.requests('/.well-known/tdmrep.json')).toHaveLength(0);
    expect(politeness.stats().tdmrep.fetches).toEqual({ ok: 0, absent: 0, malformed: 0, unreachable: 0 });
  });

  it('one memory.budgetBytes bounds it: a file over its share (1/512) is cut, its first rules deciding, the rest ignored and reported', async () => {
    // 64 KiB: a share of 128 bytes, less than any rule; 8 MiB: 16 KiB, about 100 of these rules.
    const target = await start(text(rules(2_000)));
    for (const [budgetBytes, first, last] of [
      [64 * 1024, 'allowed', 'allowed'],
      [8 * 1024 * 1024, 'tdm-reserved', 'allowed'],
      [256 * 1024 * 1024, 'tdm-reserved', 'tdm-reserved'],
    ] as const) {
      const { politeness, events } = polite({ memory: { budgetBytes } });
      const verdicts = [
        await politeness.check(target.url('/r0/a')),
        await politeness.check(target.url('/r1999/a')),
      ];
      expect(verdicts.map((decision) => decision.reason)).toEqual([first, last]);
      const cut = events.filter((event) => event.type === 'tdmrep-truncated');
      if (last === 'allowed') {
        expect(cut).toEqual([expect.objectContaining({ origin: target.origin, rules: 2_000 })]);
      } else expect(cut).toEqual([]);
    }
    expect(target.requests('/.well-known/tdmrep.json')).toHaveLength(3);
  });

  it('under a budget too small for whole files, a second pass over 20 origins fetches no file again', async () => {
    const hosts = await startHosts(
      20,
      () => ({
        routes: {
          '/robots.txt': text('User-agent: *\nAllow: /\n'),
          '/.well-known/tdmrep.json': text(rules(500, 'x'.repeat(60))),
        },
      }),
      120,
    );
    sites.push(...hosts);
    // 1 MiB: 2 KiB a file, where one of these files compiles to some 150 KB.
    const { politeness } = polite({ memory: { budgetBytes: 1024 * 1024 } });
    for (let pass = 0; pass < 2; pass++) {
      for (const host of hosts) {
        expect((await politeness.check(host.url(`/r0/${'x'.repeat(60)}`))).reason).toBe('tdm-reserved');
      }
    }
    expect(hosts.map((host) => host.requests().length)).toEqual(hosts.map(() => 2));
  });

  it('a file cut at robots.maxBytes keeps the rules before the cut, as robots.txt does', async () => {
    const file = rules(400);
    const target = await start(text(file));
    const { politeness, events } = polite({ robots: { maxBytes: Math.floor(file.length / 2) } });
    expect((await politeness.check(target.url('/r0/a'))).reason).toBe('tdm-reserved');
    expect((await politeness.check(target.url('/r399/a'))).reason).toBe('allowed');
    expect(events.filter((event) => event.type === 'tdmrep-malformed')).toEqual([]);
    expect(events.filter((event) => event.type === 'tdmrep-truncated')).toHaveLength(1);
  });

  it('is refreshed with a conditional request once stale, and a 304 keeps its rules', async () => {
    const clock = createFakeClock(Date.now());
    const target = await start((req, res) => {
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
      res.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' }).end(FILE);
    });
    const { politeness } = polite({ clock } as Partial<PolitenessOptions>);
    expect((await politeness.check(target.url('/books/1'))).reason).toBe('tdm-reserved');
    await clock.advance(25 * 3_600_000);
    expect((await politeness.check(target.url('/books/2'))).reason).toBe('tdm-reserved');
    const asked = target.requests('/.well-known/tdmrep.json');
    expect(asked.map((request) => request.headers['if-none-match'])).toEqual([undefined, '"v1"']);
  });
});
