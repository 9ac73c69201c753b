/**
 * Redirect hops a page's interception could not see (Playwright's `page.route` on Firefox and WebKit
 * is not called for them) are judged from the navigation's response: `blockedNavigation(page,
 * response)`. No Firefox or WebKit here: pages and responses are stand-ins with the libraries' shapes
 * (Playwright: `request().redirectedFrom()`; Puppeteer: `request().redirectChain()`).
 */
import { createPoliteness, type PolitelyEvent } from '@politely/core';
import { createPageGuard } from '@politely/core/browser';
import { describe, expect, it } from 'vitest';
import { playwrightResponse, routeOnlyPage } from '../../../../test/helpers/stand-in-pages.js';

function setup() {
  const politeness = createPoliteness({
    userAgent: 'TestBot/1.0',
    pacing: { minDelayMs: 0 },
    logger: false,
    robots: { fetch: async () => new Response('User-agent: *\nDisallow: /private\n') },
  });
  const skips: PolitelyEvent[] = [];
  politeness.subscribe((event) => event.type === 'skip' && skips.push(event));
  return { politeness, guard: createPageGuard(politeness), skips };
}

/** A Puppeteer-shaped page: cooperative request interception, every hop seen. */
function puppeteerPage() {
  return { setRequestInterception: async () => {}, on: () => {}, mainFrame: () => ({}) };
}

/** A Puppeteer response: the last request lists the ones before it. */
function puppeteerResponse(...urls: string[]) {
  const hop = (url: string) => ({ url: () => url });
  const last = urls.at(-1) ?? '';
  return { request: () => ({ ...hop(last), redirectChain: () => urls.slice(0, -1).map(hop) }) };
}

describe('blockedNavigation(page, response): hops the interception could not see', () => {
  it('refuses a page.route page whose response came through a disallowed hop, and reports it', async () => {
    const { politeness, guard, skips } = setup();
    const page = routeOnlyPage();
    expect(await guard.install(page)).toBe('route');
    expect(await page.navigate('http://a.test/go')).toBe('continued');
    const response = playwrightResponse('http://a.test/go', 'http://a.test/private/x', 'http://a.test/ok');
    expect(await guard.blockedNavigation(page, response)).toMatchObject({
      allowed: false,
      reason: 'disallowed',
      url: 'http://a.test/private/x',
    });
    expect(skips).toMatchObject([{ type: 'skip', stage: 'navigation', url: 'http://a.test/private/x' }]);
    await politeness.close();
  });

  it('lets a chain through when every hop after the first is allowed, whatever the first', async () => {
    const { politeness, guard, skips } = setup();
    const page = routeOnlyPage();
    await guard.install(page);
    // The first request was judged as it went out; what the chain adds is the hops after it.
    const response = playwrightResponse('http://a.test/private/start', 'http://a.test/ok');
    expect(await guard.blockedNavigation(page, response)).toBeUndefined();
    expect(await guard.blockedNavigation(page, null)).toBeUndefined();
    expect(await guard.blockedNavigation(page, {})).toBeUndefined();
    expect(skips).toEqual([]);
    await politeness.close();
  });

  it("reads Puppeteer's redirectChain() for a page this guard does not intercept", async () => {
    const { politeness, guard } = setup();
    const response = puppeteerResponse('http://a.test/go', 'http://a.test/private/y');
    expect(await guard.blockedNavigation(puppeteerPage(), response)).toMatchObject({
      url: 'http://a.test/private/y',
    });
    await politeness.close();
  });

  it('trusts a page intercepted with every hop seen, and answers a refused navigation once', async () => {
    const { politeness, guard } = setup();
    const page = puppeteerPage();
    expect(await guard.install(page)).toBe('puppeteer');
    const response = puppeteerResponse('http://a.test/go', 'http://a.test/private/y');
    expect(await guard.blockedNavigation(page, response)).toBeUndefined();

    const routed = routeOnlyPage();
    await guard.install(routed);
    expect(await routed.navigate('http://a.test/private/z')).toBe('blocked page');
    expect(await guard.blockedNavigation(routed)).toMatchObject({ url: 'http://a.test/private/z' });
    expect(await guard.blockedNavigation(routed)).toBeUndefined();
    await politeness.close();
  });
});
