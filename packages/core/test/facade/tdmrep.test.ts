/**
 * TDMRep's file through the facade, judged from a loopback server's log: fetched once per origin
 * (single flight in a process, the store across instances), a stored record we would not write
 * refused, and what `stats()` and events say.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
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

const FILE = JSON.stringify([
  { location: '/books/', 'tdm-reservation': 1, 'tdm-policy': 'https://p.test/x' },
]);

const opened: Politeness[] = [];
let site: TestHost | undefined;
afterEach(async () => {
  await Promise.all(opened.splice(0).map((politeness) => politeness.close()));
  await site?.close();
  site = undefined;
});

async function start(file = text(FILE)) {
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
    await store.set(`${TDMREP_KEY_PREFIX}${target.origin}`, {
      v: 1,
      origin: target.origin,
      outcome: 'ok',
      status: 200,
      fetchedAt: now,
      freshUntil: now + 60_000,
      rules: [{ location: '/books/', 'tdm-reservation': 'maybe' }],
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
});
