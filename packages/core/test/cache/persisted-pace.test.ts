/**
 * A host's pace kept in the user's store (cache/persisted-pace.ts): a crawler started again on the
 * same store gives a host its first slot no sooner than the last start before the restart plus the
 * host's delay. Fake clock for the pacing; the store's own promises and the write batches run in real
 * time, so the helper lets a few real milliseconds pass between steps.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { FLUSH_GAP_MS } from '../../src/cache/persisted-pace.js';
import { storeKey } from '../../src/cache/stored-record.js';
import type { PolitelyEvent } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
import { pastRobotsTxt, politeOnClock } from '../facade/fake-clock-politeness.js';
import { createFakeClock, type FakeClock } from '../schedule/fake-clock.js';

const T0 = 1_000_000;
/** robots.txt in fake-clock-politeness.ts asks Crawl-delay 1: 1000 ms plus the 50 ms safety margin. */
const DELAY_MS = 1000;

const realTick = (ms = 5) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Advances the fake clock in steps, letting real time run the store and the batches between them. */
async function advance(clock: FakeClock, ms: number, step = 25, tickMs = 5): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    await realTick(tickMs);
    await clock.advance(Math.min(step, ms - done));
  }
  await realTick(tickMs);
}

describe('persisted pace: a restart on the same store', () => {
  it("gives the host's first slot no sooner than the last start before the restart plus the delay", async () => {
    const clock = createFakeClock(T0);
    const store = new Keyv();
    const first = politeOnClock('PaceBot/1.0', clock, { store });
    await pastRobotsTxt(first, clock, 'https://pace-a.test/');
    await first.admit('https://pace-a.test/1');
    const lastStart = clock.now();
    // A crash: nothing is flushed at exit, the process is simply gone. The instance is left open.

    const again = politeOnClock('PaceBot/1.0', clock, { store });
    let wentAt: number | undefined;
    const admitted = again.admit('https://pace-a.test/2').then(() => {
      wentAt = clock.now();
    });
    await advance(clock, 0);
    for (let i = 0; i < 10; i++) await realTick();
    expect(wentAt).toBeUndefined();
    await advance(clock, 2 * DELAY_MS);
    await admitted;
    expect(wentAt).toBeGreaterThanOrEqual(lastStart + DELAY_MS);
  });

  it('paces a host met only by its robots.txt refetch after a restart too', async () => {
    const clock = createFakeClock(T0);
    const store = new Keyv();
    const first = politeOnClock('PaceBot/1.0', clock, { store });
    await pastRobotsTxt(first, clock, 'https://pace-b.test/');
    await first.admit('https://pace-b.test/1');
    const lastStart = clock.now();

    // The robots.txt record is gone (expired, say): the restarted crawler fetches it, through the host's slot.
    expect(await store.delete(storeKey('https://pace-b.test'))).toBe(true);
    const fetchedAt: number[] = [];
    const again = politeOnClock('PaceBot/1.0', clock, {
      store,
      robots: {
        fetch: async () => {
          fetchedAt.push(clock.now());
          return new Response('User-agent: *\nCrawl-delay: 1\n', { status: 200 });
        },
      },
    });
    const admitted = again.admit('https://pace-b.test/2');
    await advance(clock, 3 * DELAY_MS);
    await admitted;
    expect(fetchedAt).toHaveLength(1);
    expect(fetchedAt[0]).toBeGreaterThanOrEqual(lastStart + DELAY_MS);
  });

  it('a write slower than the margin is written again, so the record covers the real send', async () => {
    const clock = createFakeClock(T0);
    const inner = new Keyv();
    let slowOnce = false;
    const store = {
      get: (key: string) => inner.get(key),
      delete: (key: string) => inner.delete(key),
      async set(key: string, value: unknown, ttl?: number) {
        // The first pace record takes 400 ms of the crawler's clock to write (a loaded disk).
        if (key.startsWith('politely:pace:') && slowOnce) {
          slowOnce = false;
          await clock.advance(400);
        }
        return inner.set(key, value, ttl);
      },
    };
    const politeness = politeOnClock('PaceBot/1.0', clock, { store });
    await pastRobotsTxt(politeness, clock, 'https://pace-f.test/');
    // The page's pace record is the one slow to write.
    slowOnce = true;
    const askedAt = clock.now();
    await politeness.admit('https://pace-f.test/1');
    const goAt = clock.now();
    expect(goAt).toBeGreaterThanOrEqual(askedAt + 400);
    // Read before any later batch could write the reported send: the write-ahead alone covers it.
    const record = (await inner.get('politely:pace:v1:pace-f.test')) as { notBefore: number };
    expect(record.notBefore).toBeGreaterThanOrEqual(goAt + DELAY_MS);
  });

  it('a failing store loses nothing: the crawl goes on as without one, and the operator hears of it', async () => {
    const clock = createFakeClock(T0);
    const events: PolitelyEvent[] = [];
    const broken = {
      get: async () => {
        throw new Error('disk gone');
      },
      set: async () => {
        throw new Error('disk gone');
      },
      delete: async () => true,
    };
    const politeness = politeOnClock('PaceBot/1.0', clock, {
      store: broken,
      onEvent: (event: PolitelyEvent) => events.push(event),
    });
    await pastRobotsTxt(politeness, clock, 'https://pace-c.test/');
    const decision = await politeness.admit('https://pace-c.test/1');
    expect(decision.allowed).toBe(true);
    expect(events.some((event) => event.type === 'store-error')).toBe(true);
  });

  it('a record it would not have written (garbage) is ignored', async () => {
    const clock = createFakeClock(T0);
    const store = new Keyv();
    await store.set('politely:pace:v1:pace-e.test', 'garbage');
    await store.set('politely:pace:v1:pace-g.test', { v: 1, notBefore: 'soon' });
    const fetched: string[] = [];
    const politeness = politeOnClock('PaceBot/1.0', clock, {
      store,
      robots: {
        fetch: async (url: string) => {
          fetched.push(`${url} ${clock.now() - T0}`);
          return new Response('User-agent: *\nCrawl-delay: 1\n');
        },
      },
    });
    // Each host's first request, its robots.txt, goes at once.
    await politeness.check('https://pace-e.test/1');
    await politeness.check('https://pace-g.test/1');
    expect(fetched).toEqual(['https://pace-e.test/robots.txt 0', 'https://pace-g.test/robots.txt 0']);
  });
});

