/**
 * The frontier on a fake clock with the memory scheduler: robots.txt comes from an injected fetch (no
 * network), time moves only when a test moves it, and a "send" is what an adapter does when a request
 * goes out (`markSent` on the politeness, `sent` on the frontier).
 */

import { afterEach, describe, expect, it, vi } from 'vitest';
import { internalOptions } from '../../../../test/helpers/options.js';
import type { Decision, DisallowedDecision, FetchLike, Logger, Politeness } from '../../src/index.js';
import { createPoliteness, WaitTooLongError } from '../../src/index.js';
import { ADAPTER_KIT, type AdapterKit, adapterKit } from '../../src/public/adapter.js';
import { createFrontier, type Frontier, type FrontierOptions } from '../../src/public/frontier.js';

interface Page {
  readonly url: string;
  readonly id?: string;
}

const START = 1_000_000;
let now = START;
const instances: Politeness[] = [];
afterEach(async () => {
  vi.useRealTimers();
  now = START;
  await Promise.all(instances.splice(0).map((p) => p.close()));
});

/** robots.txt per host name: a body, or a promise of one (a fetch still under way). */
function robotsFetch(bodies: Record<string, string | Promise<string>>): FetchLike {
  return async (url) => {
    const body = await (bodies[new URL(url).hostname] ?? '');
    const bytes = new TextEncoder().encode(body);
    return {
      status: 200,
      headers: new Headers({ 'content-type': 'text/plain' }),
      body: (async function* () {
        yield bytes;
      })(),
    };
  };
}

function polite(bodies: Record<string, string | Promise<string>>): Politeness {
  const p = createPoliteness(
    internalOptions({
      userAgent: 'FrontierBot/1.0 (+https://example.test)',
      pacing: { minDelayMs: 1000 },
      scheduler: 'memory',
      robots: { fetch: robotsFetch(bodies) },
      clock: { now: () => now, sleep: async () => {} },
      logger: false,
    }),
  );
  instances.push(p);
  return p;
}

function frontierOn(p: Politeness, options: FrontierOptions<Page> = {}): Frontier<Page> {
  return createFrontier<Page>(p, { now: () => now, logger: false, ...options });
}

/**
 * Fetches the hosts' robots.txt and lets time pass: a robots.txt fetch is a request to its host, so
 * the host is due a delay later. The delays are the asked ones plus the safety margin (at most 50 ms).
 */
async function known(p: Politeness, ...hosts: string[]): Promise<void> {
  await Promise.all(hosts.map((host) => p.check(`http://${host}/`)));
  now += 10_000;
}

async function decisionOf(p: Politeness, url: string): Promise<Decision> {
  return adapterKit(p).checkCached(url) ?? p.check(url);
}

/** What an adapter does when the request goes out now. */
async function send(p: Politeness, frontier: Frontier<Page>, page: Page): Promise<void> {
  const decision = await decisionOf(p, page.url);
  await adapterKit(p).markSent(decision, { at: now });
  frontier.sent(decision, now);
}

/** Hands out every page as soon as its host is due, sending each at once; the times (ms from START). */
async function drain(p: Politeness, frontier: Frontier<Page>, first: Array<Page | undefined>) {
  const out: Array<[number, string]> = [];
  const startedAt = now;
  const record = async (page: Page) => {
    out.push([now - startedAt, page.url]);
    await send(p, frontier, page);
  };
  for (const page of first) if (page) await record(page);
  while (frontier.size > 0) {
    const page = await frontier.takeDue();
    if (page) await record(page);
    else if (Number.isFinite(frontier.earliestDue())) now = frontier.earliestDue();
    else throw new Error('nothing parked comes due');
  }
  return out;
}

const page = (url: string, id?: string): Page => (id === undefined ? { url } : { url, id });

