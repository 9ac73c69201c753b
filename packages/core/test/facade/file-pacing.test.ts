/**
 * Issue 41 part 3: every request to a host is paced as a page is, the origin's own files included.
 * The request after robots.txt, or after tdmrep.json, waits the delay robots.txt asks (Crawl-delay
 * for our product token, capped by maxCrawlDelayMs, with the margin a page gets), not minDelayMs: in
 * one process, across processes sharing a scheduler (a fleet's), and after a restart on a stored pace.
 * On the memory scheduler and a fake clock; each file is answered at once, so the clock's time when
 * a file is fetched is its send and its response. Before, with `Crawl-delay: 2`, robots.txt ->
 * tdmrep.json -> the first page went 1,055-1,087 ms apart at the wire (minDelayMs and its margin).
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import type { OptionOverrides } from '../../../../test/helpers/options.js';
import type { FetchLike, Politeness } from '../../src/index.js';
import { createMemoryScheduler } from '../../src/public/scheduler.js';
import { createFakeClock, type FakeClock } from '../schedule/fake-clock.js';
import { politeOnClock } from './fake-clock-politeness.js';

const T0 = 1_000_000;
const UA = 'FileBot/1.0';

/** A site's files by path, each fetch noted as `path @ ms after T0`. */
function files(clock: FakeClock, bodies: Record<string, string>) {
  const fetched: string[] = [];
  const fetch: FetchLike = async (url) => {
    const path = new URL(url).pathname;
    fetched.push(`${path} @ ${clock.now() - T0}`);
    const body = bodies[path];
    return body === undefined ? new Response('', { status: 404 }) : new Response(body, { status: 200 });
  };
  return { fetched, fetch };
}

/** `admit(url)`, noted as `path @ ms after T0` once its slot starts. */
function admitting(politeness: Politeness, clock: FakeClock, url: string, seen: string[]) {
  return politeness.admit(url).then(() => {
    seen.push(`${new URL(url).pathname} @ ${clock.now() - T0}`);
  });
}

/** Moves the fake clock in small steps, letting real time run a store's promises between them. */
async function advance(clock: FakeClock, ms: number, step = 50): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    await clock.advance(Math.min(step, ms - done));
  }
}

describe('files are paced as pages (one process)', () => {
  it('the first page waits the Crawl-delay robots.txt asks after it, not minDelayMs', async () => {
    const clock = createFakeClock(T0);
    const site = files(clock, { '/robots.txt': 'User-agent: *\nCrawl-delay: 2\n' });
    const politeness = politeOnClock(UA, clock, {
      robots: { fetch: site.fetch },
      pacing: { minDelayMs: 1000 },
    });
    const seen: string[] = [];

    const page = admitting(politeness, clock, 'https://files.test/a', seen);
    await clock.advance(2049);
    expect(seen).toEqual([]);
    await clock.advance(1);
    await page;

    // 2,000 ms asked and the 50 ms margin of a page whose send is not reported.
    expect([...site.fetched, ...seen]).toEqual(['/robots.txt @ 0', '/a @ 2050']);
  });

  it('robots.txt -> tdmrep.json -> the first page, each the Crawl-delay after the one before', async () => {
    const clock = createFakeClock(T0);
    const site = files(clock, {
      '/robots.txt': 'User-agent: *\nCrawl-delay: 2\n',
      '/.well-known/tdmrep.json': '[]',
    });
    const politeness = politeOnClock(UA, clock, {
      purpose: 'ai-train',
      robots: { fetch: site.fetch },
      pacing: { minDelayMs: 1000 },
    });
    const seen: string[] = [];

    const page = admitting(politeness, clock, 'https://files.test/a', seen);
    await advance(clock, 4100);
    await page;

    expect([...site.fetched, ...seen]).toEqual([
      '/robots.txt @ 0',
      '/.well-known/tdmrep.json @ 2050',
      '/a @ 4100',
    ]);
  });

  it.each<[string, string, NonNullable<OptionOverrides['pacing']>]>([
    ['Crawl-delay above minDelayMs', 'Crawl-delay: 2', { minDelayMs: 1000 }],
    ['no Crawl-delay', 'Disallow: /private', { minDelayMs: 300 }],
    [
      'Crawl-delay capped at maxCrawlDelayMs',
      'Crawl-delay: 100',
      { maxCrawlDelayMs: 5000, crawlDelayAboveMax: 'cap' },
    ],
    ['Crawl-delay not honoured', 'Crawl-delay: 2', { minDelayMs: 1000, respectCrawlDelay: false }],
  ])('%s: the gap after robots.txt is the delay a page of the host gets', async (_, line, pacing) => {
    const clock = createFakeClock(T0);
    const site = files(clock, { '/robots.txt': `User-agent: *\n${line}\n` });
    const politeness = politeOnClock(UA, clock, { robots: { fetch: site.fetch }, pacing });
    const seen: string[] = [];

    const decision = await politeness.check('https://files.test/a');
    const page = admitting(politeness, clock, 'https://files.test/a', seen);
    await clock.advance(decision.delayMs - 1);
    expect(seen).toEqual([]);
    await clock.advance(1);
    await page;

    expect(seen).toEqual([`/a @ ${decision.delayMs}`]);
  });

  it('robots.txt fetched as a page is paced by the Crawl-delay of the copy in memory', async () => {
    const clock = createFakeClock(T0);
    const site = files(clock, { '/robots.txt': 'User-agent: *\nCrawl-delay: 2\n' });
    const politeness = politeOnClock(UA, clock, {
      robots: { fetch: site.fetch },
      pacing: { minDelayMs: 1000 },
    });

    await politeness.check('https://files.test/a');

    expect(await politeness.check('https://files.test/robots.txt')).toMatchObject({
      source: 'robots.txt-itself',
      askedDelayMs: 2000,
      delayMs: 2050,
    });
  });
});