describe('a stored pace ahead of what the options allow (issue 43.2)', () => {
  /** The largest delay politeOnClock's options allow (maxBackoffMs), the margin and two store timeouts. */
  const MAX_AHEAD_MS = 600_000 + 250 + 2 * 2000;

  it('is trusted only up to the largest delay, reported once per host, and waited for within maxWaitMs', async () => {
    const clock = createFakeClock(T0);
    const store = new Keyv();
    await store.set('politely:pace:v1:pace-d.test', { v: 1, notBefore: T0 + 365 * 86_400_000 });
    const events: PolitelyEvent[] = [];
    const warnings: string[] = [];
    const politeness = politeOnClock('PaceBot/1.0', clock, {
      store,
      logger: { warn: (message: string) => warnings.push(message) },
      onEvent: (event: PolitelyEvent) => events.push(event),
    });
    // robots.txt is not cached: its fetch waits for the host's slot, which is past maxWaitMs (60 s).
    for (let i = 0; i < 2; i++) {
      const error = await politeness.admit(`https://pace-d.test/${i}`).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'WaitTooLongError', host: 'pace-d.test' });
      expect((error as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(MAX_AHEAD_MS);
    }
    expect(clock.now()).toBe(T0);
    expect(events.filter((event) => event.type === 'pace-record-ahead')).toEqual([
      { type: 'pace-record-ahead', host: 'pace-d.test', aheadMs: 365 * 86_400_000, trustedMs: MAX_AHEAD_MS },
    ]);
    expect(warnings.filter((line) => line.includes('pace-d.test'))).toHaveLength(1);
  });

  it('a check whose robots.txt waits behind a stored pace never waits past maxWaitMs', async () => {
    const clock = createFakeClock(T0);
    const store = new Keyv();
    // 30 s ahead: within what the options allow, further than the 3 s the crawler will wait.
    await store.set('politely:pace:v1:pace-h.test', { v: 1, notBefore: T0 + 30_000 });
    const fetched: number[] = [];
    const politeness = politeOnClock('PaceBot/1.0', clock, {
      store,
      pacing: { maxWaitMs: 3000 },
      robots: {
        fetch: async () => {
          fetched.push(clock.now());
          return new Response('User-agent: *\nAllow: /\n');
        },
      },
    });
    let outcome: unknown;
    const checking = politeness.check('https://pace-h.test/1').then(
      (decision) => (outcome = decision),
      (error: unknown) => (outcome = error),
    );
    await advance(clock, 3000);
    await checking;
    expect(outcome).toMatchObject({ name: 'WaitTooLongError', host: 'pace-h.test', maxWaitMs: 3000 });
    expect(clock.now() - T0).toBeLessThanOrEqual(3000 + 25);
    expect(fetched).toEqual([]);
    // When the slot is within reach, robots.txt is fetched and the check answers.
    await advance(clock, 27_000, 1000);
    expect(await politeness.check('https://pace-h.test/1')).toMatchObject({ allowed: true });
    expect(fetched).toHaveLength(1);
    expect(fetched[0]).toBeGreaterThanOrEqual(T0 + 30_000);
  });
});

