/**
 * The request handler of a browser crawler is skipped for a page whose navigation was refused. Pages
 * here are stand-ins with the Playwright shape but no CDP (as on Firefox or WebKit), where
 * `page.route` cannot see redirect hops and the response's redirect chain is judged instead.
 */
import { LogLevel, log, RequestState } from '@crawlee/core';
import { createPoliteness, type PolitelyEvent } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { BrowserGuard } from '../src/browser-guard.js';
import { interceptionOf, interceptPage } from '../src/page-interception.js';
import { Reporter } from '../src/reporter.js';
import { skipBlockedNavigation } from '../src/skip-blocked-navigation.js';

const quiet = log.child({ prefix: 'test', level: LogLevel.OFF });

function setup() {
  const politeness = createPoliteness({
    userAgent: 'TestBot/1.0',
    minDelayMs: 0,
    fetch: async () => new Response('User-agent: *\nDisallow: /private\n'),
  });
  const skips: PolitelyEvent[] = [];
  politeness.subscribe((event) => event.type === 'skip' && skips.push(event));
  const crawleeSkips: unknown[] = [];
  const reporter = new Reporter({
    politeness,
    log: quiet,
    onSkippedRequest: (args) => void crawleeSkips.push(args),
  });
  const guard = new BrowserGuard({
    politeness,
    reporter,
    onSent: () => {},
    subresources: 'check',
    spacing: 'response',
    userAgent: undefined,
    log: quiet,
  });
  const handled: string[] = [];
  const handler = skipBlockedNavigation(
    async ({ request }: { request: { url: string }; page?: object; response?: unknown }) =>
      void handled.push(request.url),
    {
      guard,
      politeness,
      reporter,
      uninterceptedPage: () => {},
    },
  );
  return { guard, handler, handled, skips, crawleeSkips };
}

/** A Playwright-shaped page without CDP: interception falls back to page.route. */
function routeOnlyPage() {
  return { route: async () => {}, context: () => ({}), mainFrame: () => ({}), on: () => {} };
}

/** A Playwright response at the end of a redirect chain. */
function responseThrough(...urls: string[]) {
  type Hop = { url(): string; redirectedFrom(): Hop | null };
  let hop: Hop | null = null;
  for (const url of urls) {
    const previous: Hop | null = hop;
    hop = { url: () => url, redirectedFrom: () => previous };
  }
  return { request: () => hop };
}

describe('skipBlockedNavigation', () => {
  it('skips the handler when a redirect hop the page could not intercept is disallowed', async () => {
    const { guard, handler, handled, skips, crawleeSkips } = setup();
    const page = routeOnlyPage();
    await interceptPage(page, guard);
    expect(interceptionOf(page)).toBe('route');
    const request = { url: 'http://a.test/go', noRetry: false, state: RequestState.BEFORE_NAV as unknown };
    await handler({
      page,
      request,
      response: responseThrough('http://a.test/go', 'http://a.test/private/x'),
    });
    expect(handled).toEqual([]);
    expect(request).toMatchObject({ noRetry: true, state: RequestState.SKIPPED });
    expect(skips).toMatchObject([
      {
        type: 'skip',
        url: 'http://a.test/private/x',
        stage: 'navigation',
        decision: { reason: 'disallowed' },
      },
    ]);
    expect(crawleeSkips).toEqual([{ url: 'http://a.test/go', reason: 'robotsTxt' }]);
  });

  it('runs the handler when every hop is allowed, and for pages of crawlers without a page', async () => {
    const { guard, handler, handled, skips } = setup();
    const page = routeOnlyPage();
    await interceptPage(page, guard);
    await handler({
      page,
      request: { url: 'http://a.test/go' },
      response: responseThrough('http://a.test/go', 'http://a.test/ok'),
    });
    await handler({ request: { url: 'http://a.test/http-crawler' } });
    expect(handled).toEqual(['http://a.test/go', 'http://a.test/http-crawler']);
    expect(skips).toEqual([]);
  });

  it('skips the handler for a page whose navigation the guard refused', async () => {
    const { guard, handler, handled } = setup();
    const page = routeOnlyPage();
    await interceptPage(page, guard);
    expect(await guard.navigation(page, 'http://a.test/private/y')).toMatchObject({ kind: 'block' });
    await handler({ page, request: { url: 'http://a.test/start' } });
    expect(handled).toEqual([]);
  });
});
