/**
 * Page-level robots rules in Crawlee, against real local servers: a page that says `nofollow` (in an
 * X-Robots-Tag header or a robots meta tag) contributes no links to `enqueueLinks` while
 * `respectNofollow` is on (the default), and does with it off; the server's request log is the proof.
 * `pageDirectives(context)` hands the parsed rules to the handler, for HTTP and browser crawlers.
 */
import type { Configuration } from '@crawlee/core';
import type { PageDirectives } from '@politely/core';
import {
  type CrawleePolitenessOptions,
  pageDirectives,
  politenessOf,
  withPoliteness,
} from '@politely/crawlee';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BrowserKind,
  browserUnavailable,
  newBrowserCrawler,
  removeProfiles,
} from '../../../test/helpers/browser.js';
import { html, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { crawleeTestEnv, politeCheerioCrawler } from './harness.js';

afterAll(removeProfiles);

const USER_AGENT = 'DirectiveBot/1.0 (+http://127.0.0.1/bot)';
const links = (...paths: string[]) => paths.map((path) => `<a href="${path}">${path}</a>`).join(' ');
const page = (head: string, body: string) =>
  `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;

/**
 * /header-nofollow: two X-Robots-Tag headers, one for another crawler (noindex), one for everyone
 * (nofollow); /meta-nofollow: `<meta name="directivebot" content="nofollow, max-snippet: 10">`;
 * /open: a header and a meta tag for other crawlers only. Each links to its own two pages.
 */
async function site(ip: string): Promise<TestHost> {
  const host = await startHost({ ip, fallback: html('<p>leaf</p>') });
  host.route('/robots.txt', text('User-agent: *\nAllow: /\n'));
  host.route('/header-nofollow', (_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'x-robots-tag': ['otherbot: noindex', 'nofollow'],
    });
    res.end(page('', links('/from-header/1', '/from-header/2')));
  });
  host.route(
    '/meta-nofollow',
    html(
      page(
        '<meta name="DirectiveBot" content="nofollow, max-snippet: 10">',
        links('/from-meta/1', '/from-meta/2'),
      ),
    ),
  );
  host.route('/open', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-robots-tag': 'otherbot: nofollow' });
    res.end(page('<meta name="otherbot" content="nofollow">', links('/from-open/1', '/from-open/2')));
  });
  return host;
}

const START = ['/header-nofollow', '/meta-nofollow', '/open'];
const LINKED = [
  '/from-header/1',
  '/from-header/2',
  '/from-meta/1',
  '/from-meta/2',
  '/from-open/1',
  '/from-open/2',
];

/** The linked pages the server saw requested. */
const linkedRequested = (host: TestHost) =>
  LINKED.filter((path) => host.log.some((request) => request.path === path));

type Seen = Map<string, PageDirectives>;

/** What every start page's handler does: read the directives, then enqueue the page's links. */
async function handle(
  context: { request: { url: string }; enqueueLinks: () => Promise<unknown> },
  seen: Seen,
) {
  const { pathname } = new URL(context.request.url);
  if (START.includes(pathname)) seen.set(pathname, await pageDirectives(context));
  await context.enqueueLinks();
}

function expectDirectives(seen: Seen): void {
  expect(seen.get('/header-nofollow')).toMatchObject({ nofollow: true, noindex: false });
  expect(seen.get('/header-nofollow')?.rules).toEqual([{ source: 'header', rule: 'nofollow' }]);
  expect(seen.get('/meta-nofollow')).toMatchObject({ nofollow: true, maxSnippet: 10 });
  expect(seen.get('/open')).toMatchObject({ nofollow: false, rules: [] });
}

describe('respectNofollow: HTTP crawlers (CheerioCrawler)', () => {
  async function crawl(ip: string, plugin: CrawleePolitenessOptions) {
    const host = await site(ip);
    const seen: Seen = new Map();
    try {
      const crawler = await politeCheerioCrawler(
        `directives-${ip}`,
        { maxRequestRetries: 0, requestHandler: (context) => handle(context, seen) },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
        plugin,
      );
      try {
        await crawler.run(START.map((path) => host.url(path)));
      } finally {
        await politenessOf(crawler).close();
      }
      return { requested: linkedRequested(host), seen };
    } finally {
      await host.close();
    }
  }

  it('on (the default): a nofollow page contributes no links; the others do', async () => {
    const { requested, seen } = await crawl('127.0.0.177', {});
    expect(requested).toEqual(['/from-open/1', '/from-open/2']);
    expectDirectives(seen);
  });

  it('off: every page contributes its links, and the directives are still read', async () => {
    const { requested, seen } = await crawl('127.0.0.178', { respectNofollow: false });
    expect(requested).toEqual(LINKED);
    expectDirectives(seen);
  });

  it("works with Crawlee's router as the handler (no requestHandler given)", async () => {
    const host = await site('127.0.0.182');
    const seen: Seen = new Map();
    try {
      const crawler = await politeCheerioCrawler(
        'directives-router',
        { maxRequestRetries: 0 },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      );
      crawler.router.addDefaultHandler((context) => handle(context, seen));
      try {
        await crawler.run(START.map((path) => host.url(path)));
      } finally {
        await politenessOf(crawler).close();
      }
      expect(linkedRequested(host)).toEqual(['/from-open/1', '/from-open/2']);
      expectDirectives(seen);
    } finally {
      await host.close();
    }
  });

  it('a robots meta tag between </head> and <body> counts, as HTML parsers put it in the head', async () => {
    // Issue 35.7: Crawlee's Cheerio ($) and the old head scan both missed it, and the links were followed.
    const host = await startHost({ ip: '127.35.7.1', fallback: html('<p>leaf</p>') });
    host.route('/robots.txt', text('User-agent: *\nAllow: /\n'));
    host.route(
      '/after-head',
      html(
        `<!doctype html><html><head><title>t</title></head><meta name="robots" content="nofollow"><body>${links('/after/1', '/after/2')}</body></html>`,
      ),
    );
    let seen: PageDirectives | undefined;
    try {
      const crawler = await politeCheerioCrawler(
        'directives-after-head',
        {
          maxRequestRetries: 0,
          requestHandler: async (context) => {
            seen = await pageDirectives(context);
            await context.enqueueLinks();
          },
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      );
      try {
        await crawler.run([host.url('/after-head')]);
      } finally {
        await politenessOf(crawler).close();
      }
      expect(host.log.map((request) => request.path)).toEqual(['/robots.txt', '/after-head']);
      expect(seen).toMatchObject({ nofollow: true, rules: [{ source: 'meta', rule: 'nofollow' }] });
    } finally {
      await host.close();
    }
  });

  it('respectNofollow takes a boolean, and says so', () => {
    expect(() => withPoliteness({}, { userAgent: USER_AGENT }, { respectNofollow: 'yes' as never })).toThrow(
      /`respectNofollow` to be a boolean, got `"yes"`/,
    );
  });

  it('pageDirectives refuses a context that did not come through withPoliteness', () => {
    expect(() => pageDirectives({ request: { url: 'http://x.test/' } })).toThrow(/withPoliteness/);
  });
});

const unavailable = browserUnavailable();
describe.skipIf(unavailable !== undefined)('respectNofollow: browser crawlers', () => {
  async function crawl(kind: BrowserKind, ip: string, plugin: CrawleePolitenessOptions) {
    const host = await site(ip);
    const seen: Seen = new Map();
    const env = await crawleeTestEnv(`directives-${kind}`);
    const options = withPoliteness(
      {
        requestQueue: env.requestQueue,
        log: env.log,
        maxRequestRetries: 0,
        navigationTimeoutSecs: 20,
        maxConcurrency: 2,
        requestHandler: (context: Parameters<typeof handle>[0]) => handle(context, seen),
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      plugin,
    );
    const crawler = newBrowserCrawler(kind, options, env.config as Configuration);
    try {
      await crawler.run(START.map((path) => host.url(path)));
      return { requested: linkedRequested(host), seen };
    } finally {
      await crawler.teardown();
      await politenessOf(options).close();
      await env.requestQueue.drop();
      await host.close();
    }
  }

  for (const [kind, ip] of [
    ['playwright', '127.0.0.179'],
    ['puppeteer', '127.0.0.180'],
  ] as const) {
    it(`${kind}: a nofollow page (header or meta) contributes no links`, async () => {
      const { requested, seen } = await crawl(kind, ip, {});
      expect(requested).toEqual(['/from-open/1', '/from-open/2']);
      expectDirectives(seen);
    }, 120_000);
  }

  it('playwright, off: every page contributes its links', async () => {
    const { requested } = await crawl('playwright', '127.0.0.181', { respectNofollow: false });
    expect(requested).toEqual(LINKED);
  }, 120_000);
});
