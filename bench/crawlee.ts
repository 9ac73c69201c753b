/**
 * politely vs Crawlee's built-in `respectRobotsTxtFile`: the same CheerioCrawler crawl of the demo web,
 * both measured in this run, each on a fresh copy of the web, judged by the servers' request logs.
 * Run alone: `tsx bench/crawlee.ts`.
 */
import { pathToFileURL } from 'node:url';
import { type CrawlMode, crawlDemoWeb, DEMO_MIN_DELAY_MS } from '../examples/demo/crawl.js';
import { quietInMemoryCrawlee } from '../examples/demo/crawlee-env.js';
import { type Column, formatMs, markdownTable } from '../examples/demo/table.js';
import { type DemoWeb, judgeDemoWeb, robotsPaths, startDemoWeb } from '../examples/demo-web/index.js';

export interface ComparisonRow {
  readonly crawler: string;
  /** Requests the servers saw for paths robots.txt disallows, reached by following a redirect. */
  readonly disallowedViaRedirect: number;
  /** Requests for disallowed paths reached directly (links, start URLs). */
  readonly disallowedDirect: number;
  /** Pages served by the host whose robots.txt answers 503 (RFC 9309: none). */
  readonly pagesFrom503Host: number;
  /** robots.txt requests (including the redirect hop) per host: smallest and largest. */
  readonly robotsFetchesPerHost: readonly [number, number];
  /** The same, when every page URL is already in the queue before the crawl starts (sitemap, persisted queue). */
  readonly robotsFetchesPerHostPrefilled: readonly [number, number];
  /** Smallest server-side gap on the Crawl-delay host, and the gap it asks for. */
  readonly crawlDelayGapMs: number;
  readonly crawlDelayAskedMs: number;
  readonly hostsAsExpected: number;
  readonly hosts: number;
  readonly totalMs: number;
}

const LABELS: Record<CrawlMode, string> = {
  'crawlee-builtin': 'Crawlee 3.18 `respectRobotsTxtFile: true`',
  politely: 'Crawlee 3.18 + `withPoliteness` (politely)',
};

const pathOf = (path: string) => path.split('?')[0] ?? path;

function robotsFetchesPerHost(web: DemoWeb): [number, number] {
  const counts = web.hosts.map(
    (host) => host.log.filter((request) => robotsPaths(host.blueprint).includes(pathOf(request.path))).length,
  );
  return [Math.min(...counts), Math.max(...counts)];
}

function measure(web: DemoWeb, mode: CrawlMode, totalMs: number, prefilled: [number, number]): ComparisonRow {
  let disallowedViaRedirect = 0;
  let disallowedDirect = 0;
  for (const host of web.hosts) {
    const requests = (path: string) => host.log.filter((request) => pathOf(request.path) === path).length;
    for (const target of host.blueprint.forbiddenTargets ?? []) disallowedViaRedirect += requests(target);
    for (const page of host.blueprint.pages) {
      if (page.expect.outcome === 'skipped' && page.expect.reason === 'disallowed')
        disallowedDirect += requests(page.path);
    }
  }
  const unreachableHost = web.host('robots-503');
  const robots = new Set(robotsPaths(unreachableHost.blueprint));
  const verdict = judgeDemoWeb(web, { minDelayMs: mode === 'politely' ? DEMO_MIN_DELAY_MS : 0 });
  const crawlDelay = verdict.hosts.find((host) => host.key === 'crawl-delay');
  return {
    crawler: LABELS[mode],
    disallowedViaRedirect,
    disallowedDirect,
    pagesFrom503Host: unreachableHost.log.filter((request) => !robots.has(pathOf(request.path))).length,
    robotsFetchesPerHost: robotsFetchesPerHost(web),
    robotsFetchesPerHostPrefilled: prefilled,
    crawlDelayGapMs: crawlDelay?.smallestGapMs ?? Number.NaN,
    crawlDelayAskedMs: web.host('crawl-delay').blueprint.crawlDelayMs ?? 0,
    hostsAsExpected: verdict.hosts.filter((host) => host.problems.length === 0).length,
    hosts: verdict.hosts.length,
    totalMs,
  };
}

/** One crawl of a fresh demo web in the given mode, measured from the server logs. */
export async function measureCrawl(mode: CrawlMode): Promise<ComparisonRow> {
  const prefilled = await measurePrefilledQueue(mode);
  const web = await startDemoWeb();
  try {
    const outcome = await crawlDemoWeb({ startUrls: web.startUrls, mode });
    return measure(web, mode, outcome.elapsedMs, prefilled);
  } finally {
    await web.close();
  }
}

/** robots.txt requests per host when every page URL is queued before the crawl starts. */
async function measurePrefilledQueue(mode: CrawlMode): Promise<[number, number]> {
  const web = await startDemoWeb();
  try {
    const urls = web.hosts.flatMap((host) => host.blueprint.pages.map((page) => host.url(page.path)));
    await crawlDemoWeb({ startUrls: urls, mode, prefillQueue: true });
    return robotsFetchesPerHost(web);
  } finally {
    await web.close();
  }
}

const COLUMNS: readonly Column[] = [
  { title: 'crawler' },
  { title: 'disallowed URLs requested via redirect', align: 'right' },
  { title: 'pages fetched from the 503-robots.txt host (RFC 9309: 0)', align: 'right' },
  { title: 'robots.txt requests per host', align: 'right' },
  { title: 'robots.txt requests per host, queue pre-filled', align: 'right' },
  { title: 'Crawl-delay: smallest gap / asked', align: 'right' },
  { title: 'hosts as expected', align: 'right' },
  { title: 'total time', align: 'right' },
];

export function comparisonTable(rows: readonly ComparisonRow[]): string {
  return markdownTable(
    COLUMNS,
    rows.map((row) => {
      const range = ([fewest, most]: readonly [number, number]) =>
        fewest === most ? String(fewest) : `${fewest}–${most}`;
      return [
        row.crawler,
        String(row.disallowedViaRedirect),
        String(row.pagesFrom503Host),
        range(row.robotsFetchesPerHost),
        range(row.robotsFetchesPerHostPrefilled),
        `${formatMs(row.crawlDelayGapMs)} / ${row.crawlDelayAskedMs} ms`,
        `${row.hostsAsExpected} / ${row.hosts}`,
        `${(row.totalMs / 1000).toFixed(1)} s`,
      ];
    }),
  );
}

export async function runCrawleeComparison(): Promise<void> {
  quietInMemoryCrawlee('off');
  console.log('\n## Crawlee: built-in respectRobotsTxtFile vs withPoliteness (same demo web, same run)\n');
  const rows = [await measureCrawl('crawlee-builtin'), await measureCrawl('politely')];
  console.log(comparisonTable(rows));
  const directly = rows.map((row) => `${row.crawler}: ${row.disallowedDirect}`).join('; ');
  console.log(`\nDisallowed URLs requested directly (both filter these): ${directly}.`);
  console.log(
    `robots.txt requests per host count the redirect hop of the host whose robots.txt moved (2 there). ` +
      `politely asks every host for at least ${DEMO_MIN_DELAY_MS} ms between requests (Crawlee: no pacing), ` +
      'which is most of its total time.\n',
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCrawleeComparison();
}
