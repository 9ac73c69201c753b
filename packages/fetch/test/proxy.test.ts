/**
 * robots.txt goes through the fetch politeFetch wraps, so a proxy given to that fetch carries it too.
 * The site is `shop.internal`, a name only the forward proxy resolves; the proxy's own log shows what
 * went through it.
 */
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import { type ForwardProxy, startForwardProxy } from '../../../test/helpers/proxy.js';
import { getDisallowedDecision } from '../src/index.js';
import { host, paths, polite, rejectionOf, USER_AGENT } from './setup.js';

const ROBOTS = 'User-agent: *\nDisallow: /private\n';

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((item) => item.close()));
});

async function shopBehindProxy() {
  const site = await host({ routes: { '/robots.txt': text(ROBOTS) }, fallback: html('ok') });
  const proxy: ForwardProxy = await startForwardProxy({ names: { 'shop.internal': site.ip } });
  closing.push(proxy);
  // Absolute-form requests for http:// targets rather than a CONNECT tunnel (the proxy offers none).
  const dispatcher = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
  closing.push(dispatcher);
  const shop = (path: string) => `http://shop.internal:${site.port}${path}`;
  return { site, proxy, dispatcher, shop };
}

describe("robots.txt through the wrapped fetch's proxy", () => {
  it("undici's ProxyAgent as the dispatcher: /a and /b fetched, /private/x refused, robots.txt once through the proxy", async () => {
    const { site, proxy, dispatcher, shop } = await shopBehindProxy();
    const proxied: typeof undiciFetch = (input, init) => undiciFetch(input, { ...init, dispatcher });
    const fetch = polite({ fetch: proxied });

    const a = await fetch(shop('/a'));
    const b = await fetch(shop('/b'));
    const refused = await rejectionOf(fetch(shop('/private/x')));

    expect([a.status, b.status]).toEqual([200, 200]);
    expect(refused.code).toBe('ERR_ROBOTS_DISALLOWED');
    expect(getDisallowedDecision(refused)).toMatchObject({ reason: 'disallowed', source: 'robots.txt' });
    expect(paths(site)).toEqual(['/robots.txt', '/a', '/b']);
    expect(proxy.log.map((entry) => entry.url)).toEqual([shop('/robots.txt'), shop('/a'), shop('/b')]);
    expect(site.requests('/robots.txt')[0]?.headers['user-agent']).toBe(USER_AGENT);
  });

  it('without the proxy, the refusal says robots.txt was unreachable and why', async () => {
    const { site, shop } = await shopBehindProxy();
    const fetch = polite();

    const refused = await rejectionOf(fetch(shop('/a')));

    // As fetch rejects when the page itself gets no answer, the refusal down the cause chain.
    expect(refused).toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ENOTFOUND' },
    });
    expect(String((refused.cause as Error).message)).toContain('getaddrinfo ENOTFOUND shop.internal');
    expect(getDisallowedDecision(refused)?.robots).toMatchObject({ outcome: 'unreachable', status: 0 });
    expect(site.log).toHaveLength(0);
  });
});
