/**
 * End to end: a CheerioCrawler made polite with one line crawls a small multi-host site on loopback
 * (links between hosts, disallowed sections, a Crawl-delay host, a redirect into a disallowed path).
 * Everything is asserted from the servers' own request logs, and times at the wire (tcpdump's time of
 * each request line); what to expect is derived from the site description below, not written down twice.
 */
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import { crawlStats, politenessOf, withPoliteness } from '@politely/crawlee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawleeTestEnv } from '../../packages/crawlee-plugin/test/harness.js';
import { html, type LoggedRequest, startHost, type TestHost, text } from '../helpers/hosts.js';
import { judgePacing, startWireCapture, type WireRequest } from '../helpers/wire.js';

type HostName = 'hub' | 'slow' | 'fast' | 'open';
interface Link {
  readonly host: HostName;
  readonly path: string;
}
type Page = { readonly links: readonly Link[] } | { readonly redirectTo: Link };
interface HostSite {
  readonly ip: string;
  /** Disallowed path prefixes, or null for a robots.txt that answers 404 (allow all). */
  readonly disallow: readonly string[] | null;
  readonly crawlDelaySecs?: number;
  readonly pages: Readonly<Record<string, Page>>;
}

/**
 * Long enough that the fast host's eight pages fit in three of them however busy the machine (the
 * test below is an order at the wire, and this is its generous window).
 */
const CRAWL_DELAY_SECS = 1;
const to = (host: HostName, path: string): Link => ({ host, path });
const linksTo = (...links: Link[]): Page => ({ links });

const SITE: Readonly<Record<HostName, HostSite>> = {
  hub: {
    ip: '127.0.0.41',
    disallow: ['/private'],
    pages: {
      '/': linksTo(
        to('hub', '/about'),
        to('hub', '/private/a'),
        to('slow', '/'),
        to('fast', '/'),
        to('open', '/'),
      ),
      '/about': linksTo(to('hub', '/private/b'), to('hub', '/')),
      '/private/a': linksTo(),
      '/private/b': linksTo(),
      '/private/c': linksTo(),
    },
  },
  slow: {
    ip: '127.0.0.42',
    disallow: ['/admin'],
    crawlDelaySecs: CRAWL_DELAY_SECS,
    pages: {
      '/': linksTo(to('slow', '/s1'), to('slow', '/s2'), to('slow', '/admin/panel'), to('fast', '/f1')),
      '/s1': linksTo(to('slow', '/s3'), to('hub', '/private/a')),
      '/s2': linksTo(to('slow', '/s4')),
      '/s3': linksTo(),
      '/s4': linksTo(to('slow', '/admin/secret')),
      '/admin/panel': linksTo(),
      '/admin/secret': linksTo(),
    },
  },
  fast: {
    ip: '127.0.0.43',
    disallow: [],
    pages: {
      '/': linksTo(...['/f1', '/f2', '/f3', '/f4', '/f5', '/f6'].map((path) => to('fast', path))),
      '/f1': linksTo(to('fast', '/f7'), to('slow', '/s1')),
      '/f2': linksTo(to('open', '/o1')),
      '/f3': linksTo(),
      '/f4': linksTo(),
      '/f5': linksTo(),
      '/f6': linksTo(),
      '/f7': linksTo(),
    },
  },
  open: {
    ip: '127.0.0.44',
    disallow: null,
    pages: {
      '/': linksTo(to('open', '/o1'), to('open', '/jump')),
      '/o1': linksTo(to('open', '/o2')),
      '/o2': linksTo(),
      '/jump': { redirectTo: to('hub', '/private/c') },
    },
  },
};

const HOST_NAMES = Object.keys(SITE) as HostName[];
const isDisallowed = (name: HostName, path: string) =>
  (SITE[name].disallow ?? []).some((prefix) => path.startsWith(prefix));
const pagesOf = (log: readonly LoggedRequest[]) => log.filter((request) => request.path !== '/robots.txt');

function robotsRoute(site: HostSite) {
  if (site.disallow === null) return text('not found', 404);
  const lines = ['User-agent: *', ...site.disallow.map((prefix) => `Disallow: ${prefix}`)];
  if (site.crawlDelaySecs !== undefined) lines.push(`Crawl-delay: ${site.crawlDelaySecs}`);
  return text(`${lines.join('\n')}\n`);
}

