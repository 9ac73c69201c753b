/**
 * The behaviour table: what a user of any politely adapter sees, as data. Each scenario describes
 * the hosts (robots.txt and pages), the URLs a crawl visits, the outcome per URL (fetched, or skipped
 * with a reason) and what the servers must have seen. driver.ts runs it against an adapter.
 */
import type { PolitenessOptions } from '@politely/core';

export type HostName = 'a' | 'b';

/** A URL on one of the scenario's hosts; addresses are only known once the hosts run. */
export interface UrlRef {
  readonly host: HostName;
  /** Path with optional query, e.g. `/private/x`. */
  readonly path: string;
}

export type RobotsSpec =
  | { readonly body: string }
  | { readonly status: number }
  /** Accepts the connection and never answers: a timeout. */
  | { readonly hang: true };

export type PageSpec =
  | { readonly redirectTo: UrlRef }
  | {
      readonly status: number;
      /** A list sends the header once per value, in order. */
      readonly headers?: Readonly<Record<string, string | string[]>>;
      /** An HTML page (served as text/html) instead of the default text. */
      readonly body?: string;
    };

export interface HostSpec {
  readonly robots: RobotsSpec;
  /** Pages by exact path; any other path answers 200 with a small HTML page. */
  readonly pages?: Readonly<Record<string, PageSpec>>;
}

export type SkipReason =
  | 'disallowed'
  | 'unreachable'
  | 'crawl-delay-too-long'
  | 'rate-limited'
  | 'usage-refused'
  | 'tdm-reserved';

/** What a user sees for one URL: it was fetched (any HTTP status), or politely skipped, and why. */
export interface Outcome {
  readonly url: string;
  readonly result: 'fetched' | 'skipped';
  readonly reason?: SkipReason;
  /**
   * Scenarios with `pageRules`: what the fetched page said to our crawler (X-Robots-Tag, robots meta
   * tags), as the names of the rules that hold (`nofollow`, `noindex`, ...), sorted.
   */
  readonly directives?: readonly string[];
}

export type ExpectedOutcome = Omit<Outcome, 'url'> & { readonly url: UrlRef };

/** What the servers' request logs must show. Gaps exclude robots.txt requests. */
export type ServerExpectation =
  | { readonly kind: 'requests'; readonly url: UrlRef; readonly count: number }
  | { readonly kind: 'smallest-gap'; readonly host: HostName; readonly atLeastMs: number }
  | { readonly kind: 'gap-between'; readonly from: UrlRef; readonly to: UrlRef; readonly atLeastMs: number };

export interface Scenario {
  readonly name: string;
  /** Where the expected behaviour comes from. */
  readonly source: string;
  /** Politeness options on top of the runner's (`userAgent: PoliteBot/1.0 ...`, `minDelayMs: 0`). */
  readonly options?: Omit<Partial<PolitenessOptions>, 'userAgent'>;
  readonly hosts: Readonly<Partial<Record<HostName, HostSpec>>>;
  /** Distinct URLs (queues may deduplicate), visited in order or all at once. */
  readonly visit: readonly UrlRef[];
  readonly order: 'sequential' | 'concurrent';
  /** One per visited URL. */
  readonly outcomes: readonly ExpectedOutcome[];
  readonly server: readonly ServerExpectation[];
  /**
   * Page-level robots rules: drivers report each fetched page's directives (`Outcome.directives`) and
   * follow its links the way the adapter offers (Crawlee: `enqueueLinks`; got and fetch: the links of
   * a page whose `readPageDirectives` does not say nofollow), visiting them after the listed URLs.
   */
  readonly pageRules?: true;
  /**
   * Read every page through the adapter's streaming API where it has one (got: `got.stream`), and
   * through its only one elsewhere: the same outcomes either way.
   */
  readonly stream?: true;
}

/** The product token the runner's user agent yields. */
export const PRODUCT_TOKEN = 'PoliteBot';

const a = (path: string): UrlRef => ({ host: 'a', path });
const b = (path: string): UrlRef => ({ host: 'b', path });
const fetched = (url: UrlRef): ExpectedOutcome => ({ url, result: 'fetched' });
const skipped = (url: UrlRef, reason: SkipReason): ExpectedOutcome => ({ url, result: 'skipped', reason });
const requests = (url: UrlRef, count: number): ServerExpectation => ({ kind: 'requests', url, count });
const robotsOf = (host: HostName): UrlRef => ({ host, path: '/robots.txt' });

