/**
 * The plugin inside real Crawlee crawlers, with the real facade, against loopback hosts. What is
 * asserted is what a user sees: Crawlee's statistics and callbacks, the plugin's counters, and the
 * servers' own request logs.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { BasicCrawler, type BasicCrawlerOptions } from '@crawlee/basic';
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import {
  type BaseHttpClient,
  type HttpRequest,
  Log,
  Logger,
  LogLevel,
  ProxyConfiguration,
  RequestList,
  type StreamingHttpResponse,
} from '@crawlee/core';
import { HttpCrawler, type HttpCrawlerOptions } from '@crawlee/http';
import { createPoliteness, getDisallowedDecision } from '@politely/core';
import { crawlStats, politenessOf, withPoliteness } from '@politely/crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import { hang, html, redirect, startHost, type TestHost, text } from '../../../test/helpers/hosts.js';
import { judgePacing, startWireCapture, type WireRequest } from '../../../test/helpers/wire.js';
import { crawleeTestEnv, politeCheerioCrawler } from './harness.js';

const USER_AGENT = 'PluginBot/1.0 (+http://127.0.0.1/bot)';
const open: TestHost[] = [];

async function host(ip: string, routes: Parameters<typeof startHost>[0] = {}): Promise<TestHost> {
  const started = await startHost({ ip, fallback: html('<p>page</p>'), ...routes });
  open.push(started);
  return started;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
});

/** A Crawlee logger that keeps each line's level and message. */
class CapturingLogger extends Logger {
  private readonly lines: { level: number; message: string }[] = [];
  constructor() {
    super({});
  }
  override _log(level: number, message: string): void {
    this.lines.push({ level, message });
  }
  at(level: number): string[] {
    return this.lines.filter((line) => line.level === level).map((line) => line.message);
  }
}

const pagesRequested = (target: TestHost) => target.log.filter((request) => request.path !== '/robots.txt');

