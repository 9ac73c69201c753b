/**
 * Issue 35.1: a response the crawler drops without reading its body must give its host's place in
 * flight back. Crawlee's HTTP crawlers refuse a Content-Type they do not parse by throwing in
 * `_abortDownloadOfBody` and never touch the stream; a post-navigation hook that throws, a charset
 * Crawlee cannot decode and a navigation timeout leave it unread as well. Before the fix the place
 * stayed taken until got's request timeout (30 s by default) or for ever (a client without one), and
 * every later page of the host waited and timed out. Each crawl here is bounded well below those 30 s;
 * what is asserted is what the site and the crawler show: the server's request log (each page
 * requested, as often as Crawlee asks for it, the gap between requests at least minDelayMs), the
 * server seeing a dropped response's connection closed, and which requests were handled or failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import {
  type BaseHttpClient,
  Configuration,
  GotScrapingHttpClient,
  type HttpRequest,
  LogLevel,
  log,
  type RedirectHandler,
} from '@crawlee/core';
import { HttpCrawler, type HttpCrawlerOptions, type HttpCrawlingContext } from '@crawlee/http';
import { politenessOf, withPoliteness } from '@politely/crawlee';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Handler,
  html,
  type Route,
  startHost,
  type TestHost,
  text,
} from '../../../test/helpers/hosts.js';

const USER_AGENT = 'DroppedBodyBot/1.0 (+http://127.0.0.1/bot)';
const MIN_DELAY_MS = 100;
/** Each crawl must end within this: well below Crawlee's 30 s navigation timeout, got's request timeout. */
const CRAWL_LIMIT_MS = 25_000;
/** How long the server waits, after a crawl, to see a dropped response's connection closed. */
const CLOSE_LIMIT_MS = 5_000;

const open: TestHost[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((started) => started.close()));
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Each response of a path as the server saw it end: resolves when its connection closed. */
type Endings = Map<string, Promise<void>[]>;

/**
 * A route whose body never ends: chunk after chunk, as fast as the client takes them, until the
 * connection closes. Only a client that gives the response up (destroys it) ends it; one left unread
 * keeps its socket open for as long as the client does.
 */
function endlessBody(headers: Record<string, string>, endings: Endings): Handler {
  const chunk = Buffer.alloc(64 * 1024, 7);
  return (req, res: ServerResponse) => {
    const path = req.url ?? '';
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    endings.set(path, [...(endings.get(path) ?? []), closed]);
    res.writeHead(200, headers);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  };
}

/** Whether every response of `path` the server sent had its connection closed (within CLOSE_LIMIT_MS). */
async function allClosed(endings: Endings, path: string): Promise<boolean> {
  const seen = endings.get(path) ?? [];
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), CLOSE_LIMIT_MS);
  });
  const closed = await Promise.race([Promise.all(seen).then(() => true), limit]);
  clearTimeout(timer);
  return seen.length > 0 && closed;
}

async function site(ip: string, routes: Record<string, Route>): Promise<TestHost> {
  const started = await startHost({
    ip,
    fallback: html('<html><body><p>page</p></body></html>'),
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n'), ...routes },
  });
  open.push(started);
  return started;
}

