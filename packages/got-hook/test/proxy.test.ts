/**
 * robots.txt travels the way the pages go: through the got instance the hook extends. The site is
 * `shop.internal`, a name only the forward proxy resolves (as behind a corporate or a scraping proxy),
 * so a robots.txt fetched around the proxy never reaches it; the proxy's own log shows what went
 * through it.
 */
import { lookup } from 'node:dns/promises';
import type { PolitelyEvent } from '@politely/core';
import got from 'got';
import { HttpProxyAgent } from 'http-proxy-agent';
import { afterEach, describe, expect, it } from 'vitest';
import { html, redirect, type TestHost, text } from '../../../test/helpers/hosts.js';
import { type ForwardProxy, startForwardProxy } from '../../../test/helpers/proxy.js';
import { getDisallowedDecision, politenessOf } from '../src/index.js';
import { host, politeOptions, rejectionOf, USER_AGENT } from './setup.js';

const ROBOTS = 'User-agent: *\nDisallow: /private\n';

const proxies: ForwardProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

async function shopBehindProxy(routes: Parameters<typeof host>[0]['routes'] = {}) {
  const site = await host({ routes: { '/robots.txt': text(ROBOTS), ...routes }, fallback: html('ok') });
  const proxy = await startForwardProxy({ names: { 'shop.internal': site.ip } });
  proxies.push(proxy);
  const shop = (path: string) => `http://shop.internal:${site.port}${path}`;
  return { site, proxy, shop };
}

const pathsOf = (site: TestHost) => site.log.map((request) => request.path);

describe('robots.txt through the got instance', () => {
  it('the premise: Node cannot resolve shop.internal on its own', async () => {
    await expect(lookup('shop.internal')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('with http-proxy-agent as got documents it: /a and /b fetched, /private/x refused, robots.txt once through the proxy', async () => {
    const { site, proxy, shop } = await shopBehindProxy();
    const client = got.extend(
      { agent: { http: new HttpProxyAgent(proxy.url) }, headers: { 'x-crawl': 'run-7' } },
      politeOptions(),
      { retry: { limit: 0 } },
    );

    const a = await client(shop('/a'));
    const b = await client(shop('/b'));
    const refused = await rejectionOf(client(shop('/private/x')));

    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(refused.code).toBe('ERR_ROBOTS_DISALLOWED');
    expect(getDisallowedDecision(refused)).toMatchObject({ reason: 'disallowed', source: 'robots.txt' });
    expect(pathsOf(site)).toEqual(['/robots.txt', '/a', '/b']);
    expect(proxy.log.map((entry) => entry.url)).toEqual([shop('/robots.txt'), shop('/a'), shop('/b')]);
    // The instance's own headers go with it; the User-Agent is the crawler's.
    const robots = site.requests('/robots.txt')[0];
    expect(robots?.headers['user-agent']).toBe(USER_AGENT);
    expect(robots?.headers['x-crawl']).toBe('run-7');
  });

  it('follows a robots.txt redirect one hop at a time, each hop through the proxy', async () => {
    const { site, proxy, shop } = await shopBehindProxy({
      '/robots.txt': redirect('/rules.txt'),
      '/rules.txt': text(ROBOTS),
    });
    const client = got.extend({ agent: { http: new HttpProxyAgent(proxy.url) } }, politeOptions());

    expect((await client(shop('/a'))).statusCode).toBe(200);
    expect((await rejectionOf(client(shop('/private/x')))).code).toBe('ERR_ROBOTS_DISALLOWED');

    expect(pathsOf(site)).toEqual(['/robots.txt', '/rules.txt', '/a']);
    expect(proxy.log.map((entry) => entry.path)).toEqual(['/robots.txt', '/rules.txt', '/a']);
  });

  it("uses the instance's dnsLookup for robots.txt as for the pages", async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS) }, fallback: html('ok') });
    const resolved: string[] = [];
    const dnsLookup = ((hostname: string, options: unknown, callback: unknown) => {
      resolved.push(hostname);
      const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      const all = typeof options === 'object' && (options as { all?: boolean }).all;
      if (hostname !== 'shop.internal') done(Object.assign(new Error('blocked'), { code: 'ENOTFOUND' }));
      else if (all) done(null, [{ address: site.ip, family: 4 }]);
      else done(null, site.ip, 4);
    }) as never;
    const client = got.extend({ dnsLookup }, politeOptions());

    expect((await client(`http://shop.internal:${site.port}/a`)).statusCode).toBe(200);

    expect(pathsOf(site)).toEqual(['/robots.txt', '/a']);
    expect(resolved).toContain('shop.internal');
  });

  it('an explicit fetch option still wins', async () => {
    const { site, proxy, shop } = await shopBehindProxy();
    const asked: string[] = [];
    const client = got.extend(
      { agent: { http: new HttpProxyAgent(proxy.url) } },
      politeOptions({
        robots: {
          fetch: async (url) => {
            asked.push(url);
            return new Response('User-agent: *\nDisallow: /a\n', { status: 200 });
          },
        },
      }),
    );

    expect((await rejectionOf(client(shop('/a')))).code).toBe('ERR_ROBOTS_DISALLOWED');
    expect((await client(shop('/b'))).statusCode).toBe(200);

    expect(asked).toEqual([shop('/robots.txt')]);
    expect(pathsOf(site)).toEqual(['/b']);
  });
});

describe('an unreachable robots.txt says so', () => {
  it('around the proxy: fails with the DNS failure, as got does, the refusal as its cause', async () => {
    const { site, shop } = await shopBehindProxy();
    const options = politeOptions();
    const skips: PolitelyEvent[] = [];
    politenessOf(options).subscribe((event) => {
      if (event.type === 'skip') skips.push(event);
    });
    const client = got.extend(options, { retry: { limit: 0 } });

    const refused = await rejectionOf(client(shop('/a')));

    expect(refused.code).toBe('ENOTFOUND');
    expect(refused.message).toContain('getaddrinfo ENOTFOUND shop.internal');
    expect(getDisallowedDecision(refused)).toMatchObject({
      reason: 'unreachable',
      robots: { outcome: 'unreachable', status: 0, error: expect.stringContaining('ENOTFOUND') },
    });
    expect(site.log).toHaveLength(0);
    expect(skips).toMatchObject([
      { type: 'skip', stage: 'send', decision: { robots: { error: expect.stringContaining('ENOTFOUND') } } },
    ]);
  });

  it('through a proxy that cannot reach the site: the refusal names its answer', async () => {
    const { proxy, site } = await shopBehindProxy();
    const client = got.extend({ agent: { http: new HttpProxyAgent(proxy.url) } }, politeOptions());

    const refused = await rejectionOf(client(`http://elsewhere.internal:${site.port}/a`));

    expect(refused.message).toContain('robots.txt unreachable: HTTP 502');
    expect(proxy.requests('/robots.txt')).toHaveLength(1);
    expect(proxy.requests('/a')).toHaveLength(0);
  });
});