describe('skips with Crawlee bookkeeping', () => {
  it('counts a disallowed request neither as finished nor failed, and reports it as robotsTxt', async () => {
    const site = await host('127.0.0.31', {
      routes: {
        '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
        '/': html('<a href="/a">a</a> <a href="/private/linked">p</a> <a href="/b">b</a>'),
      },
    });
    const crawleeSkips: unknown[] = [];
    const crawler = await politeCheerioCrawler(
      'skips',
      {
        onSkippedRequest: (skip) => void crawleeSkips.push(skip),
        requestHandler: async ({ enqueueLinks }) => {
          await enqueueLinks({ strategy: 'same-origin' });
        },
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
    );
    const stats = await crawler.run([site.url('/'), site.url('/private/start')]);

    expect(stats.requestsFinished).toBe(3);
    expect(stats.requestsFailed).toBe(0);
    expect(crawleeSkips).toEqual(
      expect.arrayContaining([
        { url: site.url('/private/start'), reason: 'robotsTxt' },
        { url: site.url('/private/linked'), reason: 'robotsTxt' },
      ]),
    );
    expect(crawleeSkips).toHaveLength(2);
    expect(site.requests('/private/start')).toHaveLength(0);
    expect(site.requests('/private/linked')).toHaveLength(0);
    const counters = crawlStats(crawler);
    expect(counters.fetched).toBe(3);
    expect(counters.skipped.disallowed).toBe(2);
    expect(counters.robotsFetches).toBe(1);
    expect(counters.hosts).toEqual([
      expect.objectContaining({
        host: '127.0.0.31',
        fetched: 3,
        parked: 0,
        skipped: expect.objectContaining({ disallowed: 2 }),
      }),
    ]);
  });

  it('reports a disallowed URL linked from 4 pages once per crawl', async () => {
    const link = '<a href="/private/x">x</a>';
    const site = await host('127.0.0.37', {
      routes: {
        '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
        '/': html(`${link} <a href="/1">1</a> <a href="/2">2</a> <a href="/3">3</a>`),
        '/1': html(link),
        '/2': html(link),
        '/3': html(link),
      },
    });
    const crawleeSkips: unknown[] = [];
    const skips: unknown[] = [];
    const crawler = await politeCheerioCrawler(
      'skip-once',
      {
        onSkippedRequest: (skip) => void crawleeSkips.push(skip),
        requestHandler: async ({ enqueueLinks }) => void (await enqueueLinks()),
      },
      {
        userAgent: USER_AGENT,
        pacing: { minDelayMs: 0 },
        onEvent: (event) => {
          if (event.type === 'skip') skips.push({ url: event.url, stage: event.stage });
        },
      },
    );
    await crawler.run([site.url('/')]);
    expect(site.requests('/private/x')).toHaveLength(0);
    expect(crawleeSkips).toEqual([{ url: site.url('/private/x'), reason: 'robotsTxt' }]);
    // Found on four pages, dropped while being enqueued once its rules were known: one skip event.
    expect(skips).toEqual([
      { url: site.url('/private/x'), stage: expect.stringMatching(/^(enqueue|dequeue)$/) },
    ]);
    expect(crawlStats(crawler).skipped.disallowed).toBe(1);
  });

  it('skips a request whose redirect hop robots.txt refuses: onSkippedRequest, a skip event, one info line, no failure', async () => {
    const site = await host('127.0.0.32', {
      routes: {
        '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
        '/go': redirect('/private/target'),
      },
    });
    const env = await crawleeTestEnv('redirect');
    const lines = new CapturingLogger();
    const failures: unknown[] = [];
    const handled: string[] = [];
    const crawleeSkips: unknown[] = [];
    const skipEvents: unknown[] = [];
    const crawler = new CheerioCrawler(
      withPoliteness<CheerioCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: new Log({ level: LogLevel.DEBUG, logger: lines, prefix: 'redirect' }),
          maxRequestRetries: 3,
          requestHandler: async ({ request }) => void handled.push(request.url),
          failedRequestHandler: async (_context, error) => void failures.push(error),
          onSkippedRequest: (skip) => void crawleeSkips.push(skip),
        },
        {
          userAgent: USER_AGENT,
          pacing: { minDelayMs: 0 },
          onEvent: (event) => {
            if (event.type === 'skip') skipEvents.push({ url: event.url, stage: event.stage });
          },
        },
      ),
      env.config,
    );
    const stats = await crawler.run([site.url('/go'), site.url('/fine')]);

    expect(stats.requestsFailed).toBe(0);
    expect(failures).toEqual([]);
    expect(handled).toEqual([site.url('/fine')]);
    expect(crawleeSkips).toEqual([{ url: site.url('/go'), reason: 'robotsTxt' }]);
    expect(skipEvents).toEqual([{ url: site.url('/private/target'), stage: 'redirect' }]);
    expect(site.requests('/go')).toHaveLength(1);
    expect(site.requests('/private/target')).toHaveLength(0);
    expect(lines.at(LogLevel.ERROR)).toEqual([]);
    expect(lines.at(LogLevel.WARNING)).toEqual([]);
    expect(lines.at(LogLevel.INFO).filter((line) => line.includes('robots.txt'))).toEqual([
      'Skipping requests to 127.0.0.32 per robots.txt (further skips are logged at DEBUG)',
    ]);
    expect(crawlStats(crawler).skipped.redirect).toBe(1);
    // Every decision counted, as got and fetch count theirs: /go and /fine at dequeue, the hop.
    expect(politenessOf(crawler).stats().decisions).toMatchObject({ allowed: 2, disallowed: 1 });
  });

  it("a handler's own request redirected into a disallowed path is refused with an error the handler sees", async () => {
    const site = await host('127.0.0.33', {
      routes: {
        '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
        '/api': redirect('/private/data'),
      },
    });
    const errors: unknown[] = [];
    const crawleeSkips: unknown[] = [];
    const crawler = await politeCheerioCrawler(
      'own-redirect',
      {
        onSkippedRequest: (skip) => void crawleeSkips.push(skip),
        requestHandler: async ({ sendRequest }) => {
          await sendRequest({ url: site.url('/api') }).catch((error: unknown) => void errors.push(error));
        },
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
    );
    const stats = await crawler.run([site.url('/')]);
    expect(stats.requestsFinished).toBe(1);
    expect(site.requests('/private/data')).toHaveLength(0);
    expect(getDisallowedDecision(errors[0])).toMatchObject({ url: site.url('/private/data') });
    expect(crawleeSkips).toEqual([]);
  });

  it('checks requests from a RequestList too', async () => {
    const site = await host('127.0.0.33', {
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /no\n') },
    });
    const env = await crawleeTestEnv('list');
    const requestList = await RequestList.open(null, [site.url('/yes'), site.url('/no/1')]);
    const handled: string[] = [];
    const crawler = new BasicCrawler(
      withPoliteness<BasicCrawlerOptions>(
        {
          requestList,
          requestQueue: env.requestQueue,
          log: env.log,
          requestHandler: async ({ request, sendRequest }) => {
            await sendRequest();
            handled.push(request.url);
          },
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    await crawler.run();
    expect(handled).toEqual([site.url('/yes')]);
    expect(pagesRequested(site).map((request) => request.path)).toEqual(['/yes']);
  });
});

describe('context.sendRequest', () => {
  it('refuses a disallowed URL with an error the guards recognise, and the server never sees it', async () => {
    const site = await host('127.0.0.48', {
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /api\n') },
    });
    const env = await crawleeTestEnv('send');
    const outcomes: string[] = [];
    const skips: unknown[] = [];
    const crawler = new BasicCrawler(
      withPoliteness<BasicCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          requestHandler: async ({ sendRequest }) => {
            await sendRequest();
            try {
              await sendRequest({ url: site.url('/api/data') });
              outcomes.push('fetched');
            } catch (error) {
              outcomes.push(getDisallowedDecision(error)?.reason ?? String(error));
            }
          },
        },
        {
          userAgent: USER_AGENT,
          pacing: { minDelayMs: 0 },
          onEvent: (event) => event.type === 'skip' && skips.push([event.url, event.stage]),
        },
      ),
      env.config,
    );
    await crawler.run([site.url('/page')]);
    expect(outcomes).toEqual(['disallowed']);
    expect(skips).toEqual([[site.url('/api/data'), 'send']]);
    expect(pagesRequested(site).map((request) => request.path)).toEqual(['/page']);
  });
});

describe('pacing without holding slots', () => {
  it('a Crawl-delay host waits while another host runs through, on a single concurrency slot', async () => {
    const slow = await host('127.0.0.34', {
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 1.5\n') },
    });
    const fast = await host('127.0.0.35', { routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') } });
    const env = await crawleeTestEnv('slots');
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        { requestQueue: env.requestQueue, log: env.log, maxConcurrency: 1, requestHandler: async () => {} },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    const slowPages = [1, 2].map((index) => slow.url(`/s${index}`));
    const fastPages = [1, 2, 3, 4, 5, 6].map((index) => fast.url(`/f${index}`));
    const wire = await wireOf([slow, fast], () => crawler.run([...slowPages, ...fastPages]));

    expect(pagesRequested(slow)).toHaveLength(2);
    expect(pagesRequested(fast)).toHaveLength(6);
    // Order at the wire, not a race against the clock: had the second slow request held the one slot
    // while it waited out the Crawl-delay, no fast page could have gone before it. The 1.5 s delay is
    // the generous window in which the first fast page has to get out, however busy the machine.
    const paged = (target: TestHost) =>
      wire.filter((request) => request.ip === target.ip && request.path !== '/robots.txt').map((r) => r.at);
    const secondSlow = paged(slow)[1] ?? 0;
    expect(paged(fast)).toHaveLength(6);
    expect(Math.min(...paged(fast))).toBeLessThan(secondSlow);
    expect(judgePacing(wire, 1500).get(slow.ip)?.violations).toEqual([]);
  });

  it('a host whose robots.txt hangs costs one timeout per round of attempts, not one per request', async () => {
    const stuck = await host('127.0.0.36', { routes: { '/robots.txt': hang() } });
    const env = await crawleeTestEnv('hang');
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          maxConcurrency: 5,
          maxRequestRetries: 0,
          requestHandler: async () => {},
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 }, robots: { timeoutMs: 300 } },
      ),
      env.config,
    );
    const stats = await crawler.run([1, 2, 3, 4, 5].map((index) => stuck.url(`/p${index}`)));
    // A timeout is a transport failure: the requests fail with ETIMEDOUT as a page that timed out
    // would (issue 40.7), after one fetch as they were queued and one as they went to navigate.
    expect(stuck.requests('/robots.txt').length).toBeLessThanOrEqual(2);
    expect(pagesRequested(stuck)).toHaveLength(0);
    expect(stats.requestsFailed).toBe(5);
  });
});

