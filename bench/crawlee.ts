/**
 * politely vs Crawlee's built-in `respectRobotsTxtFile`: the same CheerioCrawler crawl of the demo web,
 * both measured in this run, each on a fresh copy of the web. Which URLs were requested (robots.txt
 * columns) is read from the servers' request logs; pacing is judged at the wire (tcpdump on lo, the
 * kernel's time of each request line; see test/helpers/wire.ts), falling back loudly to the logs.
 * Run alone: `tsx bench/crawlee.ts`.
 */
import { pathToFileURL } from 'node:url';
import { type CrawlMode, crawlDemoWeb, DEMO_MIN_DELAY_MS } from '../examples/demo/crawl.js';
import { quietInMemoryCrawlee } from '../examples/demo/crawlee-env.js';
import { type Column, formatMs, markdownTable } from '../examples/demo/table.js';
import {
  captureDemoWeb,
  type DemoHost,
  type DemoWeb,
  judgeDemoWeb,
  robotsPaths,
  startDemoWeb,
} from '../examples/demo-web/index.js';
import { judgePacing, type WireRequest } from '../test/helpers/wire.js';
import { formatEfficiency, type PacingSummary, summarizePacing } from './wire-summary.js';

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
  /** Smallest gap at the wire on the Crawl-delay host, and the gap it asks for. */
  readonly crawlDelayGapMs: number;
  readonly crawlDelayAskedMs: number;
  /** Pacing at the wire over every host that was asked a delay (see askedDelayMs). */
  readonly pacing: PacingSummary;
  /** Hosts judged for pacing: those with an asked delay and two page requests or more. */
  readonly pacedHosts: number;
  /** Each judged host's figures, for reading the worst efficiency. */
  readonly perHost: readonly {
    readonly key: string;
    readonly requests: number;
    readonly askedMs: number;
    readonly efficiency: number | undefined;
  }[];
  /** 'tcpdump', or 'server-log' in the loud fallback. */
  readonly judgedBy: WireCaptureSource;
  readonly hostsAsExpected: number;
  readonly hosts: number;
  readonly totalMs: number;
}

const LABELS: Record<CrawlMode, string> = {
  'crawlee-builtin': 'Crawlee 3.18 `respectRobotsTxtFile: true`',
  politely: 'Crawlee 3.18 + `withPoliteness` (politely)',
};

type WireCaptureSource = 'tcpdump' | 'server-log';

const pathOf = (path: string) => path.split('?')[0] ?? path;

/**
 * The gap a host was asked for: the larger of the crawler's own minimum (politely: minDelayMs; Crawlee
 * built in: none, `sameDomainDelaySecs: 0`) and the host's Crawl-delay. 0: the host is not judged.
 */
function askedDelayMs(host: DemoHost, mode: CrawlMode): number {
  return Math.max(mode === 'politely' ? DEMO_MIN_DELAY_MS : 0, host.blueprint.crawlDelayMs ?? 0);
}

/** Page requests (robots.txt and the path it moved to left out) to one host of this web, at the wire. */
function pageRequestsAt(wire: readonly WireRequest[], host: DemoHost): WireRequest[] {
  const port = Number(new URL(host.origin).port);
  const robots = new Set(robotsPaths(host.blueprint));
  return wire.filter((r) => r.ip === host.hostname && r.port === port && !robots.has(pathOf(r.path)));
}

function robotsFetchesPerHost(web: DemoWeb): [number, number] {
  const counts = web.hosts.map(
    (host) => host.log.filter((request) => robotsPaths(host.blueprint).includes(pathOf(request.path))).length,
  );
  return [Math.min(...counts), Math.max(...counts)];
}

interface Crawled {
  readonly totalMs: number;
  readonly prefilled: [number, number];
  readonly wire: readonly WireRequest[];
  readonly judgedBy: WireCaptureSource;
}

