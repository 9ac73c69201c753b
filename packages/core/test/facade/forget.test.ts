/**
 * `politeness.forget(url)`: what is cached about an origin's robots.txt is dropped from process memory
 * and from the store, so the next check fetches it again; the site's request log shows it.
 */

import { createKeyv } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { mergeOptions } from '../../../../test/helpers/options.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../../test/helpers/redis.js';
import { createPoliteness, type Politeness, type PolitenessOptions } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';

const hosts: TestHost[] = [];
const instances: Politeness[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

const BLOCKING = 'User-agent: *\nDisallow: /page\n';
const OPEN = 'User-agent: *\nAllow: /\n';

async function site(ip: string, body: string) {
  const started = await startHost({ ip, routes: { '/robots.txt': text(body) } });
  hosts.push(started);
  return started;
}

function polite(options: Partial<PolitenessOptions> = {}) {
  const instance = createPoliteness(
    mergeOptions(
      {
        userAgent: 'ForgetBot/1.0',
        pacing: { minDelayMs: 0 },
        logger: false,
      },
      options,
    ),
  );
  instances.push(instance);
  return instance;
}

describe('politeness.forget(url)', () => {
  it('makes the next check fetch robots.txt again and follow the new rules', async () => {
    const host = await site('127.0.0.61', BLOCKING);
    const p = polite();
    expect((await p.check(host.url('/page'))).allowed).toBe(false);
    host.route('/robots.txt', text(OPEN));
    // Still cached: no new fetch, the old verdict.
    expect((await p.check(host.url('/page'))).allowed).toBe(false);
    expect(host.requests('/robots.txt')).toHaveLength(1);

    await p.forget(host.url('/any/path?x=1'));
    expect(adapterKit(p).checkCached(host.url('/page'))).toBeUndefined();
    expect((await p.check(host.url('/page'))).allowed).toBe(true);
    expect(host.requests('/robots.txt')).toHaveLength(2);
  });

  it('does not keep the answer of a fetch that was under way when it was called', async () => {
    const host = await site('127.0.0.62', BLOCKING);
    host.route('/robots.txt', { ...text(BLOCKING), delayMs: 300 });
    const p = polite();
    const early = p.check(host.url('/page'));
    // Wait until the slow fetch has reached the server (it answers with the rules of that moment).
    while (host.requests('/robots.txt').length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    host.route('/robots.txt', text(OPEN));
    await p.forget(host.url('/'));
    // The early caller still gets its answer (the old rules), but it is not cached:
    expect((await early).allowed).toBe(false);
    expect((await p.check(host.url('/page'))).allowed).toBe(true);
    expect(host.requests('/robots.txt')).toHaveLength(2);
    // ...and the fresh answer is the one kept.
    expect(adapterKit(p).checkCached(host.url('/page'))?.allowed).toBe(true);
  });

  it('leaves other origins cached', async () => {
    const [one, two] = [await site('127.0.0.61', BLOCKING), await site('127.0.0.62', BLOCKING)];
    const p = polite();
    await p.check(one.url('/page'));
    await p.check(two.url('/page'));
    await p.forget(one.url('/'));
    expect(adapterKit(p).checkCached(two.url('/page'))?.allowed).toBe(false);
    expect(adapterKit(p).checkCached(one.url('/page'))).toBeUndefined();
  });

  it('rejects a non-http URL with a TypeError', async () => {
    await expect(polite().forget('ftp://example.test/')).rejects.toThrow(TypeError);
  });
});

const redisUp = await requireRedis('forget with a Keyv store on Redis');

describe.skipIf(!redisUp)('politeness.forget(url) with a Keyv store on Redis', () => {
  /** A "process" of a fleet: its own connection to the shared store. */
  function fleetMember(namespace: string) {
    const store = createKeyv(REDIS_URL, { namespace });
    closers.push(() => store.disconnect());
    return polite({ store, scheduler: 'memory' });
  }

  it('deletes the stored copy, so every process sharing the store fetches again', async () => {
    const host = await site('127.0.0.63', BLOCKING);
    const namespace = uniquePrefix('forget');
    const first = fleetMember(namespace);
    expect((await first.check(host.url('/page'))).allowed).toBe(false);
    // A second process finds the copy in the store: no fetch.
    expect((await fleetMember(namespace).check(host.url('/page'))).allowed).toBe(false);
    expect(host.requests('/robots.txt')).toHaveLength(1);

    host.route('/robots.txt', text(OPEN));
    await first.forget(host.url('/'));
    // A third process, with nothing in memory, must fetch: the store no longer has it.
    const third = fleetMember(namespace);
    expect((await third.check(host.url('/page'))).allowed).toBe(true);
    expect(host.requests('/robots.txt')).toHaveLength(2);
    expect(third.stats().cache.storeHits).toBe(0);
  });
});