describe('createFrontier: order', () => {
  it('hands out a host FIFO, one at a time, each a delay after the previous went out', async () => {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p);
    const first = await frontier.admit(page('http://a.test/1'));
    expect(await frontier.admit(page('http://a.test/2'))).toBeUndefined();
    expect(await frontier.admit(page('http://a.test/3'))).toBeUndefined();
    expect(frontier.hosts()).toEqual([{ host: 'a.test', handedOut: 1, parked: 2, nextDueAt: 0 }]);
    expect(await drain(p, frontier, [first])).toEqual([
      [0, 'http://a.test/1'],
      [1050, 'http://a.test/2'],
      [2100, 'http://a.test/3'],
    ]);
  });

  it('interleaves two hosts by due time', async () => {
    const p = polite({ 'a.test': '', 'b.test': 'User-agent: *\nCrawl-delay: 3\n' });
    await known(p, 'a.test', 'b.test');
    const frontier = frontierOn(p);
    const first: Array<Page | undefined> = [];
    for (const url of [
      'http://b.test/1',
      'http://b.test/2',
      'http://a.test/1',
      'http://a.test/2',
      'http://a.test/3',
    ])
      first.push(await frontier.admit(page(url)));
    expect(await drain(p, frontier, first)).toEqual([
      [0, 'http://b.test/1'],
      [0, 'http://a.test/1'],
      [1050, 'http://a.test/2'],
      [2100, 'http://a.test/3'],
      [3050, 'http://b.test/2'],
    ]);
    const counts = frontier.hosts().map(({ host, handedOut, parked }) => [host, handedOut, parked]);
    expect(counts.sort()).toEqual([
      ['a.test', 3, 0],
      ['b.test', 2, 0],
    ]);
  });

  it('keeps a held host until its item is sent or finished; finished counts as sent now', async () => {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p);
    const one = await frontier.admit(page('http://a.test/1', 'r1'));
    await frontier.admit(page('http://a.test/2', 'r2'));
    expect(one?.url).toBe('http://a.test/1');
    expect(frontier.held).toBe(1);
    now += 5000; // however long it takes: nothing of the host goes while the first has not gone out
    expect(frontier.hasReady()).toBe(false);
    expect(await frontier.takeDue()).toBeUndefined();
    frontier.finished({ url: 'http://a.test/1', id: 'r1' }); // another copy, the same id
    expect(frontier.held).toBe(0);
    await frontier.settled();
    expect(await frontier.takeDue()).toBeUndefined();
    now += 1049;
    expect(await frontier.takeDue()).toBeUndefined();
    now += 1;
    expect((await frontier.takeDue())?.url).toBe('http://a.test/2');
  });

  it('parks an item whose host is not due, at the front again when the schedule moved on', async () => {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const decision = await decisionOf(p, 'http://a.test/');
    const base = now;
    const frontier = frontierOn(p);
    await adapterKit(p).tryReserve(decision); // another worker (or process) took the host's slot
    expect(await frontier.admit(page('http://a.test/1'))).toBeUndefined();
    expect(await frontier.admit(page('http://a.test/2'))).toBeUndefined();
    expect(frontier.hosts()).toEqual([{ host: 'a.test', handedOut: 0, parked: 2, nextDueAt: base + 1050 }]);
    expect(frontier.earliestDue()).toBe(base + 1050);
    now += 1050;
    await adapterKit(p).tryReserve(decision); // and again, before this frontier asked
    expect(await frontier.takeDue()).toBeUndefined();
    expect(frontier.hosts()).toEqual([{ host: 'a.test', handedOut: 0, parked: 2, nextDueAt: base + 2100 }]);
    now += 1050;
    expect((await frontier.takeDue())?.url).toBe('http://a.test/1');
    expect(frontier.hosts()).toEqual([{ host: 'a.test', handedOut: 1, parked: 1, nextDueAt: base + 2100 }]);
  });
});