function measure(web: DemoWeb, mode: CrawlMode, crawled: Crawled): ComparisonRow {
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
  const verdict = judgeDemoWeb(web, {
    minDelayMs: mode === 'politely' ? DEMO_MIN_DELAY_MS : 0,
    wire: crawled.wire,
  });
  const crawlDelay = verdict.hosts.find((host) => host.key === 'crawl-delay');
  const paced = web.hosts.filter((host) => askedDelayMs(host, mode) > 0);
  const judgedHosts = paced.flatMap((host) =>
    [
      ...judgePacing(pageRequestsAt(crawled.wire, host), askedDelayMs(host, mode), {
        includeRobotsTxt: true, // left out above, with the path it moved to
      }).values(),
    ].map((pacing) => ({ host, pacing })),
  );
  const judged = judgedHosts.map(({ pacing }) => pacing);
  return {
    crawler: LABELS[mode],
    disallowedViaRedirect,
    disallowedDirect,
    pagesFrom503Host: unreachableHost.log.filter((request) => !robots.has(pathOf(request.path))).length,
    robotsFetchesPerHost: robotsFetchesPerHost(web),
    robotsFetchesPerHostPrefilled: crawled.prefilled,
    crawlDelayGapMs: crawlDelay?.smallestGapMs ?? Number.NaN,
    crawlDelayAskedMs: web.host('crawl-delay').blueprint.crawlDelayMs ?? 0,
    pacing: summarizePacing(judged),
    pacedHosts: judged.filter((host) => host.gaps.length > 0).length,
    perHost: judgedHosts.map(({ host, pacing }) => ({
      key: host.key,
      requests: pacing.times.length,
      askedMs: askedDelayMs(host, mode),
      efficiency: pacing.efficiency,
    })),
    judgedBy: crawled.judgedBy,
    hostsAsExpected: verdict.hosts.filter((host) => host.problems.length === 0).length,
    hosts: verdict.hosts.length,
    totalMs: crawled.totalMs,
  };
}

/**
 * One crawl of a fresh demo web in the given mode: requests counted from the server logs, pacing
 * judged at the wire.
 */
export async function measureCrawl(mode: CrawlMode): Promise<ComparisonRow> {
  const prefilled = await measurePrefilledQueue(mode);
  const web = await startDemoWeb();
  try {
    const capture = await captureDemoWeb(web);
    const outcome = await crawlDemoWeb({ startUrls: web.startUrls, mode });
    const wire = await capture.stop();
    return measure(web, mode, { totalMs: outcome.elapsedMs, prefilled, wire, judgedBy: capture.source });
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
  { title: 'Crawl-delay host: smallest gap / asked', align: 'right' },
  { title: 'gaps < asked (hosts judged)', align: 'right' },
  { title: 'smallest gap, any judged host', align: 'right' },
  { title: 'efficiency worst / median', align: 'right' },
  { title: 'hosts as expected', align: 'right' },
  { title: 'total time', align: 'right' },
  { title: 'pacing judged by' },
];

/** Gaps at the wire to a tenth of a millisecond: a violation by 0.3 ms must not round away. */
const formatGap = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : formatMs(ms));

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
        `${formatGap(row.crawlDelayGapMs)} / ${row.crawlDelayAskedMs} ms`,
        `${row.pacing.violations.length} (${row.pacedHosts})`,
        row.pacing.smallestGapMs === undefined ? '-' : formatGap(row.pacing.smallestGapMs),
        formatEfficiency(row.pacing),
        `${row.hostsAsExpected} / ${row.hosts}`,
        `${(row.totalMs / 1000).toFixed(1)} s`,
        row.judgedBy,
      ];
    }),
  );
}

export async function runCrawleeComparison(): Promise<void> {
  quietInMemoryCrawlee('off');
  console.log('\n## Crawlee: built-in respectRobotsTxtFile vs withPoliteness (same demo web, same run)\n');
  const rows = [await measureCrawl('crawlee-builtin'), await measureCrawl('politely')];
  console.log(comparisonTable(rows));
  for (const row of rows) {
    const hosts = row.perHost
      .map(
        (host) =>
          `${host.key} ${host.efficiency?.toFixed(2) ?? '-'} (${host.requests} requests, ${host.askedMs} ms)`,
      )
      .join(', ');
    console.log(`\nEfficiency per judged host, ${row.crawler}: ${hosts}.`);
  }
  const directly = rows.map((row) => `${row.crawler}: ${row.disallowedDirect}`).join('; ');
  console.log(`\nDisallowed URLs requested directly (both filter these): ${directly}.`);
  console.log(
    `robots.txt requests per host count the redirect hop of the host whose robots.txt moved (2 there). ` +
      `politely asks every host for at least ${DEMO_MIN_DELAY_MS} ms between requests (Crawlee: no pacing), ` +
      'which is most of its total time.',
  );
  console.log(
    "Pacing at the wire: the asked delay of a host is the larger of the crawler's own minimum " +
      `(politely ${DEMO_MIN_DELAY_MS} ms, Crawlee none) and its Crawl-delay; hosts asked none are not judged ` +
      '(for Crawlee only the Crawl-delay host is). Gaps are between page requests and redirect hops, robots.txt ' +
      'left out; efficiency per host = (requests - 1) x asked / first-to-last, 1 being as fast as politeness ' +
      'allows (pages found by following links come no faster than they are found). "hosts as expected" uses ' +
      'the wire gaps with no slack.\n',
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCrawleeComparison();
}