describe('e2e: CheerioCrawler + withPoliteness on a multi-host loopback site', () => {
  const hosts = new Map<HostName, TestHost>();
  const handled: string[] = [];
  const failed: string[] = [];
  const skipped: string[] = [];
  let stats: ReturnType<typeof crawlStats>;
  let wire: WireRequest[] = [];

  const hostOf = (name: HostName): TestHost => {
    const host = hosts.get(name);
    if (!host) throw new Error(`host ${name} is not running`);
    return host;
  };
  const urlOf = (link: Link) => hostOf(link.host).url(link.path);

  beforeAll(async () => {
    for (const name of HOST_NAMES) hosts.set(name, await startHost({ ip: SITE[name].ip }));
    for (const name of HOST_NAMES) {
      const host = hostOf(name);
      host.route('/robots.txt', robotsRoute(SITE[name]));
      for (const [path, page] of Object.entries(SITE[name].pages)) {
        host.route(
          path,
          'redirectTo' in page
            ? { status: 302, headers: { location: urlOf(page.redirectTo) } }
            : html(page.links.map((link) => `<a href="${urlOf(link)}">${link.path}</a>`).join('\n')),
        );
      }
    }

    const env = await crawleeTestEnv('e2e');
    const crawler = new CheerioCrawler(
      withPoliteness<CheerioCrawlerOptions>(
        {
          requestQueue: env.requestQueue,
          log: env.log,
          maxConcurrency: 4,
          maxRequestRetries: 2,
          requestHandler: async ({ request, enqueueLinks }) => {
            handled.push(request.url);
            await enqueueLinks({ strategy: 'all' });
          },
          failedRequestHandler: async ({ request }) => {
            failed.push(request.url);
          },
          onSkippedRequest: ({ url }) => void skipped.push(url),
        },
        { userAgent: 'E2EBot/1.0 (+http://127.0.0.1/bot)', pacing: { minDelayMs: 0 } },
      ),
      env.config,
    );
    const capture = await startWireCapture([...hosts.values()]);
    try {
      await crawler.run([urlOf(to('hub', '/'))]);
    } finally {
      wire = await capture.stop();
    }
    stats = crawlStats(crawler);
    await politenessOf(crawler).close();
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...hosts.values()].map((host) => host.close()));
  });

  it('never requests a disallowed URL, not even as a redirect target', () => {
    for (const name of HOST_NAMES) {
      const requested = pagesOf(hostOf(name).log).map((request) => request.path);
      expect(
        requested.filter((path) => isDisallowed(name, path)),
        `disallowed paths requested on ${name}`,
      ).toEqual([]);
    }
    expect(stats.skipped.redirect).toBe(1);
    // The page redirecting into a disallowed path is skipped, as Crawlee skips: never a failure.
    expect(failed).toEqual([]);
    expect(skipped).toContain(urlOf(to('open', '/jump')));
  });

  it('fetches every allowed page exactly once: nothing is lost', () => {
    for (const name of HOST_NAMES) {
      const allowed = Object.keys(SITE[name].pages)
        .filter((path) => !isDisallowed(name, path))
        .sort();
      const requested = pagesOf(hostOf(name).log)
        .map((request) => request.path)
        .sort();
      expect(requested, `pages requested on ${name}`).toEqual(allowed);
    }
    const pagesWithHandler = HOST_NAMES.flatMap((name) =>
      Object.entries(SITE[name].pages)
        .filter(([path, page]) => !isDisallowed(name, path) && 'links' in page)
        .map(([path]) => urlOf(to(name, path))),
    );
    expect([...handled].sort()).toEqual(pagesWithHandler.sort());
  });

  it('fetches robots.txt once per host', () => {
    for (const name of HOST_NAMES) {
      expect(hostOf(name).requests('/robots.txt'), `robots.txt requests on ${name}`).toHaveLength(1);
    }
    expect(stats.robotsFetches).toBe(HOST_NAMES.length);
  });

  /** Page requests (robots.txt aside) of one host, at the wire, in order. */
  const wireTimesOf = (name: HostName) =>
    wire
      .filter((request) => request.ip === SITE[name].ip && request.path !== '/robots.txt')
      .map((request) => request.at);

  it('spaces requests to the Crawl-delay host by at least the delay, at the wire', () => {
    const slow = judgePacing(wire, CRAWL_DELAY_SECS * 1000).get(SITE.slow.ip);
    expect(slow?.times.length).toBeGreaterThanOrEqual(4);
    expect(slow?.violations).toEqual([]);
  });

  it('lets the fast host finish long before the slow one', () => {
    const fastLast = Math.max(...wireTimesOf('fast'));
    // The slow host's fourth request cannot come before three Crawl-delays (3 s) have passed: the
    // fast host's eight pages, never parked, are done by then however busy the machine.
    const slowFourth = wireTimesOf('slow')[3] ?? Number.POSITIVE_INFINITY;
    expect(wireTimesOf('fast')).toHaveLength(8);
    expect(fastLast).toBeLessThan(slowFourth);
    const fastHost = stats.hosts.find((host) => host.host === SITE.fast.ip);
    expect(fastHost).toMatchObject({ fetched: 8, parked: 0 });
  });
});