describe('where the pacing slot is taken (judged at the wire, the asked delay as the floor)', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('HTTP crawlers reserve when the request goes out, so a slow start never lets another crowd it', async () => {
    const site = await host('127.0.0.51', {
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.2\n') },
    });
    const shared = createPoliteness({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } });
    const crawl = async (name: string, lagMs: number) => {
      const env = await crawleeTestEnv(`send-lag-${name}`);
      const crawler = new HttpCrawler(
        withPoliteness<HttpCrawlerOptions>(
          {
            requestQueue: env.requestQueue,
            log: env.log,
            // Navigation starts long after the request left the queue (a slow hook, a busy CPU): a
            // slot reserved at dequeue would be stale by then, and the other crawler's requests fit in.
            preNavigationHooks: [async () => void (await sleep(lagMs))],
            requestHandler: async () => {},
          },
          shared,
        ),
        env.config,
      );
      await crawler.run([1, 2, 3].map((index) => site.url(`/${name}${index}`)));
    };
    const wire = await wireOf([site], async () => {
      await Promise.all([crawl('slow', 500), crawl('quick', 0)]);
    });
    await shared.close();
    const judged = judgePacing(wire, 200).get(site.ip);
    expect(judged?.times).toHaveLength(6);
    expect(judged?.violations).toEqual([]);
  });

  it('HTTP crawlers pace each redirect hop as it goes out', async () => {
    const site = await host('127.0.0.52', {
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.3\n'), '/go': redirect('/target') },
    });
    const env = await crawleeTestEnv('send-hops');
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        { requestQueue: env.requestQueue, log: env.log, requestHandler: async () => {} },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    const wire = await wireOf([site], () => crawler.run([site.url('/go')]));
    expect(pagesRequested(site).map((request) => request.path)).toEqual(['/go', '/target']);
    expect(judgePacing(wire, 300).get(site.ip)).toMatchObject({ violations: [], gaps: [expect.any(Number)] });
  });

  it('BasicCrawler fetching by its own means holds its host until the request is done, then a full delay', async () => {
    const site = await host('127.0.0.53', {
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.2\n') },
    });
    const env = await crawleeTestEnv('basic-own-fetch');
    const crawler = new BasicCrawler(
      withPoliteness<BasicCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          minConcurrency: 3,
          maxConcurrency: 3,
          requestHandler: async ({ request }) => {
            await sleep(50); // the handler does something first: its fetch goes out late
            await (await fetch(request.url)).text();
          },
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    const wire = await wireOf([site], () => crawler.run([1, 2, 3, 4].map((index) => site.url(`/b${index}`))));
    const judged = judgePacing(wire, 200).get(site.ip);
    expect(judged?.times).toHaveLength(4);
    expect(judged?.violations).toEqual([]);
  });

  it('a client of your own (not got) gets the same send-time pacing and redirect checks', async () => {
    const site = await host('127.0.0.55', {
      routes: {
        '/robots.txt': text('User-agent: *\nCrawl-delay: 0.2\nDisallow: /private\n'),
        '/h2': redirect('/private/x'),
      },
    });
    const env = await crawleeTestEnv('own-client');
    const failed: string[] = [];
    const skipped: string[] = [];
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          minConcurrency: 3,
          maxConcurrency: 3,
          maxRequestRetries: 0,
          httpClient: fetchClient,
          requestHandler: async () => {},
          failedRequestHandler: async ({ request }) => void failed.push(request.url),
          onSkippedRequest: ({ url }) => void skipped.push(url),
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    const wire = await wireOf([site], () => crawler.run([1, 2, 3, 4].map((index) => site.url(`/h${index}`))));
    expect(site.requests('/private/x')).toHaveLength(0);
    expect(failed).toEqual([]);
    expect(skipped).toEqual([site.url('/h2')]);
    const judged = judgePacing(wire, 200).get(site.ip);
    expect(judged?.times).toHaveLength(4);
    expect(judged?.violations).toEqual([]);
    // The client was asked to leave redirects to the plugin, and sent the bot's User-Agent.
    expect(pagesRequested(site).every((request) => request.headers['user-agent'] === USER_AGENT)).toBe(true);
  });

  it('no longer takes reserveAt: every crawler reserves as it sends', () => {
    expect(() => withPoliteness({}, { userAgent: USER_AGENT }, { reserveAt: 'dequeue' } as never)).toThrow(
      /Unknown @politely\/crawlee option `reserveAt`/,
    );
  });
});