const read = (url: UrlRef, directives: readonly string[]): ExpectedOutcome => ({
  url,
  result: 'fetched',
  directives,
});
/** An HTML page with `head` in its head and a link to each path. */
const linksTo = (paths: readonly string[], head = '') =>
  `<!doctype html><html><head><title>links</title>${head}</head><body>${paths.map((path) => `<a href="${path}">${path}</a>`).join(' ')}</body></html>`;
/** IETF aipref: training allowed in general, refused under /no-train/ (the longer pattern wins). */
const AIPREF_ROBOTS =
  'User-agent: *\nAllow: /\nDisallow: /private\nContent-Usage: train-ai=y\nContent-Usage: /no-train/ train-ai=n\n';
/** Cloudflare's managed form: the signal at file level, before any group. */
const SIGNAL_ROBOTS = 'Content-Signal: search=yes, ai-train=no\n\nUser-agent: *\nAllow: /\n';

/** W3C TDMRep: /books/ reserved for text and data mining, except /books/open/ (the first match wins). */
const TDMREP_FILE = JSON.stringify([
  { location: '/books/open/', 'tdm-reservation': 0 },
  { location: '/books/', 'tdm-reservation': 1, 'tdm-policy': 'https://publisher.test/tdm-policy' },
]);

const pages = (count: number) => Array.from({ length: count }, (_, index) => a(`/page/${index}`));
const CONCURRENT_PAGES = pages(20);
const PACED_PAGES = pages(4);

