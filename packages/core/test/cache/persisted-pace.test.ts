/**
 * A host's pace kept in the user's store (cache/persisted-pace.ts): a crawler started again on the
 * same store gives a host its first slot no sooner than the last start before the restart plus the
 * host's delay. Fake clock for the pacing; the store's own promises and the write batches run in real
 * time, so the helper lets a few real milliseconds pass between steps.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { storeKey } from '../../src/cache/stored-record.js';
import type { PolitelyEvent } from '../../src/index.js';
import { politeOnClock } from '../facade/fake-clock-politeness.js';
import { createFakeClock, type FakeClock } from '../schedule/fake-clock.js';

const T0 = 1_000_000;
/** robots.txt in fake-clock-politeness.ts asks Crawl-delay 1: 1000 ms plus the 50 ms safety margin. */
const DELAY_MS = 1000;

const realTick = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

/** Advances the fake clock in steps, letting real time run the store and the batches between them. */
async function advance(clock: FakeClock, ms: number, step = 25): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    await realTick();
    await clock.advance(Math.min(step, ms - done));
  }
  await realTick();
}

describe('persisted pace: a restart on the same store', () => {
  it("gives the host's first slot no sooner than the last start before the restart plus the delay", async () => {
    const clock = createFakeClock(T0);
    const store = new Keyv();
    const first = politeOnClock('PaceBot/1.0', clock, { store });
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
    let slowOnce = true;
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
    await politeness.admit('https://pace-f.test/1');
    const goAt = clock.now();
    expect(goAt).toBeGreaterThanOrEqual(T0 + 400);
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
    const decision = await politeness.admit('https://pace-c.test/1');
    expect(decision.allowed).toBe(true);
    expect(events.some((event) => event.type === 'store-error')).toBe(true);
  });

  it('a record it would not have written (garbage, far in the future) is ignored', async () => {
    const clock = createFakeClock(T0);
    const store = new Keyv();
    await store.set('politely:pace:v1:pace-d.test', { v: 1, notBefore: T0 + 365 * 86_400_000 });
    await store.set('politely:pace:v1:pace-e.test', 'garbage');
    const politeness = politeOnClock('PaceBot/1.0', clock, { store });
    await politeness.admit('https://pace-d.test/1');
    await politeness.admit('https://pace-e.test/1');
    expect(clock.now()).toBe(T0);
  });
});
