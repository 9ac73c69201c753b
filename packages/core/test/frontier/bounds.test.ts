/**
 * The frontier's bounds at breadth (issue 25), on a fake clock with the memory scheduler: how much of
 * the caller's queue `next` reads ahead, how many robots.txt fetches it starts at once, how long it
 * remembers hosts out of play, and hand-out order over many hosts (the due-time heap).
 */

import { afterEach, describe, expect, it } from 'vitest';
import { internalOptions } from '../../../../test/helpers/options.js';
import type { AllowedDecision, FetchLike, Politeness } from '../../src/index.js';
import { createPoliteness } from '../../src/index.js';
import { ADAPTER_KIT, type AdapterKit, adapterKit } from '../../src/public/adapter.js';
import { createFrontier, type Frontier, type FrontierOptions } from '../../src/public/frontier.js';

interface Page {
  readonly url: string;
}

const START = 1_000_000;
let now = START;
const instances: Politeness[] = [];
afterEach(async () => {
  now = START;
  await Promise.all(instances.splice(0).map((p) => p.close()));
});

/**
 * robots.txt fetches that wait until `answer(host, body)` (or answer at once with `instant`); `hosts`
 * lists the hosts fetched, in order.
 */
function robotsServer(instant?: Record<string, string>) {
  const hosts: string[] = [];
  const waiting = new Map<string, (body: string) => void>();
  const fetch: FetchLike = async (url) => {
    const host = new URL(url).hostname;
    hosts.push(host);
    const body = instant?.[host] ?? (await new Promise<string>((resolve) => waiting.set(host, resolve)));
    const bytes = new TextEncoder().encode(body);
    return {
      status: 200,
      headers: new Headers({ 'content-type': 'text/plain' }),
      body: (async function* () {
        yield bytes;
      })(),
    };
  };
  const answer = (host: string, body = '') => {
    waiting.get(host)?.(body);
    waiting.delete(host);
  };
  return { fetch, hosts, answer, waiting };
}

