/**
 * The demo web as data: seven hosts, each showing one robots.txt or pacing situation, with the
 * outcome a polite crawler must produce for every page. Pure: no servers, no origins (links name a
 * host by key and are resolved once the servers have ports).
 */

export type DemoHostKey =
  | 'private-section'
  | 'crawl-delay'
  | 'robots-503'
  | 'robots-404'
  | 'robots-redirect'
  | 'redirect-trap'
  | 'fast';

/** What must happen to one page, judged from the server's request log. */
export type PageExpectation =
  /** Requested exactly once. */
  | { readonly outcome: 'fetched' }
  /** Never requested: robots.txt forbids it (`disallowed`) or could not be read (`unreachable`, RFC 9309 2.3.1.4). */
  | { readonly outcome: 'skipped'; readonly reason: 'disallowed' | 'unreachable' }
  /** Requested once, answers with a redirect into a disallowed path; the target is never requested. */
  | { readonly outcome: 'redirect-blocked'; readonly target: string };

export interface LinkRef {
  readonly host: DemoHostKey;
  readonly path: string;
}

export interface PageBlueprint {
  readonly path: string;
  readonly title: string;
  readonly expect: PageExpectation;
  /** Links on the page (same host or across hosts). */
  readonly links: readonly LinkRef[];
}

export type RobotsBlueprint =
  | { readonly kind: 'file'; readonly body: string }
  | { readonly kind: 'status'; readonly status: number; readonly body: string }
  | { readonly kind: 'redirect'; readonly to: string; readonly body: string };

export interface HostBlueprint {
  readonly key: DemoHostKey;
  /** One line: the situation this host demonstrates. */
  readonly demonstrates: string;
  /** The polite outcome, in words, for the summary. */
  readonly expected: string;
  readonly robots: RobotsBlueprint;
  /** Crawl-delay the robots.txt asks of every agent, in ms. */
  readonly crawlDelayMs?: number;
  readonly pages: readonly PageBlueprint[];
  /** Paths that exist on the server but that a polite crawler must never request. */
  readonly forbiddenTargets?: readonly string[];
}

const fetched = { outcome: 'fetched' } as const;
const disallowed = { outcome: 'skipped', reason: 'disallowed' } as const;
const unreachable = { outcome: 'skipped', reason: 'unreachable' } as const;
const link = (host: DemoHostKey, path: string): LinkRef => ({ host, path });

const FAST_PAGE_COUNT = 20;
const fastPages: PageBlueprint[] = Array.from({ length: FAST_PAGE_COUNT }, (_, index) => {
  const n = index + 1;
  return {
    path: `/p/${n}`,
    title: `Fast page ${n}`,
    expect: fetched,
    links: [link('fast', '/'), link('fast', `/p/${(n % FAST_PAGE_COUNT) + 1}`)],
  };
});