describe('createFrontier: a retry first', () => {
  it("admit with `first` parks the item ahead of its host's parked items, as a RequestList serves a retry", async () => {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p);
    const one = await frontier.admit(page('http://a.test/1', 'r1'));
    await frontier.admit(page('http://a.test/2', 'r2'));
    await frontier.admit(page('http://a.test/3', 'r3'));
    expect(one?.url).toBe('http://a.test/1');
    // The first failed: the caller gives it back and admits it again, first.
    frontier.finished(page('http://a.test/1', 'r1'));
    expect(await frontier.admit(page('http://a.test/1', 'r1'), { first: true })).toBeUndefined();
    expect(await drain(p, frontier, [])).toEqual([
      [1050, 'http://a.test/1'],
      [2100, 'http://a.test/2'],
      [3150, 'http://a.test/3'],
    ]);
  });
});

describe('createFrontier: takeBack', () => {
  it('takes the parked items it is asked for, lane by lane in order, never one handed out', async () => {
    const p = polite({ 'a.test': '', 'b.test': '' });
    await known(p, 'a.test', 'b.test');
    const frontier = frontierOn(p);
    const out = await frontier.admit(page('http://a.test/1', 'a1'));
    for (const url of ['http://a.test/2', 'http://b.test/1', 'http://a.test/3', 'http://b.test/2'])
      await frontier.admit(page(url, url));
    expect(out?.url).toBe('http://a.test/1');
    expect(frontier.size).toBe(3); // b.test/1 went out too
    const taken = frontier.takeBack((item) => item.url !== 'http://b.test/2');
    expect(taken.map((item) => item.url)).toEqual(['http://a.test/2', 'http://a.test/3']);
    expect(frontier.isParked('http://a.test/2')).toBe(false);
    expect(frontier.takeBack().map((item) => item.url)).toEqual(['http://b.test/2']);
    expect(frontier.takeBack()).toEqual([]);
    expect(frontier.size).toBe(0);
    expect(frontier.held).toBe(2); // what was handed out stays the caller's, holding its host
    now += 60_000;
    expect(await frontier.takeDue()).toBeUndefined();
  });

  it('an item taken back while its robots.txt is fetched is neither skipped nor handed out when the check ends; admitted again, it is checked again', async () => {
    let answer: (body: string) => void = () => {};
    const p = polite({ 'a.test': new Promise<string>((resolve) => (answer = resolve)) });
    const skipped: string[] = [];
    const failed: string[] = [];
    const frontier = frontierOn(p, {
      onSkip: (item) => skipped.push(item.url),
      onCheckFailed: (item) => failed.push(item.url),
    });
    const open = page('http://a.test/open');
    const closed = page('http://a.test/private');
    await frontier.admit(open);
    await frontier.admit(closed);
    expect(frontier.takeBack()).toEqual([open, closed]);
    answer('User-agent: *\nDisallow: /private\n');
    await frontier.settled();
    expect({ skipped, failed, size: frontier.size, idle: frontier.idle }).toEqual({
      skipped: [],
      failed: [],
      size: 0,
      idle: true,
    });
    now += 10_000; // the robots.txt fetch was the host's request
    expect(await frontier.admit(closed)).toBeUndefined();
    expect(skipped).toEqual(['http://a.test/private']);
    expect(await frontier.admit(open)).toBe(open);
  });

  it('an item taken back while check() rejects is not given back a second time (onCheckFailed)', async () => {
    let reject: (error: Error) => void = () => {};
    const p = polite({});
    const broken = delegate(p, { check: () => new Promise((_, fail) => (reject = fail)) });
    const failed: string[] = [];
    const frontier = frontierOn(broken, { onCheckFailed: (item) => failed.push(item.url) });
    await frontier.admit(page('http://a.test/x'));
    expect(frontier.takeBack().map((item) => item.url)).toEqual(['http://a.test/x']);
    reject(new Error('bug'));
    await frontier.settled();
    expect(failed).toEqual([]);
  });

  it('wakes a waitForWork that counted on a taken item', async () => {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p);
    const one = page('http://a.test/1', 'r1');
    expect(await frontier.admit(one)).toBe(one);
    frontier.finished(one);
    expect(await frontier.admit(page('http://a.test/2', 'r2'))).toBeUndefined(); // due 1050 ms on
    await frontier.settled();
    expect(frontier.held).toBe(0);
    // No timer fires: only a wake ends the nap until the parked host is due.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const waiting = frontier.waitForWork({ maxMs: 60_000 });
    frontier.takeBack();
    expect(await waiting).toBe(false);
  });
});