function polite(fetch: FetchLike): Politeness {
  const p = createPoliteness(
    internalOptions({
      userAgent: 'BoundsBot/1.0 (+https://example.test)',
      pacing: { minDelayMs: 1000 },
      scheduler: 'memory',
      robots: { fetch },
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

/** A queue the frontier pulls from; `pulled` counts what it served. */
function queueOf(urls: string[]) {
  const items = urls.map((url) => ({ url }));
  const queue = { items, pulled: 0, pull: () => items.shift() };
  queue.pull = () => {
    const item = items.shift();
    if (item) queue.pulled++;
    return item;
  };
  return queue;
}

/** Lets the promise callbacks and fetches started so far run (robots.txt "arrives" in a few ticks). */
const ticks = () => new Promise((resolve) => setTimeout(resolve, 5));

const hostNames = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `h${from + i}.test`);

describe('createFrontier: how far next reads ahead', () => {
  it('pulls items of at most 16 origins whose robots.txt is unknown, and more as theirs come in', async () => {
    const server = robotsServer();
    const p = polite(server.fetch);
    const frontier = frontierOn(p);
    const queue = queueOf(hostNames(100).map((host) => `http://${host}/page`));

    expect(await frontier.next(queue.pull)).toBeUndefined();
    await ticks();
    // Before issue 25 the first call read the whole queue and fetched 100 robots.txt at once.
    expect(queue.pulled).toBe(16);
    expect(frontier.full).toBe(true);
    expect(server.hosts).toEqual(hostNames(16));
    expect(await frontier.next(queue.pull)).toBeUndefined();
    expect(queue.pulled).toBe(16);

    for (const host of hostNames(4)) server.answer(host);
    await ticks();
    expect(frontier.full).toBe(false);
    // The four hosts are parked a delay after their robots.txt went out; four more origins are pulled.
    expect(await frontier.next(queue.pull)).toBeUndefined();
    expect(queue.pulled).toBe(20);
    await ticks();
    expect(server.hosts).toEqual(hostNames(20));
  });

  it('counts origins, not items: many items of one unknown origin are pulled behind one fetch', async () => {
    const server = robotsServer();
    const frontier = frontierOn(polite(server.fetch), { maxRobotsFetches: 2 });
    const queue = queueOf([
      ...['/1', '/2', '/3'].map((path) => `http://a.test${path}`),
      'http://b.test/1',
      'http://c.test/1',
    ]);
    expect(await frontier.next(queue.pull)).toBeUndefined();
    await ticks();
    expect(queue.pulled).toBe(4);
    expect(server.hosts).toEqual(['a.test', 'b.test']);
  });

  it('parks at most 2,000 items by default, then pulls nothing more until some go', async () => {
    const server = robotsServer({ 'a.test': '' });
    const p = polite(server.fetch);
    await p.check('http://a.test/');
    now += 10_000;
    const frontier = frontierOn(p);
    const queue = queueOf(Array.from({ length: 2500 }, (_, i) => `http://a.test/${i}`));

    expect((await frontier.next(queue.pull))?.url).toBe('http://a.test/0');
    expect(await frontier.next(queue.pull)).toBeUndefined();
    // Before issue 25 the whole queue was read into memory (no default bound).
    expect(frontier.size).toBe(2000);
    expect(frontier.full).toBe(true);
    expect(queue.pulled).toBe(2001);
  });
});

describe('createFrontier: robots.txt prefetches of screen', () => {
  it('prefetches at most maxRobotsFetches origins at once; the others once those are in', async () => {
    const server = robotsServer();
    const frontier = frontierOn(polite(server.fetch), { maxRobotsFetches: 3 });
    const urls = hostNames(10).map((host) => `http://${host}/`);

    for (const url of urls) expect(frontier.screen(url)).toBeUndefined();
    await ticks();
    expect(server.hosts).toEqual(hostNames(3));

    for (const host of hostNames(3)) server.answer(host);
    await ticks();
    for (const url of urls) frontier.screen(url);
    await ticks();
    expect(server.hosts).toEqual(hostNames(6));
  });

  it('counts a prefetch whose rules never show up for 30 s at most', async () => {
    const server = robotsServer();
    const frontier = frontierOn(polite(server.fetch), { maxRobotsFetches: 1 });
    frontier.screen('http://h0.test/');
    frontier.screen('http://h1.test/');
    await ticks();
    expect(server.hosts).toEqual(['h0.test']);
    now += 30_000;
    frontier.screen('http://h1.test/');
    await ticks();
    expect(server.hosts).toEqual(['h0.test', 'h1.test']);
  });
});

describe('createFrontier: hosts() forgets hosts out of play', () => {
  it('drops a host with nothing parked, held or checked after 5 minutes; handedOut keeps its items', async () => {
    const server = robotsServer({ 'a.test': '', 'b.test': '', 'c.test': '' });
    const p = polite(server.fetch);
    await Promise.all(['a.test', 'b.test', 'c.test'].map((host) => p.check(`http://${host}/`)));
    now += 10_000;
    const frontier = frontierOn(p);
    const a = await frontier.admit({ url: 'http://a.test/1' });
    const b = await frontier.admit({ url: 'http://b.test/1' });
    expect(await frontier.admit({ url: 'http://c.test/1' })).toBeDefined(); // c.test stays held
    expect(await frontier.admit({ url: 'http://c.test/2' })).toBeUndefined(); // and parked
    if (!a || !b) throw new Error('expected a.test and b.test handed out');
    frontier.finished(a);
    frontier.finished(b);
    expect(frontier.hosts().map(({ host }) => host)).toEqual(['a.test', 'b.test', 'c.test']);

    now += 5 * 60_000 - 1;
    expect(frontier.hosts()).toHaveLength(3);
    now += 1;
    expect(frontier.hosts()).toEqual([{ host: 'c.test', handedOut: 1, parked: 1, nextDueAt: 0 }]);
    expect(frontier.handedOut).toBe(3);
    await frontier.settled();
  });

  it('keeps at most 10,000 resting hosts beyond those in play, trimmed in batches', async () => {
    const p = polite(robotsServer().fetch);
    // robots.txt of every host "in memory" (a stand-in: 25,000 real fetches are not the point here).
    const allowed = (url: string): AllowedDecision => {
      const hostKey = new URL(url).hostname;
      return {
        allowed: true,
        reason: 'allowed',
        url,
        robotsUrl: `http://${hostKey}/robots.txt`,
        productToken: 'boundsbot',
        source: 'robots.txt',
        delayMs: 1000,
        hostKey,
      };
    };
    // The stand-in's adapter kit answers from memory, and every host is due.
    const kit: AdapterKit = { ...adapterKit(p), checkCached: allowed, nextStart: async () => now };
    const stand = new Proxy(p, {
      get(target, key) {
        if (key === ADAPTER_KIT) return kit;
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const frontier = frontierOn(stand);
    for (let i = 0; i < 25_000; i++) {
      const decision = allowed(`http://h${i}.test/`);
      expect(await frontier.admit({ url: decision.url })).toBeDefined();
      frontier.sent(decision, now);
    }
    const hosts = frontier.hosts();
    // Before issue 25: all 25,000, for ever. Trimmed to 10,000 when past 20,000, then grown again.
    expect(hosts.length).toBeLessThanOrEqual(20_000);
    expect(hosts.at(-1)?.host).toBe('h24999.test');
    expect(frontier.handedOut).toBe(25_000);
  });
});

describe('createFrontier: order over many hosts', () => {
  it('hands out 60 hosts of different delays each when due, FIFO per host', async () => {
    const names = hostNames(60);
    const bodies = Object.fromEntries(
      names.map((host, i) => [host, i % 3 === 0 ? '' : `User-agent: *\nCrawl-delay: ${1 + (i % 5)}\n`]),
    );
    const p = polite(robotsServer(bodies).fetch);
    await Promise.all(names.map((host) => p.check(`http://${host}/`)));
    now += 10_000;
    const frontier = frontierOn(p, { maxParked: Number.POSITIVE_INFINITY });
    const start = now;
    const out: Array<[number, string]> = [];
    const sendNow = async (item: Page) => {
      out.push([now - start, item.url]);
      const decision = adapterKit(p).checkCached(item.url);
      if (!decision) throw new Error('expected rules in memory');
      await adapterKit(p).markSent(decision, { at: now });
      frontier.sent(decision, now);
    };
    // Pages 1..4 of every host, the hosts in reverse order.
    for (let k = 1; k <= 4; k++)
      for (const host of [...names].reverse()) {
        const item = await frontier.admit({ url: `http://${host}/${k}` });
        if (item) await sendNow(item);
      }
    while (frontier.size > 0) {
      const item = await frontier.takeDue();
      if (item) await sendNow(item);
      else if (Number.isFinite(frontier.earliestDue())) now = frontier.earliestDue();
      else throw new Error('nothing parked comes due');
    }
    expect(out).toHaveLength(240);
    for (const host of names) {
      const delayMs = adapterKit(p).checkCached(`http://${host}/`)?.delayMs ?? Number.NaN;
      const mine = out.filter(([, url]) => new URL(url).hostname === host);
      expect(mine).toEqual([1, 2, 3, 4].map((k) => [(k - 1) * delayMs, `http://${host}/${k}`]));
    }
  });
});