/** Storage of the crawler's own in a temporary directory, removed after the test. */
function tempConfig(label: string): Configuration {
  const dir = mkdtempSync(join(tmpdir(), `politely-${label}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return new Configuration({ storageClientOptions: { localDataDirectory: dir } });
}

/**
 * Runs the crawl, bounded: past CRAWL_LIMIT_MS the crawl is stopped (its pool aborted, the site's
 * connections closed so its stuck tasks end) and the test fails with what the site saw by then.
 */
async function runBounded(
  crawler: { run(urls: string[]): Promise<unknown> } & object,
  host: TestHost,
  urls: string[],
) {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'limit'>((resolve) => {
    timer = setTimeout(() => resolve('limit'), CRAWL_LIMIT_MS);
  });
  const outcome = await Promise.race([crawler.run(urls).then(() => 'done' as const), limit]);
  clearTimeout(timer);
  if (outcome === 'limit') {
    await (crawler as { autoscaledPool?: { abort(): Promise<void> } }).autoscaledPool?.abort();
    await host.close();
    throw new Error(
      `the crawl did not end within ${CRAWL_LIMIT_MS} ms; the site saw: ${host.log.map((r) => r.path).join(' ')}`,
    );
  }
}

/** Every gap between two consecutive requests to the host, as the server logged them. */
function gapsMs(host: TestHost): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < host.log.length; i++) gaps.push((host.log[i]?.at ?? 0) - (host.log[i - 1]?.at ?? 0));
  return gaps;
}

/** Paths in the order Crawlee lists them, without the origin. */
const paths = (urls: readonly string[]) => urls.map((url) => new URL(url).pathname).sort();

/**
 * With spacing 'response' a request goes out at least minDelayMs after the previous response arrived,
 * which the server sent after logging its request: every logged gap is at least minDelayMs, whatever
 * the load (a floor, never a ceiling).
 */
function expectPaced(host: TestHost) {
  for (const gap of gapsMs(host)) expect(gap).toBeGreaterThanOrEqual(MIN_DELAY_MS);
}

describe('a response the crawler drops unread gives its host back', () => {
  it("quick-start CheerioCrawler: a home page's PDF, image and untyped links end as Crawlee ends them, every HTML page is handled", async () => {
    const endings = new Map<string, Promise<void>[]>();
    const host = await site('127.135.1.1', {
      '/': html(
        '<html><body><a href="/report.pdf">report</a> <a href="/a">a</a> <a href="/logo.png">logo</a> ' +
          '<a href="/b">b</a> <a href="/data.bin">data</a> <a href="/c">c</a></body></html>',
      ),
      '/report.pdf': endlessBody({ 'content-type': 'application/pdf' }, endings),
      '/logo.png': endlessBody({ 'content-type': 'image/png' }, endings),
      // No Content-Type at all.
      '/data.bin': endlessBody({}, endings),
    });
    const config = tempConfig('quick-start');
    const handled: string[] = [];
    const failed: string[] = [];
    // Crawlee's quick start: a handler that enqueues the page's links, everything else default
    // (only its logging is off, and failures are noted).
    const crawler = new CheerioCrawler(
      withPoliteness<CheerioCrawlerOptions>(
        {
          log: log.child({ prefix: 'quick-start', level: LogLevel.OFF }),
          requestHandler: async ({ request, enqueueLinks }) => {
            handled.push(request.url);
            await enqueueLinks();
          },
          failedRequestHandler: async ({ request }, error) => {
            failed.push(`${new URL(request.url).pathname}: ${error.message}`);
          },
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: MIN_DELAY_MS } },
        { config },
      ),
      config,
    );
    try {
      await runBounded(crawler, host, [host.url('/')]);
      expect(paths(handled)).toEqual(['/', '/a', '/b', '/c']);
      // As plain Crawlee ends them: refused by Content-Type, not retried.
      expect(failed.sort()).toEqual([
        expect.stringMatching(/^\/data\.bin: Resource .* served Content-Type .*Skipping resource\.$/),
        expect.stringMatching(
          /^\/logo\.png: Resource .* served Content-Type image\/png, .*Skipping resource\.$/,
        ),
        expect.stringMatching(
          /^\/report\.pdf: Resource .* served Content-Type application\/pdf, .*Skipping resource\.$/,
        ),
      ]);
      for (const path of ['/', '/a', '/b', '/c', '/report.pdf', '/logo.png', '/data.bin']) {
        expect(host.requests(path), path).toHaveLength(1);
      }
      expectPaced(host);
      // Each dropped body's connection was closed, not left open half read.
      for (const path of ['/report.pdf', '/logo.png', '/data.bin']) {
        expect(await allClosed(endings, path), path).toBe(true);
      }
    } finally {
      await politenessOf(crawler).close();
    }
  });

  it('HttpCrawler, maxRequestRetries 0, additionalMimeTypes: a refused image loses none of the pages after it', async () => {
    const endings = new Map<string, Promise<void>[]>();
    const host = await site('127.135.1.2', {
      '/report.pdf': { headers: { 'content-type': 'application/pdf' }, body: '%PDF-1.4 tiny' },
      '/logo.png': endlessBody({ 'content-type': 'image/png' }, endings),
    });
    const config = tempConfig('http-no-retries');
    const handled: string[] = [];
    const failed: string[] = [];
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          log: log.child({ prefix: 'http-no-retries', level: LogLevel.OFF }),
          maxRequestRetries: 0,
          additionalMimeTypes: ['application/pdf'],
          requestHandler: async ({ request }) => void handled.push(request.url),
          failedRequestHandler: async ({ request }, error) =>
            void failed.push(`${new URL(request.url).pathname}: ${error.message}`),
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: MIN_DELAY_MS } },
        { config },
      ),
      config,
    );
    try {
      const urls = ['/page0', '/report.pdf', '/logo.png', '/page1', '/page2'].map((path) => host.url(path));
      await runBounded(crawler, host, urls);
      expect(paths(handled)).toEqual(['/page0', '/page1', '/page2', '/report.pdf']);
      expect(failed).toEqual([
        expect.stringMatching(/^\/logo\.png: Resource .* served Content-Type image\/png/),
      ]);
      for (const path of ['/page0', '/report.pdf', '/logo.png', '/page1', '/page2']) {
        expect(host.requests(path), path).toHaveLength(1);
      }
      expectPaced(host);
      expect(await allClosed(endings, '/logo.png')).toBe(true);
    } finally {
      await politenessOf(crawler).close();
    }
  });

  it('every other way an HTTP crawler ends a response: a hook of yours throws, an unknown charset, statuses, a broken body, a failing handler', async () => {
    const endings = new Map<string, Promise<void>[]>();
    const host = await site('127.135.1.3', {
      // Refused by a post-navigation hook of yours, after Crawlee accepted its Content-Type.
      '/hook-refuses': endlessBody({ 'content-type': 'text/html' }, endings),
      // Crawlee's _encodeResponse throws before reading a charset it cannot decode.
      '/odd-charset': endlessBody({ 'content-type': 'text/html; charset=x-no-such-charset' }, endings),
      // Read by Crawlee before it fails or hands them over (these never held the host).
      '/forbidden': html('<p>no</p>', 403),
      '/missing': html('<p>gone</p>', 404),
      '/broken': html('<p>error</p>', 500),
      '/handler-throws': html('<p>page</p>'),
      // The connection drops halfway through the body: the request fails.
      '/cut-off': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
        res.write('<html><body>');
        setTimeout(() => res.destroy(), 20);
      },
    });
    const config = tempConfig('other-drops');
    const handled: string[] = [];
    const failed: string[] = [];
    const crawler = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          log: log.child({ prefix: 'other-drops', level: LogLevel.OFF }),
          // One retry: a dropped body is given back on a retry (reclaimRequest) as on a final failure.
          maxRequestRetries: 1,
          useSessionPool: false,
          postNavigationHooks: [
            ({ request }) => {
              if (request.url.endsWith('/hook-refuses')) throw new Error('this hook refuses the page');
            },
          ],
          requestHandler: async ({ request }) => {
            if (request.url.endsWith('/handler-throws')) throw new Error('the handler fails');
            handled.push(request.url);
          },
          failedRequestHandler: async ({ request }, error) =>
            void failed.push(`${new URL(request.url).pathname}: ${error.message}`),
        },
        { userAgent: USER_AGENT, pacing: { minDelayMs: MIN_DELAY_MS } },
        { config },
      ),
      config,
    );
    try {
      const urls = [
        '/hook-refuses',
        '/odd-charset',
        '/forbidden',
        '/missing',
        '/broken',
        '/handler-throws',
        '/cut-off',
        '/after1',
        '/after2',
      ].map((path) => host.url(path));
      await runBounded(crawler, host, urls);
      // 403 and 404 reach the handler without a session pool, as in plain Crawlee.
      expect(paths(handled)).toEqual(['/after1', '/after2', '/forbidden', '/missing']);
      expect(failed.sort()).toEqual([
        expect.stringMatching(/^\/broken: 500 - /),
        expect.stringMatching(/^\/cut-off: /),
        expect.stringMatching(/^\/handler-throws: the handler fails$/),
        expect.stringMatching(/^\/hook-refuses: this hook refuses the page$/),
        expect.stringMatching(
          /^\/odd-charset: Resource .* unsupported charset\/encoding: x-no-such-charset$/,
        ),
      ]);
      for (const path of ['/hook-refuses', '/odd-charset', '/broken', '/handler-throws', '/cut-off']) {
        expect(host.requests(path), path).toHaveLength(2); // tried, then retried once
      }
      for (const path of ['/forbidden', '/missing', '/after1', '/after2']) {
        expect(host.requests(path), path).toHaveLength(1);
      }
      expectPaced(host);
      for (const path of ['/hook-refuses', '/odd-charset']) {
        expect(await allClosed(endings, path), path).toBe(true);
      }
    } finally {
      await politenessOf(crawler).close();
    }
  });

  it('options copied into a new object: the first handled page puts the hook back, with a warning, and a later refused image gives its host back', async () => {
    const endings: Endings = new Map();
    const host = await site('127.135.1.6', {
      '/logo.png': endlessBody({ 'content-type': 'image/png' }, endings),
    });
    const config = tempConfig('copied-options');
    const handled: string[] = [];
    const failed: string[] = [];
    const warnings: string[] = [];
    const quiet = log.child({ prefix: 'copied-options', level: LogLevel.OFF });
    // The plugin logs through the crawler's logger; its warnings are noted, nothing is printed.
    const noted = Object.assign(Object.create(quiet), {
      child: () => noted,
      warning: (message: string) => void warnings.push(message),
    }) as typeof quiet;
    const options = withPoliteness<HttpCrawlerOptions>(
      {
        log: noted,
        maxRequestRetries: 0,
        // One page at a time: the first page is handled before the image is asked for.
        maxConcurrency: 1,
        requestHandler: async ({ request }) => void handled.push(request.url),
        failedRequestHandler: async ({ request }, error) =>
          void failed.push(`${new URL(request.url).pathname}: ${error.message}`),
      },
      { userAgent: USER_AGENT, pacing: { minDelayMs: MIN_DELAY_MS } },
      { config },
    );
    const crawler = new HttpCrawler({ ...options }, config);
    try {
      const urls = ['/first', '/logo.png', '/page1', '/page2'].map((path) => host.url(path));
      await runBounded(crawler, host, urls);
      expect(paths(handled)).toEqual(['/first', '/page1', '/page2']);
      expect(failed).toEqual([
        expect.stringMatching(/^\/logo\.png: Resource .* served Content-Type image\/png/),
      ]);
      expect(warnings.filter((message) => message.includes('pre-navigation hook'))).toHaveLength(1);
      expect(await allClosed(endings, '/logo.png')).toBe(true);
      expectPaced(host);
    } finally {
      await politenessOf(crawler).close();
    }
  });

  it("a client without a timeout of its own (impit's kind): a response that arrives after Crawlee's navigation timeout is dropped, the host's later pages go", async () => {
    // Headers only 4 s after the request came, when the crawler's 3 s navigation timeout gave up on
    // it; the body then never ends. The inner client is got without its timeout and signal, as impit ignores them.
    const endings: Endings = new Map();
    const endless = endlessBody({ 'content-type': 'text/html' }, endings);
    const host = await site('127.135.1.4', {
      '/late': (req, res) => void setTimeout(() => endless(req, res), 4_000),
    });
    const config = tempConfig('late-answer');
    // got-scraping's first request loads it and builds its header generator: seconds on a busy
    // machine, which inside the crawl would count against the navigation timeout. Done beforehand.
    const client = new UntimedClient();
    const warmUp = await site('127.135.1.5', {});
    await client.sendRequest({ url: warmUp.url('/warm') } as HttpRequest);
    const handled: string[] = [];
    const failed: string[] = [];
    const crawler: HttpCrawler<HttpCrawlingContext> = new HttpCrawler(
      withPoliteness<HttpCrawlerOptions>(
        {
          log: log.child({ prefix: 'late-answer', level: LogLevel.OFF }),
          httpClient: client,
          navigationTimeoutSecs: 3,
          maxRequestRetries: 0,
          requestHandler: async ({ request }) => void handled.push(request.url),
          failedRequestHandler: async ({ request }, error) => {
            failed.push(`${new URL(request.url).pathname}: ${error.message}`);
            // Pages found as /late gives up, while its request still waits for its answer: each has a
            // whole navigation timeout from here, the late answer comes within it.
            if (request.url.endsWith('/late'))
              await crawler.addRequests([host.url('/after1'), host.url('/after2')]);
          },
        },
        // The late answer's 4 s would otherwise slow the host's pace (latency-aware pacing) past the
        // later pages' own navigation timeout: only the place in flight is judged here.
        { userAgent: USER_AGENT, pacing: { minDelayMs: MIN_DELAY_MS, latencyFactor: 0 } },
        { config },
      ),
      config,
    );
    try {
      await runBounded(crawler, host, [host.url('/late')]);
      expect({ handled: paths(handled), failed }).toEqual({
        handled: ['/after1', '/after2'],
        failed: [expect.stringMatching(/^\/late: request timed out after 3 seconds/)],
      });
      for (const path of ['/late', '/after1', '/after2']) expect(host.requests(path), path).toHaveLength(1);
      expectPaced(host);
      expect(await allClosed(endings, '/late')).toBe(true);
    } finally {
      await politenessOf(crawler).close();
    }
  });
});

/** got-scraping with neither a timeout nor an abort signal: a client that gives up on nothing. */
class UntimedClient implements BaseHttpClient {
  private readonly got = new GotScrapingHttpClient();

  sendRequest: BaseHttpClient['sendRequest'] = (request) => this.got.sendRequest(untimed(request));

  stream(request: HttpRequest, onRedirect?: RedirectHandler) {
    return this.got.stream(untimed(request), onRedirect);
  }
}

function untimed<Q extends { timeout?: unknown; signal?: unknown }>(request: Q): Q {
  const { timeout: _timeout, signal: _signal, ...rest } = request;
  return rest as Q;
}
