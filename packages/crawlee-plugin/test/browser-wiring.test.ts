/**
 * The request handler of a browser crawler is skipped for a page whose navigation was refused. Pages
 * here are stand-ins with the Playwright shape but no CDP (as on Firefox or WebKit), where
 * `page.route` cannot see redirect hops and the response's redirect chain is judged instead (the core
 * guard's part, tested in packages/core/test/browser/unseen-hops.test.ts). They are installed by the
 * browser pool hook the wiring adds, as PlaywrightCrawler would.
 */
import { LogLevel, log, RequestState } from '@crawlee/core';
import { createPoliteness, type PolitelyEvent } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { playwrightResponse, routeOnlyPage } from '../../../test/helpers/stand-in-pages.js';
import { withPoliteness } from '../src/with-politeness.js';

const quiet = log.child({ prefix: 'test', level: LogLevel.OFF });

type Context = { request: { url: string }; page?: object; response?: unknown };
type PageHook = (page: object) => unknown;

function setup() {
  const politeness = createPoliteness({
    userAgent: 'TestBot/1.0',
    pacing: { minDelayMs: 0 },
    robots: { fetch: async () => new Response('User-agent: *\nDisallow: /private\n') },
  });
  const skips: PolitelyEvent[] = [];
  politeness.subscribe((event) => event.type === 'skip' && skips.push(event));
  const crawleeSkips: unknown[] = [];
  const handled: string[] = [];
  // Options that show a browser crawler (launchContext), as PlaywrightCrawler would be given.
  const wired = withPoliteness(
    {
      requestHandler: async ({ request }: Context) => void handled.push(request.url),
      onSkippedRequest: (args: unknown) => void crawleeSkips.push(args),
      launchContext: {},
      log: quiet,
    },
    politeness,
  ) as unknown as {
    requestHandler: (context: Context) => Promise<void>;
    browserPoolOptions?: { postPageCreateHooks?: PageHook[] };
  };
  const handler = wired.requestHandler;
  const install = async (page: object) => {
    for (const hook of wired.browserPoolOptions?.postPageCreateHooks ?? []) await hook(page);
  };
  return { install, handler, handled, skips, crawleeSkips };
}

describe('browser wiring: the request handler of a refused navigation', () => {
  it('skips the handler when a redirect hop the page could not intercept is disallowed', async () => {
    const { install, handler, handled, skips, crawleeSkips } = setup();
    const page = routeOnlyPage();
    await install(page);
    expect(await page.navigate('http://a.test/go')).toBe('continued');
    const request = { url: 'http://a.test/go', noRetry: false, state: RequestState.BEFORE_NAV as unknown };
    await handler({
      page,
      request,
      response: playwrightResponse('http://a.test/go', 'http://a.test/private/x'),
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
    const { install, handler, handled, skips } = setup();
    const page = routeOnlyPage();
    await install(page);
    await handler({
      page,
      request: { url: 'http://a.test/go' },
      response: playwrightResponse('http://a.test/go', 'http://a.test/ok'),
    });
    await handler({ request: { url: 'http://a.test/http-crawler' } });
    expect(handled).toEqual(['http://a.test/go', 'http://a.test/http-crawler']);
    expect(skips).toEqual([]);
  });

  it('skips the handler for a page whose navigation the guard refused', async () => {
    const { install, handler, handled, skips } = setup();
    const page = routeOnlyPage();
    await install(page);
    expect(await page.navigate('http://a.test/private/y')).toBe('blocked page');
    await handler({ page, request: { url: 'http://a.test/start' } });
    expect(handled).toEqual([]);
    expect(skips).toMatchObject([{ type: 'skip', url: 'http://a.test/private/y', stage: 'navigation' }]);
  });
});