describe('robots.txt goes out as the crawl does', () => {
  it("is fetched with the bot's User-Agent", async () => {
    const site = await host('127.0.0.37', { routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') } });
    const env = await crawleeTestEnv('ua');
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        { requestQueue: env.requestQueue, log: env.log, requestHandler: async () => {} },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    await crawler.run([site.url('/x')]);
    expect(site.requests('/robots.txt').map((request) => request.headers['user-agent'])).toEqual([
      USER_AGENT,
    ]);
  });

  it("goes through the crawler's proxyConfiguration", async () => {
    const site = await host('127.0.0.38', {
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /no\n') },
    });
    const proxied: string[] = [];
    const proxy = await host('127.0.0.39', {
      fallback: async (req, res) => {
        proxied.push(req.url ?? '');
        const upstream = await fetch(req.url ?? '', {
          headers: { 'user-agent': req.headers['user-agent'] ?? '' },
        });
        res.writeHead(upstream.status, {
          'content-type': upstream.headers.get('content-type') ?? 'text/plain',
        });
        res.end(Buffer.from(await upstream.arrayBuffer()));
      },
    });
    const env = await crawleeTestEnv('proxy');
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          proxyConfiguration: new ProxyConfiguration({ proxyUrls: [proxy.origin] }),
          requestHandler: async () => {},
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    await crawler.run([site.url('/yes'), site.url('/no/1')]);
    expect(proxied).toContain(site.url('/robots.txt'));
    expect(site.requests('/robots.txt')[0]?.headers['user-agent']).toBe(USER_AGENT);
    expect(site.requests('/no/1')).toHaveLength(0);
  });
});

describe('options and sharing', () => {
  it('your preNavigationHooks run as before, and HTTP crawlers accept the browser wiring unseen', async () => {
    const site = await host('127.0.0.49', { routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') } });
    const env = await crawleeTestEnv('hooks');
    const seen: string[] = [];
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          preNavigationHooks: [async ({ request }) => void seen.push(`pre ${new URL(request.url).pathname}`)],
          requestHandler: async ({ request }) => void seen.push(`handled ${new URL(request.url).pathname}`),
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    await crawler.run([site.url('/x')]);
    expect(seen).toEqual(['pre /x', 'handled /x']);
    expect(site.requests('/x')).toHaveLength(1);
  });

  it('adds the browser wiring where only browser crawlers look, unless the options show one', () => {
    const options = { userAgent: USER_AGENT };
    const plain = withPoliteness({ requestHandler: async () => {} }, options);
    expect(Object.keys(plain)).not.toContain('browserPoolOptions');
    expect(() => new BasicCrawler(plain)).not.toThrow();
    const hook = async () => {};
    const browser = withPoliteness(
      { launchContext: {}, browserPoolOptions: { postPageCreateHooks: [hook] } },
      options,
    ) as { browserPoolOptions?: { postPageCreateHooks?: unknown[] } };
    expect(Object.keys(browser)).toContain('browserPoolOptions');
    expect(browser.browserPoolOptions?.postPageCreateHooks).toHaveLength(2);
    expect(browser.browserPoolOptions?.postPageCreateHooks?.[0]).toBe(hook);
    expect(() => withPoliteness({}, options, { subresources: 'none' as never })).toThrow(/`subresources`/);
  });

  it('rejects unknown plugin options and bad values with a TypeError naming them', () => {
    const options = { userAgent: USER_AGENT };
    expect(() => withPoliteness({}, options, { bogus: 1 } as never)).toThrow(/`bogus`/);
    expect(() => withPoliteness({}, options, { spacing: 'end' as never })).toThrow(
      /`spacing` to be 'response' or 'start', got `"end"` \(string\)/,
    );
    // The message lists what a user can set, and nothing internal (no test clock).
    const typo = (() => {
      try {
        withPoliteness({}, options, { maxParkd: 5 } as never);
      } catch (error) {
        return String(error);
      }
      return '';
    })();
    expect(typo).toMatch(
      /`maxParkd` \(value `5` \(number\)\); did you mean `maxParked`\?; known options: maxParked, /,
    );
    expect(typo).not.toMatch(/\bnow\b/);
    expect(() => withPoliteness({}, options, { maxParked: 0 })).toThrow(/`maxParked`.*got `0` \(number\)/);
    expect(() => withPoliteness(withPoliteness({}, options), options)).toThrow(
      /already went through withPoliteness/,
    );
  });

  it('sits in requestQueue on Crawlee 3.x, and in requestManager when given one (the 4.0 seat)', async () => {
    const env = await crawleeTestEnv('seat');
    const options = { userAgent: USER_AGENT };
    const v3 = withPoliteness({ requestQueue: env.requestQueue }, options) as Record<string, unknown>;
    expect(v3.requestManager).toBeUndefined();
    expect(politenessOf(v3).userAgent).toBe(USER_AGENT);
    const v4 = withPoliteness({ requestManager: env.requestQueue }, options) as Record<string, unknown>;
    expect(v4.requestQueue).toBeUndefined();
    expect(politenessOf(v4).userAgent).toBe(USER_AGENT);
  });

  it('politenessOf a crawler built without the plugin is a TypeError', () => {
    expect(() => politenessOf(new BasicCrawler({ requestHandler: async () => {} }))).toThrow(TypeError);
  });

  it('a shared Politeness instance fetches robots.txt once for two crawlers, and politenessOf finds it', async () => {
    const site = await host('127.0.0.40', { routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') } });
    const shared = createPoliteness({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } });
    for (const path of ['/one', '/two']) {
      const env = await crawleeTestEnv('shared');
      const crawler = new HttpCrawler(
        withPoliteness<HttpCrawlerOptions>(
          { requestQueue: env.requestQueue, log: env.log, requestHandler: async () => {} },
          shared,
        ),
        env.config,
      );
      await crawler.run([site.url(path)]);
      expect(politenessOf(crawler)).toBe(shared);
    }
    expect(site.requests('/robots.txt')).toHaveLength(1);
    expect(pagesRequested(site)).toHaveLength(2);
    await shared.close();
  });
});

/**
 * An HTTP client of the user's own, on Node's fetch: it honours `followRedirect: false` (as the
 * BaseHttpClient interface asks) and sends the headers it is given.
 */
const fetchClient: BaseHttpClient = {
  sendRequest: () => Promise.reject(new Error('not used')),
  async stream(request: HttpRequest): Promise<StreamingHttpResponse> {
    const response = await fetch(String(request.url), {
      headers: request.headers as Record<string, string>,
      redirect: request.followRedirect === false ? 'manual' : 'follow',
    });
    return {
      stream: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
      request,
      redirectUrls: [],
      url: response.url,
      ip: undefined,
      statusCode: response.status,
      headers: Object.fromEntries(response.headers),
      trailers: {},
      complete: true,
      downloadProgress: { percent: 0, transferred: 0 },
      uploadProgress: { percent: 0, transferred: 0 },
    } as unknown as StreamingHttpResponse;
  },
};

/** Runs `crawl` with the wire captured for `targets`; the request lines the kernel saw. */
async function wireOf(targets: readonly TestHost[], crawl: () => Promise<unknown>): Promise<WireRequest[]> {
  const capture = await startWireCapture(targets);
  try {
    await crawl();
  } catch (error) {
    await capture.stop();
    throw error;
  }
  return capture.stop();
}

describe("a request's own deadline bounds the robots.txt and pacing waits", () => {
  it('a redirect hop to a host whose robots.txt is slow fails with the navigation timeout, and is never sent', async () => {
    // robots.txt answers (allow all) after 2 s; the request gives itself 1 s.
    const slowRobots = { ...text('User-agent: *\nAllow: /\n'), delayMs: 2000 };
    const stuck = await host('127.0.0.56', { routes: { '/robots.txt': slowRobots } });
    const site = await host('127.0.0.57', {
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n'), '/go': redirect(stuck.url('/page')) },
    });
    const env = await crawleeTestEnv('deadline-robots');
    const failures: unknown[] = [];
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          navigationTimeoutSecs: 1,
          maxRequestRetries: 0,
          requestHandler: async () => {},
          failedRequestHandler: async (_context, error) => void failures.push(error),
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    await crawler.run([site.url('/go')]);
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toMatch(/timed out|timeout|abort/i);
    // Nothing was left waiting to send it once robots.txt came in.
    await sleepMs(2500);
    expect(stuck.requests('/robots.txt')).toHaveLength(1);
    expect(stuck.requests('/page')).toHaveLength(0);
    await politenessOf(crawler).close();
  });

  it("a handler's sendRequest waiting for a slot ends with its timeout, and is never sent", async () => {
    const site = await host('127.0.0.58', {
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 5\n') },
    });
    const env = await crawleeTestEnv('deadline-slot');
    const outcomes: string[] = [];
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          requestHandler: async ({ sendRequest }) => {
            try {
              // The host's next slot is 5 s away; this request gives itself 300 ms.
              await sendRequest({ url: site.url('/api'), timeout: { request: 300 } });
              outcomes.push('sent');
            } catch (error) {
              outcomes.push(String(error));
            }
          },
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    await crawler.run([site.url('/page')]);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatch(/timeout|abort/i);
    await sleepMs(500);
    expect(site.requests('/api')).toHaveLength(0);
    await politenessOf(crawler).close();
  });

  // RFC 9309 2.2.2 percent-decoding in core's engine (issue 10): `/%70rivate/secret2` is `/private/...`.
  it('a redirect to /%70rivate/secret2 under Disallow: /private is never requested', async () => {
    const site = await host('127.0.0.59', {
      routes: {
        '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
        '/go': redirect('/%70rivate/secret2'),
      },
    });
    const skips: unknown[] = [];
    const crawler = await politeCheerioCrawler(
      'percent',
      { maxRequestRetries: 0, requestHandler: async () => {} },
      {
        userAgent: USER_AGENT,
        pacing: { minDelayMs: 0 },
        onEvent: (event) => void (event.type === 'skip' && skips.push(event.decision.reason)),
      },
    );
    await crawler.run([site.url('/go')]);
    expect(site.log.filter((request) => request.path.toLowerCase().includes('rivate'))).toEqual([]);
    expect(skips).toEqual(['disallowed']);
  });
});

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