export const DEMO_SITE: readonly HostBlueprint[] = [
  {
    key: 'private-section',
    demonstrates: 'robots.txt disallows a section (/private/)',
    expected: 'public pages fetched, /private/* never requested',
    robots: { kind: 'file', body: 'User-agent: *\nDisallow: /private/\n' },
    pages: [
      {
        path: '/',
        title: 'A shop with a private back office',
        expect: fetched,
        links: [
          link('private-section', '/about'),
          link('private-section', '/private/admin'),
          link('private-section', '/private/reports'),
          link('crawl-delay', '/'),
        ],
      },
      { path: '/about', title: 'About the shop', expect: fetched, links: [link('private-section', '/')] },
      { path: '/private/admin', title: 'Back office', expect: disallowed, links: [] },
      { path: '/private/reports', title: 'Sales reports', expect: disallowed, links: [] },
    ],
  },
  {
    key: 'crawl-delay',
    demonstrates: 'robots.txt asks Crawl-delay: 0.5',
    expected: 'every page fetched, at least 500 ms apart',
    robots: { kind: 'file', body: 'User-agent: *\nCrawl-delay: 0.5\nAllow: /\n' },
    crawlDelayMs: 500,
    pages: [
      {
        path: '/',
        title: 'A slow host that asks for patience',
        expect: fetched,
        links: ['/spring', '/summer', '/autumn', '/winter'].map((path) => link('crawl-delay', path)),
      },
      { path: '/spring', title: 'Spring', expect: fetched, links: [link('crawl-delay', '/summer')] },
      { path: '/summer', title: 'Summer', expect: fetched, links: [link('crawl-delay', '/autumn')] },
      { path: '/autumn', title: 'Autumn', expect: fetched, links: [link('crawl-delay', '/winter')] },
      { path: '/winter', title: 'Winter', expect: fetched, links: [link('robots-404', '/')] },
    ],
  },
  {
    key: 'robots-503',
    demonstrates: 'robots.txt answers 503 Service Unavailable',
    expected: 'nothing fetched: unreachable robots.txt means disallow all (RFC 9309 2.3.1.4)',
    robots: { kind: 'status', status: 503, body: 'Service temporarily unavailable' },
    pages: [
      {
        path: '/',
        title: 'A host whose robots.txt is down',
        expect: unreachable,
        links: [link('robots-503', '/catalog')],
      },
      {
        path: '/catalog',
        title: 'Catalog',
        expect: unreachable,
        links: [link('robots-503', '/catalog/lamp')],
      },
      { path: '/catalog/lamp', title: 'A lamp', expect: unreachable, links: [] },
    ],
  },
  {
    key: 'robots-404',
    demonstrates: 'robots.txt answers 404 Not Found',
    expected: 'every page fetched: no robots.txt means allow all (RFC 9309 2.3.1.3)',
    robots: { kind: 'status', status: 404, body: 'Not found' },
    pages: [
      {
        path: '/',
        title: 'A host without robots.txt',
        expect: fetched,
        links: [link('robots-404', '/news'), link('robots-redirect', '/')],
      },
      { path: '/news', title: 'News', expect: fetched, links: [link('robots-404', '/news/today')] },
      { path: '/news/today', title: 'Today', expect: fetched, links: [link('robots-404', '/')] },
    ],
  },
  {
    key: 'robots-redirect',
    demonstrates: 'robots.txt redirects (301) to /policies/robots.txt, which disallows /drafts/',
    expected: 'the redirect is followed once; /drafts/* never requested',
    robots: { kind: 'redirect', to: '/policies/robots.txt', body: 'User-agent: *\nDisallow: /drafts/\n' },
    pages: [
      {
        path: '/',
        title: 'A blog that moved its robots.txt',
        expect: fetched,
        links: [link('robots-redirect', '/blog'), link('robots-redirect', '/drafts/next-post')],
      },
      { path: '/blog', title: 'Blog', expect: fetched, links: [link('robots-redirect', '/')] },
      { path: '/drafts/next-post', title: 'Unpublished draft', expect: disallowed, links: [] },
    ],
  },
  {
    key: 'redirect-trap',
    demonstrates: 'an allowed page (/old-admin) redirects into disallowed /private/admin',
    expected: '/old-admin requested once, the redirect target never requested',
    robots: { kind: 'file', body: 'User-agent: *\nDisallow: /private/\n' },
    pages: [
      {
        path: '/',
        title: 'A site with a stale link',
        expect: fetched,
        links: [link('redirect-trap', '/contact'), link('redirect-trap', '/old-admin')],
      },
      { path: '/contact', title: 'Contact', expect: fetched, links: [link('redirect-trap', '/')] },
      {
        path: '/old-admin',
        title: 'Old admin link',
        expect: { outcome: 'redirect-blocked', target: '/private/admin' },
        links: [],
      },
    ],
    forbiddenTargets: ['/private/admin'],
  },
  {
    key: 'fast',
    demonstrates: `a fast host with ${FAST_PAGE_COUNT + 1} pages and no rules`,
    expected: 'every page fetched, not held up by the slow host',
    robots: { kind: 'file', body: 'User-agent: *\nAllow: /\n' },
    pages: [
      {
        path: '/',
        title: 'A fast host with many pages',
        expect: fetched,
        links: [
          ...fastPages.map((page) => link('fast', page.path)),
          // Cross-host links into places a polite crawler must not go.
          link('robots-503', '/catalog'),
          link('robots-503', '/catalog/lamp'),
          link('private-section', '/private/reports'),
          link('redirect-trap', '/old-admin'),
        ],
      },
      ...fastPages,
    ],
  },
];

/** The robots.txt paths each host serves (the redirect host serves two). */
export function robotsPaths(host: HostBlueprint): string[] {
  return host.robots.kind === 'redirect' ? ['/robots.txt', host.robots.to] : ['/robots.txt'];
}
