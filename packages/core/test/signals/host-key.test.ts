/**
 * Host grouping: which URLs share one pace. 'domain' by the Public Suffix List (tldts), 'ip' by the
 * resolved address (cached, one lookup in flight per name, the host name when a lookup fails).
 */

import { afterEach, describe, expect, it } from 'vitest';
import { ADDRESS_TTL_MS, createHostKeys, registrableDomain } from '../../src/facade/host-key.js';
import { createPoliteness, type PolitelyEvent, type Politeness } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
import { politeOnClock } from '../facade/fake-clock-politeness.js';
import { createFakeClock } from '../schedule/fake-clock.js';

const instances: Politeness[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
});

describe("hostKey: 'domain'", () => {
  it.each([
    ['https://a.example.com/x', 'example.com'],
    ['https://b.example.com./y', 'example.com'],
    ['https://shop.example.co.uk/', 'example.co.uk'],
    ['https://alice.github.io/', 'alice.github.io'], // PSL private section: a site of its own
    ['https://a.example.test/', 'example.test'],
    ['http://127.0.0.2:8080/', '127.0.0.2'],
    ['http://[::1]/', '[::1]'],
    ['http://localhost:3000/', 'localhost'],
    ['http://co.uk/', 'co.uk'],
  ])('%s -> %s', (url, key) => {
    expect(registrableDomain(new URL(url))).toBe(key);
  });

  it('the facade paces two names of one registrable domain as one host', () => {
    const p = createPoliteness({ userAgent: 'GroupBot/1.0', pacing: { hostKey: 'domain' }, logger: false });
    instances.push(p);
    expect(adapterKit(p).hostKey('https://a.example.com/')).toBe(
      adapterKit(p).hostKey('https://B.Example.com/z'),
    );
  });
});

describe("hostKey: 'ip'", () => {
  const table: Record<string, string> = {
    'a.example.test': '127.0.0.2',
    'b.example.test': '127.0.0.2',
    'c.example.test': '::ffff:127.0.0.3',
    'six.example.test': '::1',
  };

  function keys(onLookupFailed?: (hostname: string) => void) {
    const clock = createFakeClock();
    const looked: string[] = [];
    const lookup = async (hostname: string) => {
      looked.push(hostname);
      await clock.sleep(5);
      const address = table[hostname];
      if (!address)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return { address };
    };
    return {
      clock,
      looked,
      keys: createHostKeys({ option: 'ip', lookup, clock, ...(onLookupFailed ? { onLookupFailed } : {}) }),
    };
  }

  it('groups names of one address; IPv4-mapped and IPv6 addresses are spelled as URLs spell them', async () => {
    const { keys: k, clock } = keys();
    const resolving = ['a', 'b', 'c', 'six'].map((n) => k.resolve(new URL(`http://${n}.example.test/`)));
    await clock.advance(5);
    expect(await Promise.all(resolving)).toEqual(['127.0.0.2', '127.0.0.2', '127.0.0.3', '[::1]']);
  });

  it('one lookup in flight per name, cached for a minute; the sync key follows the cache', async () => {
    const { keys: k, clock, looked } = keys();
    const url = new URL('http://a.example.test/page');
    expect(k.keyOf(url)).toBe('a.example.test'); // not resolved yet: the host name
    const both = Promise.all([k.resolve(url), k.resolve(new URL('http://A.example.test./other'))]);
    await clock.advance(5);
    expect(await both).toEqual(['127.0.0.2', '127.0.0.2']);
    expect(looked).toEqual(['a.example.test']);
    expect(k.keyOf(url)).toBe('127.0.0.2');
    await clock.advance(59_000);
    expect(await k.resolve(url)).toBe('127.0.0.2');
    expect(looked).toHaveLength(1);
    await clock.advance(2000);
    const again = k.resolve(url);
    await clock.advance(5);
    await again;
    expect(looked).toHaveLength(2);
  });

  it('an IP literal needs no lookup', async () => {
    const { keys: k, looked } = keys();
    expect(await k.resolve(new URL('http://127.0.0.9:81/'))).toBe('127.0.0.9');
    expect(looked).toEqual([]);
  });

  it('a failed lookup falls back to the host name, and says so', async () => {
    const failed: string[] = [];
    const { keys: k, clock } = keys((hostname) => failed.push(hostname));
    const pending = k.resolve(new URL('http://nowhere.example.test/'));
    await clock.advance(5);
    expect(await pending).toBe('nowhere.example.test');
    expect(failed).toEqual(['nowhere.example.test']);
  });

  it('the facade resolves in check(): decisions carry the address; robots.txt stays per origin', async () => {
    const events: PolitelyEvent[] = [];
    const robotsFetched: string[] = [];
    const p = createPoliteness({
      userAgent: 'GroupBot/1.0',
      pacing: {
        hostKey: 'ip',
        minDelayMs: 0,
        lookup: async (hostname) => table[hostname] ?? Promise.reject(new Error('ENOTFOUND')),
      },
      logger: false,
      robots: {
        fetch: async (url) => {
          robotsFetched.push(String(url));
          return new Response('User-agent: *\nDisallow: /private\n');
        },
      },
      onEvent: (event) => events.push(event),
    });
    instances.push(p);
    const a = await p.check('http://a.example.test/x');
    const b = await p.check('http://b.example.test/private');
    expect([a.hostKey, b.hostKey]).toEqual(['127.0.0.2', '127.0.0.2']);
    expect(b.allowed).toBe(false);
    expect(robotsFetched.sort()).toEqual([
      'http://a.example.test/robots.txt',
      'http://b.example.test/robots.txt',
    ]);
    expect(adapterKit(p).hostKey('http://a.example.test/y')).toBe('127.0.0.2');
    const unknown = await p.check('http://gone.example.test/');
    expect(unknown.hostKey).toBe('gone.example.test');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'host-lookup-failed', hostname: 'gone.example.test' }),
    );
  });
  it('a decision from memory never keys by name once the address is stale: it waits for check()', async () => {
    const clock = createFakeClock(1_000_000);
    const p = politeOnClock('GroupBot/1.0', clock, {
      pacing: { hostKey: 'ip', lookup: async (hostname) => table[hostname] ?? '127.0.0.9' },
    });
    const kit = adapterKit(p);
    /** check(), the fake clock moved on in small steps until it answers (robots.txt is paced as a page). */
    const checked = async (url: string) => {
      let done = false;
      const decision = p.check(url).finally(() => {
        done = true;
      });
      while (!done) await clock.advance(50);
      return decision;
    };
    expect((await checked('http://a.example.test/x')).hostKey).toBe('127.0.0.2');
    await checked('http://b.example.test/x');
    expect(kit.checkCached('http://b.example.test/y')?.hostKey).toBe('127.0.0.2');
    // Past the address's minute, a key from memory would be the host name: a.example.test and
    // b.example.test, one server, would be paced apart. No answer from memory; check() resolves again.
    await clock.advance(ADDRESS_TTL_MS + 1);
    expect(kit.checkCached('http://b.example.test/y')).toBeUndefined();
    expect((await checked('http://b.example.test/y')).hostKey).toBe('127.0.0.2');
    expect(kit.checkCached('http://a.example.test/y')).toBeUndefined();
  });
});
