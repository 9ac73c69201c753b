/**
 * A shared store that is not Redis (@keyv/postgres, @keyv/sqlite, ...) shares the robots.txt cache
 * only: the instance says so once, at creation, as a `store-sharing` event and one logger.warn.
 * @keyv/postgres is not a dependency of this repository; an adapter of the same shape stands in.
 */

import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/cache/memory-store.js';
import { createPoliteness, type PolitelyEvent, type PolitenessOptions } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';

/** A Keyv storage adapter kept outside the process, as @keyv/postgres and @keyv/sqlite are. */
class SqlLikeAdapter {
  readonly rows = new Map<string, unknown>();
  readonly namespace?: string;
  async get(key: string) {
    return this.rows.get(key);
  }
  async set(key: string, value: unknown) {
    this.rows.set(key, value);
    return true;
  }
  async delete(key: string) {
    return this.rows.delete(key);
  }
  async clear() {
    this.rows.clear();
  }
  on() {
    return this;
  }
}

async function created(store: PolitenessOptions['store']) {
  const events: PolitelyEvent[] = [];
  const warnings: { message: string; data: unknown }[] = [];
  const politeness = createPoliteness({
    userAgent: 'MyBot/1.0',
    ...(store ? { store } : {}),
    onEvent: (event) => events.push(event),
    logger: { warn: (message, data) => warnings.push({ message, data }) },
  });
  await adapterKit(politeness).checkCached('https://example.test/');
  await politeness.close();
  return { events: events.filter((event) => event.type === 'store-sharing'), warnings };
}

describe('a shared store that is not Redis', () => {
  it('says once, at creation, that the robots.txt cache is shared and the fetch lock and pacing are not', async () => {
    const { events, warnings } = await created(new Keyv({ store: new SqlLikeAdapter() }));
    expect(events).toEqual([
      expect.objectContaining({
        shared: ['robots-cache'],
        perProcess: ['robots-fetch-lock', 'pacing'],
      }),
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(
      /^store is not Redis: processes sharing it share the robots.txt cache, but each fetches a robots.txt it has not cached yet itself \(the fetch lock needs Redis\) and each process paces every host on its own\. For fleet mode use a Keyv on @keyv\/redis/,
    );
  });

  it.each([
    ['a Keyv in memory', () => new Keyv()],
    ['a Keyv on a Map', () => new Keyv({ store: new Map() })],
    ["politely's memory store", () => createMemoryStore()],
    ['no store', () => undefined],
  ])('says nothing for %s', async (_, store) => {
    const { events, warnings } = await created(store());
    expect(events).toEqual([]);
    expect(warnings).toEqual([]);
  });
});