export const scenarios: readonly Scenario[] = [
  {
    name: 'allowed URL is fetched',
    source: 'RFC 9309 2.2.2',
    hosts: { a: { robots: { body: 'User-agent: *\nDisallow: /private\n' } } },
    visit: [a('/public')],
    order: 'sequential',
    outcomes: [fetched(a('/public'))],
    server: [requests(robotsOf('a'), 1), requests(a('/public'), 1)],
  },
  {
    name: 'disallowed URL is skipped and never requested',
    source: 'RFC 9309 2.2.2',
    hosts: { a: { robots: { body: 'User-agent: *\nDisallow: /private\n' } } },
    visit: [a('/public'), a('/private/x')],
    order: 'sequential',
    outcomes: [fetched(a('/public')), skipped(a('/private/x'), 'disallowed')],
    server: [requests(robotsOf('a'), 1), requests(a('/private/x'), 0)],
  },
  {
    name: 'the group for our product token wins over the * group',
    source: 'RFC 9309 2.2.1',
    hosts: {
      a: { robots: { body: 'User-agent: *\nDisallow: /\n\nUser-agent: PoliteBot\nDisallow: /mine\n' } },
    },
    visit: [a('/open'), a('/mine')],
    order: 'sequential',
    outcomes: [fetched(a('/open')), skipped(a('/mine'), 'disallowed')],
    server: [requests(a('/open'), 1), requests(a('/mine'), 0)],
  },
  {
    name: 'robots.txt 404 allows everything',
    source: 'RFC 9309 2.3.1.3',
    hosts: { a: { robots: { status: 404 } } },
    visit: [a('/page')],
    order: 'sequential',
    outcomes: [fetched(a('/page'))],
    server: [requests(robotsOf('a'), 1), requests(a('/page'), 1)],
  },
  {
    name: 'robots.txt 503 skips the host as unreachable',
    source: 'RFC 9309 2.3.1.4',
    hosts: { a: { robots: { status: 503 } } },
    visit: [a('/page')],
    order: 'sequential',
    outcomes: [skipped(a('/page'), 'unreachable')],
    server: [requests(a('/page'), 0)],
  },
  {
    // A 304 answers only a conditional request; asked for nothing, it says nothing about the rules.
    name: 'robots.txt 304 to a request without conditions skips the host as unreachable, never allow-all',
    source: 'RFC 9110 15.4.5',
    hosts: { a: { robots: { status: 304 } } },
    visit: [a('/page')],
    order: 'sequential',
    outcomes: [skipped(a('/page'), 'unreachable')],
    server: [requests(robotsOf('a'), 1), requests(a('/page'), 0)],
  },
  {
    name: 'robots.txt timing out skips the host as unreachable',
    source: 'RFC 9309 2.3.1.4',
    options: { robots: { timeoutMs: 200 } },
    hosts: { a: { robots: { hang: true } } },
    visit: [a('/page')],
    order: 'sequential',
    outcomes: [skipped(a('/page'), 'unreachable')],
    server: [requests(a('/page'), 0)],
  },
  {
    name: 'a redirect into a disallowed path is skipped; the target is never requested',
    source: 'RFC 9309 2.2.2, applied to every redirect hop',
    hosts: {
      a: {
        robots: { body: 'User-agent: *\nDisallow: /private\n' },
        pages: { '/go': { redirectTo: a('/private/x') } },
      },
    },
    visit: [a('/go')],
    order: 'sequential',
    outcomes: [skipped(a('/go'), 'disallowed')],
    server: [requests(a('/go'), 1), requests(a('/private/x'), 0)],
  },
  {
    name: "a cross-host redirect is checked against the target host's robots.txt",
    source: 'RFC 9309 2.3: rules are scoped to their own origin',
    hosts: {
      a: {
        robots: { status: 404 },
        pages: { '/to-blocked': { redirectTo: b('/blocked') }, '/to-open': { redirectTo: b('/open') } },
      },
      b: { robots: { body: 'User-agent: *\nDisallow: /blocked\n' } },
    },
    visit: [a('/to-blocked'), a('/to-open')],
    order: 'sequential',
    outcomes: [skipped(a('/to-blocked'), 'disallowed'), fetched(a('/to-open'))],
    server: [requests(robotsOf('b'), 1), requests(b('/blocked'), 0), requests(b('/open'), 1)],
  },
  {
    name: 'Crawl-delay spaces requests to the host',
    source: 'Crawl-delay (Bing, Nutch, StormCrawler; not in RFC 9309)',
    hosts: { a: { robots: { body: 'User-agent: *\nCrawl-delay: 0.3\n' } } },
    visit: PACED_PAGES,
    order: 'concurrent',
    outcomes: PACED_PAGES.map(fetched),
    server: [{ kind: 'smallest-gap', host: 'a', atLeastMs: 300 }],
  },
  {
    name: 'a Crawl-delay above maxCrawlDelayMs skips the host',
    source: 'Nutch fetcher.max.crawl.delay / StormCrawler',
    options: { pacing: { maxCrawlDelayMs: 10_000 } },
    hosts: { a: { robots: { body: 'User-agent: *\nCrawl-delay: 60\n' } } },
    visit: [a('/page')],
    order: 'sequential',
    outcomes: [skipped(a('/page'), 'crawl-delay-too-long')],
    server: [requests(a('/page'), 0)],
  },
  {
    name: '429 with Retry-After backs the host off',
    source: 'RFC 9110 15.5.30 / 10.2.3',
    hosts: {
      a: { robots: { status: 404 }, pages: { '/busy': { status: 429, headers: { 'retry-after': '1' } } } },
    },
    visit: [a('/busy'), a('/next')],
    order: 'sequential',
    outcomes: [fetched(a('/busy')), fetched(a('/next'))],
    server: [{ kind: 'gap-between', from: a('/busy'), to: a('/next'), atLeastMs: 1000 }],
  },
  {
    // r=2 left in t=2 s: at least t / r = 1 s between starts, though minDelayMs is 0.
    name: 'RateLimit headers spread the remaining quota over the time to its reset',
    source: 'draft-ietf-httpapi-ratelimit-headers (RateLimit r, t)',
    hosts: {
      a: {
        robots: { status: 404 },
        pages: { '/limited': { status: 200, headers: { ratelimit: '"default";r=2;t=2' } } },
      },
    },
    visit: [a('/limited'), a('/next')],
    order: 'sequential',
    outcomes: [fetched(a('/limited')), fetched(a('/next'))],
    server: [{ kind: 'gap-between', from: a('/limited'), to: a('/next'), atLeastMs: 1000 }],
  },
  {
    name: 'concurrent first requests to a new host fetch robots.txt once',
    source: 'single-flight per origin',
    hosts: { a: { robots: { body: 'User-agent: *\nAllow: /\n' } } },
    visit: CONCURRENT_PAGES,
    order: 'concurrent',
    outcomes: CONCURRENT_PAGES.map(fetched),
    server: [requests(robotsOf('a'), 1), ...CONCURRENT_PAGES.map((url) => requests(url, 1))],
  },
  {
    name: 'X-Robots-Tag nofollow: the page contributes no links',
    source: "Google's robots meta tag and X-Robots-Tag specification (nofollow; a user agent prefix)",
    pageRules: true,
    hosts: {
      a: {
        robots: { body: 'User-agent: *\nAllow: /\n' },
        pages: {
          '/nofollow': { status: 200, headers: { 'x-robots-tag': 'nofollow' }, body: linksTo(['/n1']) },
          '/for-others': {
            status: 200,
            headers: { 'x-robots-tag': 'otherbot: nofollow, noindex' },
            body: linksTo(['/f1']),
          },
        },
      },
    },
    visit: [a('/nofollow'), a('/for-others')],
    order: 'sequential',
    outcomes: [read(a('/nofollow'), ['nofollow']), read(a('/for-others'), []), read(a('/f1'), [])],
    server: [requests(a('/n1'), 0), requests(a('/f1'), 1)],
  },
  {
    name: "meta robots and our product token's meta tag are read; other crawlers' are not",
    source: "Google's robots meta tag specification (name and content case-insensitive; rules add up)",
    pageRules: true,
    hosts: {
      a: {
        robots: { body: 'User-agent: *\nAllow: /\n' },
        pages: {
          '/meta': {
            status: 200,
            headers: { 'x-robots-tag': 'PoliteBot: noarchive' },
            body: linksTo(
              ['/m1'],
              '<meta name="robots" content="noai"><meta name="POLITEBOT" content="NoIndex"><meta name="otherbot" content="nofollow">',
            ),
          },
        },
      },
    },
    visit: [a('/meta')],
    order: 'sequential',
    outcomes: [read(a('/meta'), ['noai', 'noarchive', 'noindex']), read(a('/m1'), [])],
    server: [requests(a('/m1'), 1)],
  },
  {
    name: 'purpose ai-train: pages whose usage preferences say no are skipped and never requested',
    source: 'draft-ietf-aipref-attach (Content-Usage), Cloudflare Content Signals (file level)',
    options: { purpose: 'ai-train' },
    hosts: {
      a: { robots: { body: AIPREF_ROBOTS } },
      b: { robots: { body: SIGNAL_ROBOTS } },
    },
    visit: [a('/open'), a('/no-train/x'), a('/private/x'), b('/page'), b('/other')],
    order: 'sequential',
    outcomes: [
      fetched(a('/open')),
      skipped(a('/no-train/x'), 'usage-refused'),
      skipped(a('/private/x'), 'disallowed'),
      skipped(b('/page'), 'usage-refused'),
      skipped(b('/other'), 'usage-refused'),
    ],
    server: [
      requests(a('/open'), 1),
      requests(a('/no-train/x'), 0),
      requests(b('/page'), 0),
      requests(b('/other'), 0),
    ],
  },
  {
    name: 'purpose ai-train: TDMRep reservations: tdmrep.json-reserved pages never requested, a tdm-reservation: 1 page withheld',
    source:
      'W3C TDM Reservation Protocol (Community Group Final Report, 2024): tdmrep.json, tdm-reservation header',
    options: { purpose: 'ai-train' },
    hosts: {
      a: {
        robots: { body: 'User-agent: *\nAllow: /\n' },
        pages: {
          '/.well-known/tdmrep.json': { status: 200, body: TDMREP_FILE },
          '/news/reserved': { status: 200, headers: { 'tdm-reservation': '1' } },
          '/news/open': { status: 200, headers: { 'tdm-reservation': '0' } },
        },
      },
    },
    visit: [a('/books/1'), a('/books/2'), a('/books/open/1'), a('/news/reserved'), a('/news/open')],
    order: 'sequential',
    outcomes: [
      skipped(a('/books/1'), 'tdm-reserved'),
      skipped(a('/books/2'), 'tdm-reserved'),
      fetched(a('/books/open/1')),
      skipped(a('/news/reserved'), 'tdm-reserved'),
      fetched(a('/news/open')),
    ],
    server: [
      requests(a('/.well-known/tdmrep.json'), 1),
      requests(a('/books/1'), 0),
      requests(a('/books/2'), 0),
      requests(a('/books/open/1'), 1),
      requests(a('/news/reserved'), 1),
    ],
  },
  {
    name: 'purpose search: a no for AI training refuses nothing a search crawl fetches',
    source: 'draft-ietf-aipref-vocab, Cloudflare Content Signals: one purpose per label',
    options: { purpose: 'search' },
    hosts: {
      a: { robots: { body: AIPREF_ROBOTS } },
      b: { robots: { body: 'User-agent: *\nContent-Signal: search=no, ai-train=no\nAllow: /\n' } },
    },
    visit: [a('/no-train/x'), b('/page')],
    order: 'sequential',
    outcomes: [fetched(a('/no-train/x')), skipped(b('/page'), 'usage-refused')],
    server: [requests(a('/no-train/x'), 1), requests(b('/page'), 0)],
  },
  {
    name: 'no purpose: usage preferences refuse nothing, robots.txt alone decides',
    source: 'politely: the purpose option is off by default',
    hosts: {
      a: { robots: { body: AIPREF_ROBOTS } },
      b: { robots: { body: SIGNAL_ROBOTS } },
    },
    visit: [a('/no-train/x'), a('/private/x'), b('/page')],
    order: 'sequential',
    outcomes: [fetched(a('/no-train/x')), skipped(a('/private/x'), 'disallowed'), fetched(b('/page'))],
    server: [requests(a('/no-train/x'), 1), requests(b('/page'), 1)],
  },
  {
    name: 'purpose ai-train: a page whose Content-Usage header says no is fetched but withheld, reported as skipped',
    source: 'draft-ietf-aipref-attach (the Content-Usage response header)',
    options: { purpose: 'ai-train' },
    hosts: {
      a: {
        robots: { body: 'User-agent: *\nAllow: /\n' },
        pages: {
          '/train-n': { status: 200, headers: { 'Content-Usage': 'train-ai=n' } },
          '/train-y': { status: 200, headers: { 'Content-Usage': 'train-ai=y, search=n' } },
        },
      },
    },
    visit: [a('/train-n'), a('/train-y')],
    order: 'sequential',
    outcomes: [skipped(a('/train-n'), 'usage-refused'), fetched(a('/train-y'))],
    // The header comes with the content: the request was made, its content kept from the caller.
    server: [requests(a('/train-n'), 1), requests(a('/train-y'), 1)],
  },
  {
    name: 'purpose ai-train, streamed: a page withheld by its Content-Usage or tdm-reservation header errors before its body',
    source:
      'draft-ietf-aipref-attach, W3C TDMRep (tdm-reservation header); one verdict for every path (issue 40)',
    options: { purpose: 'ai-train' },
    stream: true,
    hosts: {
      a: {
        robots: { body: 'User-agent: *\nAllow: /\n' },
        pages: {
          '/train-n': { status: 200, headers: { 'Content-Usage': 'train-ai=n' } },
          '/reserved': { status: 200, headers: { 'tdm-reservation': '1' } },
          '/train-y': { status: 200, headers: { 'Content-Usage': 'train-ai=y' } },
        },
      },
    },
    visit: [a('/train-n'), a('/reserved'), a('/train-y')],
    order: 'sequential',
    outcomes: [
      skipped(a('/train-n'), 'usage-refused'),
      skipped(a('/reserved'), 'tdm-reserved'),
      fetched(a('/train-y')),
    ],
    server: [requests(a('/train-n'), 1), requests(a('/reserved'), 1), requests(a('/train-y'), 1)],
  },
  {
    name: 'purpose ai-train: two Content-Usage headers, n and y, refuse the content in either order',
    source: 'draft-ietf-aipref-attach (on equal paths the most restrictive preference wins), RFC 9110 5.3',
    options: { purpose: 'ai-train' },
    hosts: {
      a: {
        robots: { body: 'User-agent: *\nAllow: /\n' },
        pages: {
          '/n-then-y': { status: 200, headers: { 'Content-Usage': ['train-ai=n', 'train-ai=y'] } },
          '/y-then-n': { status: 200, headers: { 'Content-Usage': ['train-ai=y', 'train-ai=n'] } },
          '/y-twice': { status: 200, headers: { 'Content-Usage': ['train-ai=y', 'search=n, train-ai=y'] } },
        },
      },
    },
    visit: [a('/n-then-y'), a('/y-then-n'), a('/y-twice')],
    order: 'sequential',
    outcomes: [
      skipped(a('/n-then-y'), 'usage-refused'),
      skipped(a('/y-then-n'), 'usage-refused'),
      fetched(a('/y-twice')),
    ],
    server: [requests(a('/n-then-y'), 1), requests(a('/y-then-n'), 1), requests(a('/y-twice'), 1)],
  },
];