describe('createFrontier: next', () => {
  /** A queue the frontier pulls from; `pulled` lists what it served. */
  function queueOf(...urls: Array<string | Page>) {
    const items = urls.map((url) => (typeof url === 'string' ? page(url) : url));
    const pulled: string[] = [];
    const pull = () => {
      const item = items.shift();
      if (item) pulled.push(item.url);
      return item;
    };
    return { items, pulled, pull };
  }

  it('pulls until an item may go, parking the others, and serves due parked items before pulling', async () => {
    const p = polite({ 'a.test': '', 'b.test': '' });
    await known(p, 'a.test', 'b.test');
    const frontier = frontierOn(p);
    const queue = queueOf('http://a.test/1', 'http://a.test/2', 'http://a.test/3', 'http://b.test/1');

    const first = await frontier.next(queue.pull);
    expect(first?.url).toBe('http://a.test/1');
    if (first) await send(p, frontier, first);
    // a.test is not due: its pages are parked and b.test's goes, without a worker waiting.
    const second = await frontier.next(queue.pull);
    expect(second?.url).toBe('http://b.test/1');
    expect(queue.pulled).toEqual([
      'http://a.test/1',
      'http://a.test/2',
      'http://a.test/3',
      'http://b.test/1',
    ]);
    expect(frontier.size).toBe(2);
    expect(await frontier.next(queue.pull)).toBeUndefined();

    now += 1050;
    queue.items.push(page('http://b.test/2'));
    expect((await frontier.next(queue.pull))?.url).toBe('http://a.test/2');
    expect(queue.pulled).not.toContain('http://b.test/2');
  });

  it('pulls at most `limit` items a call, and passes over an item whose id is parked', async () => {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p);
    const queue = queueOf(page('http://a.test/1', 'r1'));
    const first = await frontier.next(queue.pull);
    expect(first?.id).toBe('r1');
    // The queue serves r2 twice (its lock lapsed): the second copy is not parked again.
    const [r2, r3, r4] = [2, 3, 4].map((n) => page(`http://a.test/${n}`, `r${n}`)) as [Page, Page, Page];
    queue.items.push(r2, { ...r2 }, r3, r4);
    expect(await frontier.next(queue.pull, { limit: 3 })).toBeUndefined();
    expect(queue.pulled).toEqual([
      'http://a.test/1',
      'http://a.test/2',
      'http://a.test/2',
      'http://a.test/3',
    ]);
    expect([...frontier.parked()].map(({ item }) => item)).toEqual([r2, r3]);
    expect(queue.items).toEqual([r4]);
  });

  it('stops pulling while it holds maxParked items', async () => {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p, { maxParked: 2 });
    const queue = queueOf('http://a.test/1', 'http://a.test/2', 'http://a.test/3', 'http://a.test/4');
    const first = await frontier.next(queue.pull);
    expect(first?.url).toBe('http://a.test/1');
    expect(await frontier.next(queue.pull)).toBeUndefined();
    expect(frontier.size).toBe(2);
    expect(frontier.full).toBe(true);
    expect(queue.items.map((item) => item.url)).toEqual(['http://a.test/4']);
  });

  it('rejects a bad limit with a TypeError naming it', async () => {
    const frontier = frontierOn(polite({}));
    await expect(frontier.next(() => undefined, { limit: 0 })).rejects.toThrow(/`limit`/);
    await expect(frontier.next(() => undefined, { limit: 1.5 })).rejects.toThrow(TypeError);
    expect(() => createFrontier(polite({}), { maxParked: 0 })).toThrow(/`maxParked`/);
    expect(() => createFrontier(polite({}), { maxRobotsFetches: 2.5 })).toThrow(/`maxRobotsFetches`/);
  });
});

