/**
 * One `politenessOf`, defined in core: it finds the Politeness behind what each adapter made (got's
 * extend-options and a got instance extended with them, a polite fetch, a Crawlee crawler and its
 * options, a frontier, a page guard), and two adapters imported together agree. Shown by what a user
 * reads through it: the counters of the requests the adapter made, and the instance's identity.
 */

import { BasicCrawler } from '@crawlee/basic';
import { createPoliteness, type Politeness, politenessOf } from '@politely/core';
import { createPageGuard } from '@politely/core/browser';
import { createFrontier } from '@politely/core/frontier';
import { withPoliteness } from '@politely/crawlee';
import { politeFetch, politenessOf as politenessOfFromFetch } from '@politely/fetch';
import { politeGot, politenessOf as politenessOfFromGot } from '@politely/got';
import got from 'got';
import { afterEach, describe, expect, it } from 'vitest';
import { html, startHost, type TestHost, text } from './helpers/hosts.js';

const USER_AGENT = 'OfBot/1.0 (+http://127.0.0.1/bot)';
const OPTIONS = { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } } as const;

const hosts: TestHost[] = [];
const made: Politeness[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((site) => site.close()));
  await Promise.all(made.splice(0).map((politeness) => politeness.close()));
});

async function site(ip: string): Promise<TestHost> {
  const started = await startHost({
    ip,
    routes: { '/robots.txt': text('User-agent: *\nDisallow: /private\n'), '/page': html('ok') },
  });
  hosts.push(started);
  return started;
}

function kept(politeness: Politeness): Politeness {
  made.push(politeness);
  return politeness;
}

describe('politenessOf', () => {
  it("finds a got instance's Politeness through got.extend, and counts what the instance sent", async () => {
    const web = await site('127.0.0.61');
    const options = politeGot(OPTIONS);
    const politeness = kept(politenessOf(options));
    const client = got.extend(options, { retry: { limit: 0 } });
    const further = client.extend({ headers: { 'x-more': '1' } });
    expect(politenessOf(client)).toBe(politeness);
    expect(politenessOf(further)).toBe(politeness);
    await further(web.url('/page'));
    await expect(client(web.url('/private'))).rejects.toThrow();
    expect(politenessOf(client).stats().decisions).toMatchObject({ allowed: 1, disallowed: 1 });
    expect(web.requests('/page')).toHaveLength(1);
    expect(web.requests('/private')).toHaveLength(0);
  });

  it("finds a polite fetch's Politeness, and counts what it sent", async () => {
    const web = await site('127.0.0.62');
    const fetch = politeFetch(OPTIONS);
    kept(politenessOf(fetch));
    await (await fetch(web.url('/page'))).text();
    expect(politenessOf(fetch).stats().decisions).toMatchObject({ allowed: 1, disallowed: 0 });
    expect(politenessOf(fetch).userAgent).toBe(USER_AGENT);
  });

  it("finds a Crawlee crawler's Politeness, and its options' (before the crawler is built)", () => {
    const shared = kept(createPoliteness(OPTIONS));
    const options = withPoliteness({ requestHandler: async () => {} }, shared);
    expect(politenessOf(options)).toBe(shared);
    expect(politenessOf(new BasicCrawler(options))).toBe(shared);
  });

  it('finds the Politeness a frontier drives and a page guard judges by', () => {
    const politeness = kept(createPoliteness(OPTIONS));
    expect(politenessOf(createFrontier(politeness))).toBe(politeness);
    expect(politenessOf(createPageGuard(politeness))).toBe(politeness);
    expect(politenessOf(politeness)).toBe(politeness);
  });

  it('two adapters imported together: one function, each object answers with its own Politeness', async () => {
    const web = await site('127.0.0.63');
    expect(politenessOfFromGot).toBe(politenessOf);
    expect(politenessOfFromFetch).toBe(politenessOf);
    const client = got.extend(politeGot(OPTIONS));
    const fetch = politeFetch(OPTIONS);
    kept(politenessOfFromGot(client));
    kept(politenessOfFromGot(fetch));
    // The got adapter's name works on a polite fetch, and the fetch adapter's on a got instance.
    expect(politenessOfFromGot(fetch)).not.toBe(politenessOfFromFetch(client));
    await client(web.url('/page'));
    expect(politenessOfFromFetch(client).stats().decisions.allowed).toBe(1);
    expect(politenessOfFromGot(fetch).stats().decisions.allowed).toBe(0);
    // One shared instance behind both: both answer with it.
    const shared = kept(createPoliteness(OPTIONS));
    expect(politenessOfFromFetch(got.extend(politeGot(shared)))).toBe(shared);
    expect(politenessOfFromGot(politeFetch(shared))).toBe(shared);
  });

  it('anything politely did not make is a TypeError that says what it expects', () => {
    for (const value of [{}, () => {}, got, null]) {
      expect(() => politenessOf(value as object)).toThrow(
        /politenessOf\(\) expects what a politely adapter made/,
      );
    }
  });
});