describe('files are paced as pages across processes and restarts', () => {
  it("a fleet: a process that reads robots.txt from the store waits the gap after another's fetch", async () => {
    const clock = createFakeClock(T0);
    const site = files(clock, { '/robots.txt': 'User-agent: *\nCrawl-delay: 2\n' });
    // Two processes: one scheduler (a fleet's shared pace, as Redis keeps it) and one store.
    const scheduler = createMemoryScheduler({ clock });
    const store = new Keyv();
    const shared = { robots: { fetch: site.fetch }, pacing: { minDelayMs: 1000 }, scheduler, store };
    const fetching = politeOnClock(UA, clock, shared);
    const reading = politeOnClock(UA, clock, shared);
    const seen: string[] = [];

    await fetching.check('https://files.test/a');
    const page = admitting(reading, clock, 'https://files.test/b', seen);
    await advance(clock, 2100);
    await page;

    expect(site.fetched).toEqual(['/robots.txt @ 0']);
    expect(seen).toEqual(['/b @ 2050']);
  });

  it('a restart on the same store: the first page waits the Crawl-delay after the robots.txt fetched before it', async () => {
    const clock = createFakeClock(T0);
    const site = files(clock, { '/robots.txt': 'User-agent: *\nCrawl-delay: 2\n' });
    const store = new Keyv();
    const options = { robots: { fetch: site.fetch }, pacing: { minDelayMs: 1000 }, store };
    const before = politeOnClock(UA, clock, options);
    await before.check('https://files.test/a');
    // The pace's write batches run in real time (a loaded machine may take a while): the crash comes
    // once the batch after robots.txt's parse is in (at most a few, or never without the gap it asks).
    // A crash: nothing flushed at exit, the instance left open.
    const stored = async () =>
      ((await store.get('politely:pace:v1:files.test')) as { notBefore?: number })?.notBefore ?? 0;
    for (let tries = 0; tries < 100 && (await stored()) < T0 + 2000; tries++) await advance(clock, 5, 5);

    const after = politeOnClock(UA, clock, options);
    let wentAt: number | undefined;
    const page = after.admit('https://files.test/b').then(() => {
      wentAt = clock.now() - T0;
    });
    await advance(clock, 3000, 25);
    await page;

    // robots.txt came from the store (no second fetch), and its gap held across the restart.
    expect(site.fetched).toEqual(['/robots.txt @ 0']);
    expect(wentAt).toBeGreaterThanOrEqual(2000);
  });
});