describe('createFrontier: robots.txt', () => {
  it('skips a disallowed item with onSkip and never hands it out', async () => {
    const p = polite({ 'a.test': 'User-agent: *\nDisallow: /private\n' });
    await known(p, 'a.test');
    const skipped: Array<[string, DisallowedDecision]> = [];
    const frontier = frontierOn(p, { onSkip: (item, decision) => skipped.push([item.url, decision]) });
    expect(await frontier.admit(page('http://a.test/private/x'))).toBeUndefined();
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.[0]).toBe('http://a.test/private/x');
    expect(skipped[0]?.[1]).toMatchObject({ allowed: false, reason: 'disallowed' });
    expect(frontier.size).toBe(0);
    expect(frontier.hasReady()).toBe(false);
    expect(await frontier.takeDue()).toBeUndefined();
  });

  it('an onSkip that throws is logged; admit still answers', async () => {
    const p = polite({ 'a.test': 'User-agent: *\nDisallow: /private\n' });
    await known(p, 'a.test');
    const warnings: string[] = [];
    const frontier = frontierOn(p, {
      logger: { warn: (message) => warnings.push(message) },
      onSkip: () => {
        throw new Error('callback broke');
      },
    });
    expect(await frontier.admit(page('http://a.test/private/x'))).toBeUndefined();
    expect(warnings).toEqual(['onSkip failed']);
    expect(frontier.size).toBe(0);
  });

  it('parks items while their robots.txt is fetched, then hands out the allowed and skips the rest', async () => {
    let answer: (body: string) => void = () => {};
    const p = polite({ 'a.test': new Promise<string>((resolve) => (answer = resolve)) });
    const skipped: string[] = [];
    const frontier = frontierOn(p, { onSkip: (item) => skipped.push(item.url) });
    expect(await frontier.admit(page('http://a.test/open'))).toBeUndefined();
    expect(await frontier.admit(page('http://a.test/private'))).toBeUndefined();
    expect(frontier.size).toBe(2);
    expect(frontier.hosts()).toEqual([{ host: 'a.test', handedOut: 0, parked: 2, nextDueAt: 0 }]);
    expect(frontier.hasReady()).toBe(false);
    expect(frontier.earliestDue()).toBe(Number.POSITIVE_INFINITY);
    const woke = frontier.nap(60_000);
    answer('User-agent: *\nDisallow: /private\n');
    await woke;
    await frontier.settled();
    expect(skipped).toEqual(['http://a.test/private']);
    expect(frontier.size).toBe(1);
    now += 1050; // the robots.txt fetch was the host's request
    expect((await frontier.takeDue())?.url).toBe('http://a.test/open');
    expect(frontier.idle).toBe(false); // held until sent or finished
  });

  it('gives an item back with onCheckFailed when check() rejects', async () => {
    const p = polite({});
    const broken = delegate(p, { check: () => Promise.reject(new Error('bug')) });
    const failed: string[] = [];
    const frontier = frontierOn(broken, {
      onCheckFailed: (item, error) => failed.push(`${item.url} ${error}`),
    });
    expect(await frontier.admit(page('http://a.test/x'))).toBeUndefined();
    await frontier.settled();
    expect(failed).toEqual(['http://a.test/x Error: bug']);
    expect(frontier.size).toBe(0);
    expect(frontier.idle).toBe(true);
  });

  it("keeps an item parked when robots.txt waits past maxWaitMs for its host's slot, and checks again then", async () => {
    const p = polite({ 'a.test': 'User-agent: *\nAllow: /\n' });
    let refused = 0;
    const failed: string[] = [];
    // The first check finds the host's slot (for its robots.txt) 30 ms past maxWaitMs (issue 43.2).
    const waiting = delegate(p, {
      check: (url) =>
        refused++ === 0 ? Promise.reject(new WaitTooLongError('a.test', 30, 10)) : p.check(url),
    });
    const frontier = frontierOn(waiting, { onCheckFailed: (item) => failed.push(item.url) });
    expect(await frontier.admit(page('http://a.test/x'))).toBeUndefined();
    expect(frontier.size).toBe(1);
    await frontier.settled();
    expect(failed).toEqual([]);
    expect(refused).toBe(2);
    now += 10_000; // the robots.txt fetch took the host's slot
    expect(await frontier.takeDue()).toMatchObject({ url: 'http://a.test/x' });
  });

  it('hands out non-HTTP URLs untouched, holding nothing', async () => {
    const frontier = frontierOn(polite({}));
    const item = page('ftp://a.test/file');
    expect(await frontier.admit(item)).toBe(item);
    expect(frontier.held).toBe(0);
    expect(frontier.idle).toBe(true);
  });
});