/** A store whose every call takes `latencyMs` of the crawler's clock. */
function slowStore(clock: FakeClock, latencyMs: number) {
  const inner = new Keyv();
  const slow = async <T>(run: () => Promise<T>) => {
    await clock.sleep(latencyMs);
    return run();
  };
  return {
    get: (key: string) => slow(() => inner.get(key)),
    delete: (key: string) => slow(() => inner.delete(key)),
    set: (key: string, value: unknown, ttl?: number) => slow(() => inner.set(key, value, ttl)),
  };
}

/**
 * Six requests to one host through the adapter kit's pass, each reporting its send and a response
 * 20 ms later, `idleMs` apart: when each started, and how long each waited for its pass.
 */
async function passes(clock: FakeClock, latencyMs: number, idleMs: number, events: PolitelyEvent[]) {
  const politeness = politeOnClock('PaceBot/1.0', clock, {
    store: slowStore(clock, latencyMs),
    onEvent: (event: PolitelyEvent) => events.push(event),
  });
  const kit = adapterKit(politeness);
  const starts: number[] = [];
  const waits: number[] = [];
  let done = false;
  const run = (async () => {
    for (let i = 0; i < 6; i++) {
      const decision = await politeness.check(`https://slow.test/${i}`);
      const askedAt = clock.now();
      const pass = await kit.pass(decision, { sendReported: true });
      starts.push(clock.now());
      waits.push(clock.now() - askedAt);
      await pass.sent(clock.now());
      await clock.sleep(20);
      await pass.answered(200, null, 20);
      pass.release();
      await clock.sleep(idleMs);
    }
    done = true;
  })();
  for (let step = 0; step < 600 && !done; step++) await advance(clock, 100, 10, 1);
  await run;
  return { starts, waits, gaps: starts.slice(1).map((at, i) => at - (starts[i] ?? 0)) };
}

describe('persisted pace on a slow store (issue 43.3)', () => {
  it('a request due at once waits for one batch, not one per rewrite, and the slowness is said once', async () => {
    const events: PolitelyEvent[] = [];
    // 300 ms a call: a record written ahead was written again up to 3 times, a batch each (1,200 ms).
    const { waits } = await passes(createFakeClock(T0), 300, 2 * DELAY_MS, events);
    // The first pass also follows robots.txt's own slot by the delay; each later one is due at once.
    for (const wait of waits.slice(1)) expect(wait).toBeLessThanOrEqual(300 + FLUSH_GAP_MS);
    const slow = events.filter((event) => event.type === 'store-slow');
    expect(slow).toHaveLength(1);
    expect(slow[0]).toMatchObject({ operation: 'set', marginMs: 250 });
    expect((slow[0] as { latencyMs: number }).latencyMs).toBeGreaterThanOrEqual(300);
  });

  it('a store slower than the delay costs each request one batch at most', async () => {
    // 1,500 ms a call at a 1,000 ms delay: serial batches and rewrites made gaps of 7,500 ms.
    const { gaps } = await passes(createFakeClock(T0), 1500, 0, []);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(DELAY_MS);
      expect(gap).toBeLessThanOrEqual(DELAY_MS + 1500 + 2 * FLUSH_GAP_MS);
    }
  });
});