describe('createFrontier: screen', () => {
  it('refuses what robots.txt in memory refuses, and prefetches an unknown origin once', async () => {
    const p = polite({ 'a.test': 'User-agent: *\nDisallow: /private\n' });
    await known(p, 'a.test');
    const prefetched: string[] = [];
    const frontier = frontierOn(delegate(p, { prefetch: (url) => void prefetched.push(String(url)) }));

    expect(frontier.screen('http://a.test/private/x')).toMatchObject({
      allowed: false,
      reason: 'disallowed',
    });
    expect(frontier.screen('http://a.test/open')).toBeUndefined();
    expect(prefetched).toEqual([]);
    expect(frontier.screen('http://b.test/1')).toBeUndefined();
    expect(frontier.screen('http://b.test/2')).toBeUndefined();
    expect(frontier.screen('https://b.test/1')).toBeUndefined();
    expect(frontier.screen('mailto:someone@b.test')).toBeUndefined();
    expect(frontier.screen('http://')).toBeUndefined();
    expect(frontier.screen('http://[bad/x')).toBeUndefined();
    expect(prefetched).toEqual(['http://b.test/1', 'https://b.test/1']);
    expect(frontier.size).toBe(0);
  });

  it('remembers at most 10,000 origins, then starts over', async () => {
    const prefetched: string[] = [];
    // No bound on prefetches at once: this stand-in prefetch never brings rules into memory.
    const frontier = frontierOn(
      delegate(polite({}), { prefetch: (url) => void prefetched.push(String(url)) }),
      {
        maxRobotsFetches: Number.POSITIVE_INFINITY,
      },
    );
    for (let n = 0; n < 10_000; n++) frontier.screen(`http://h${n}.test/`);
    frontier.screen('http://h0.test/again');
    expect(prefetched).toHaveLength(10_000);
    frontier.screen('http://h10000.test/');
    frontier.screen('http://h0.test/again');
    expect(prefetched.slice(10_000)).toEqual(['http://h10000.test/', 'http://h0.test/again']);
  });
});

describe('createFrontier: concurrency and failures', () => {
  it('never hands out one item twice to concurrent callers', async () => {
    const p = polite({ 'a.test': '', 'b.test': '' });
    await known(p, 'a.test', 'b.test');
    const frontier = frontierOn(p);
    const [a, b] = await Promise.all([
      frontier.admit(page('http://a.test/1')),
      frontier.admit(page('http://a.test/2')),
    ]);
    expect([a?.url, b?.url].filter(Boolean)).toEqual(['http://a.test/1']);
    await send(p, frontier, page('http://a.test/1'));
    now += 1050;
    const taken = await Promise.all([frontier.takeDue(), frontier.takeDue(), frontier.takeDue()]);
    expect(taken.flatMap((item) => (item ? [item.url] : []))).toEqual(['http://a.test/2']);
  });

  it('warns once when the scheduler fails, and hands out (pacing at send still binds)', async () => {
    const p = polite({ 'a.test': '', 'b.test': '' });
    await known(p, 'a.test', 'b.test');
    const warnings: string[] = [];
    const logger: Logger = { warn: (message) => warnings.push(message) };
    const failing = delegate(p, { nextStart: () => Promise.reject(new Error('redis down')) });
    const frontier = frontierOn(failing, { logger });
    expect((await frontier.admit(page('http://a.test/1')))?.url).toBe('http://a.test/1');
    expect((await frontier.admit(page('http://b.test/1')))?.url).toBe('http://b.test/1');
    expect(warnings).toEqual(['the scheduler failed; requests are paced only when sent']);
  });

  it('naps until the first parked host is due, or a change, or maxMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p);
    const first = await frontier.admit(page('http://a.test/1'));
    await frontier.admit(page('http://a.test/2'));
    if (!first) throw new Error('expected the first item');
    await send(p, frontier, first);

    let napped = false;
    const nap = frontier.nap(60_000).then(() => (napped = true));
    await vi.advanceTimersByTimeAsync(1050);
    expect(napped).toBe(false);
    await vi.advanceTimersByTimeAsync(1); // due at +1050; +1 for a clock read elsewhere
    await nap;

    let woken = false;
    const waking = frontier.nap(60_000).then(() => (woken = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(woken).toBe(false);
    frontier.wake();
    await waking;

    now += 1050;
    const second = await frontier.takeDue();
    expect(second?.url).toBe('http://a.test/2');
    let capped = false;
    const cappedNap = frontier.nap(500).then(() => (capped = true));
    await vi.advanceTimersByTimeAsync(499);
    expect(capped).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await cappedNap;
  });

  it('track: a caller task keeps the frontier busy until it ends; its failure is logged', async () => {
    const p = polite({});
    const warnings: string[] = [];
    const logger: Logger = { warn: (message, data) => warnings.push(`${message} ${data?.error}`) };
    const frontier = frontierOn(p, { logger });
    let fail: (error: Error) => void = () => {};
    frontier.track(new Promise((_, reject) => (fail = reject)));
    expect(frontier.idle).toBe(false);
    fail(new Error('report lost'));
    await frontier.settled();
    expect(frontier.idle).toBe(true);
    expect(warnings).toEqual(['background task failed Error: report lost']);
  });

  it('rejects bad options with a TypeError naming the key', () => {
    const p = polite({});
    expect(() => createFrontier(p, { now: 5 } as never)).toThrow(/`now`/);
    expect(() => createFrontier(p, { onSkipp: () => {} } as never)).toThrow(
      /Unknown frontier option `onSkipp`/,
    );
    expect(() => createFrontier({} as never)).toThrow(TypeError);
  });
});

describe('createFrontier: waitForWork', () => {
  /** A held host a.test (item /1 out, not sent) and, when asked, a parked /2 behind it. */
  async function heldHost(parkSecond: boolean) {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p);
    const first = await frontier.admit(page('http://a.test/1'));
    if (!first) throw new Error('expected the first item');
    if (parkSecond) await frontier.admit(page('http://a.test/2'));
    return { p, frontier, first };
  }

  /** The answer once settled, or 'pending'. */
  function watch(answer: Promise<boolean>) {
    let result: boolean | 'pending' = 'pending';
    void answer.then((value) => (result = value));
    return () => result;
  }

  it('answers at once: true for a due parked host or a queue with items, false when nothing can come', async () => {
    const p = polite({ 'a.test': '' });
    await known(p, 'a.test');
    const frontier = frontierOn(p, { maxParked: 1 });
    expect(await frontier.waitForWork()).toBe(false);
    expect(await frontier.waitForWork({ sourceEmpty: () => true })).toBe(false);
    expect(await frontier.waitForWork({ sourceEmpty: async () => false })).toBe(true);
    const first = await frontier.admit(page('http://a.test/1'));
    await frontier.admit(page('http://a.test/2'));
    if (!first) throw new Error('expected the first item');
    frontier.finished(first); // counts as sent now: /2 is due in 1050 ms
    expect(frontier.full).toBe(true);
    // Full: the queue is not asked (next would pull nothing), and /2 is due after the budget.
    let asked = 0;
    const sourceEmpty = () => {
      asked++;
      return false;
    };
    expect(await frontier.waitForWork({ maxMs: 1000, sourceEmpty })).toBe(false);
    expect(asked).toBe(0);
    now += 1050;
    expect(await frontier.waitForWork({ maxMs: 0 })).toBe(true);
  });

  it('naps until a parked host comes due within maxMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { p, frontier, first } = await heldHost(true);
    await send(p, frontier, first); // /2 due at +1050
    const answer = watch(frontier.waitForWork({ maxMs: 5000 }));
    await vi.advanceTimersByTimeAsync(1050);
    expect(answer()).toBe('pending');
    now += 1051;
    await vi.advanceTimersByTimeAsync(1);
    expect(answer()).toBe(true);
  });

  it('waits while a host is held, wakes on new items, and answers false when the host frees with nothing due', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { frontier, first } = await heldHost(false);
    const todo: Page[] = [];
    const sourceEmpty = () => todo.length === 0;
    const woken = watch(frontier.waitForWork({ sourceEmpty }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(woken()).toBe('pending');
    todo.push(page('http://b.test/1'));
    frontier.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken()).toBe(true);

    todo.length = 0;
    const freed = watch(frontier.waitForWork({ sourceEmpty }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(freed()).toBe('pending');
    frontier.finished(first);
    await vi.advanceTimersByTimeAsync(0);
    expect(freed()).toBe(false);
  });

  it('gives up after maxMs while a host is held', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { frontier } = await heldHost(false);
    const answer = watch(frontier.waitForWork({ maxMs: 500 }));
    await vi.advanceTimersByTimeAsync(499);
    expect(answer()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(answer()).toBe(false);
  });

  it('waits for a robots.txt check under way, then answers what it left', async () => {
    let answerRobots: (body: string) => void = () => {};
    const p = polite({ 'a.test': new Promise<string>((resolve) => (answerRobots = resolve)) });
    const frontier = frontierOn(p);
    await frontier.admit(page('http://a.test/private'));
    const answer = watch(frontier.waitForWork({ maxMs: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answer()).toBe('pending');
    answerRobots('User-agent: *\nDisallow: /private\n');
    await frontier.settled();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answer()).toBe(false);
    expect(frontier.idle).toBe(true);
  });

  it('rejects bad options with a TypeError naming the key', async () => {
    const frontier = frontierOn(polite({}));
    await expect(frontier.waitForWork({ maxMs: -1 })).rejects.toThrow(/`maxMs`/);
    await expect(frontier.waitForWork({ maxMs: Number.NaN })).rejects.toThrow(/`maxMs`/);
    await expect(frontier.waitForWork({ sourceEmpty: true } as never)).rejects.toThrow(/`sourceEmpty`/);
    await expect(frontier.waitForWork(null as never)).rejects.toThrow(TypeError);
  });
});

/**
 * The politeness with some methods replaced (a broken scheduler, a check with a bug): its own, or
 * its adapter kit's.
 */
function delegate(p: Politeness, overrides: Partial<Politeness> & Partial<AdapterKit>): Politeness {
  const kit = adapterKit(p);
  const kitOverrides = Object.fromEntries(Object.entries(overrides).filter(([key]) => key in kit));
  return new Proxy(p, {
    get(target, key) {
      if (key === ADAPTER_KIT) return { ...kit, ...kitOverrides };
      if (key in overrides) return overrides[key as keyof Politeness];
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
