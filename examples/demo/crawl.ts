/**
 * One crawl of the demo web with Crawlee's CheerioCrawler, either made polite by politely
 * (`withPoliteness`) or with Crawlee's built-in `respectRobotsTxtFile`, so both can be run on the same
 * inputs and judged by the same server logs.
 */
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import { RequestQueue } from '@crawlee/core';
import { createPoliteness, type Decision, type KeyvLike, type Politeness } from '@politely/core';
import { redisClientFromStore } from '@politely/core/scheduler';
import { crawlStats, withPoliteness } from '@politely/crawlee';
import { memoryConfiguration } from './crawlee-env.js';

export type CrawlMode = 'politely' | 'crawlee-builtin';

/** Our own product token: robots.txt groups are matched against it. */
export const DEMO_USER_AGENT = 'PolitelyDemo/1.0 (+https://example.com/politely-demo)';
/** The smallest start-to-start gap asked on every host; Crawl-delay raises it per host. */
export const DEMO_MIN_DELAY_MS = 200;
/** Crawlee's concurrency in both modes, so the comparison is like for like. */
export const DEMO_MAX_CONCURRENCY = 8;

export type CrawlProgress =
  | { readonly type: 'handled'; readonly url: string; readonly loadedUrl: string }
  | { readonly type: 'skipped'; readonly url: string; readonly reason: string; readonly detail?: string }
  | { readonly type: 'failed'; readonly url: string; readonly message: string }
  | { readonly type: 'redirect-stopped'; readonly url: string; readonly target: string }
  /** The number of requests held for a host changed (`hostname` is the pacing key, e.g. `127.0.0.102`). */
  | { readonly type: 'parked'; readonly hostname: string; readonly parked: number };

export interface CrawlOptions {
  readonly startUrls: readonly string[];
  /**
   * Put the start URLs straight into the queue (as a sitemap import or a persisted queue would) instead
   * of handing them to `crawler.run()`, whose `addRequests` checks them one by one before the crawl.
   */
  readonly prefillQueue?: boolean;
  readonly mode: CrawlMode;
  readonly minDelayMs?: number;
  /** A shared robots.txt cache and pacing store (fleet mode), e.g. `createKeyv(REDIS_URL)`. */
  readonly store?: KeyvLike;
  readonly onProgress?: (progress: CrawlProgress) => void;
}

export interface CrawlOutcome {
  readonly mode: CrawlMode;
  readonly elapsedMs: number;
  /** Pages the request handler saw. */
  readonly handled: number;
  /** What the crawler reported as skipped, by URL (the reason in the crawler's own words). */
  readonly skipped: ReadonlyMap<string, string>;
  /** Requests that failed (none should, with politely). */
  readonly failed: ReadonlyMap<string, string>;
  /** Requests whose redirect into a disallowed path was stopped: the request's URL -> the refused hop. */
  readonly redirectsStopped: ReadonlyMap<string, string>;
  /** politely's scheduler backend ('memory' or 'redis'); undefined for Crawlee's built-in mode. */
  readonly scheduler?: string;
}

export async function crawlDemoWeb(options: CrawlOptions): Promise<CrawlOutcome> {
  const skipped = new Map<string, string>();
  const failed = new Map<string, string>();
  const redirectsStopped = new Map<string, string>();
  let handled = 0;
  const report = options.onProgress ?? (() => {});

  const base: CheerioCrawlerOptions = {
    maxConcurrency: DEMO_MAX_CONCURRENCY,
    // Failures here are robots decisions, not flaky networks: retrying would only hide them.
    maxRequestRetries: 0,
    requestHandler: async ({ request, enqueueLinks }) => {
      handled++;
      report({ type: 'handled', url: request.url, loadedUrl: request.loadedUrl ?? request.url });
      // The demo web links across hosts on purpose.
      await enqueueLinks({ strategy: 'all' });
    },
    failedRequestHandler: ({ request }, error) => {
      failed.set(request.url, error.message);
      report({ type: 'failed', url: request.url, message: error.message });
    },
  };

  // A configuration and queue of this crawl's own: two crawls in one process never share a queue.
  const config = memoryConfiguration();
  const queue = await RequestQueue.open(null, { config });
  base.requestQueue = queue;
  if (options.prefillQueue) await queue.addRequests(options.startUrls.map((url) => ({ url })));
  const runUrls = options.prefillQueue ? [] : [...options.startUrls];
  const started = performance.now();
  /** What the crawl came to, read once it ended; `scheduler` only in politely's mode. */
  const outcome = (scheduler?: string): CrawlOutcome => ({
    mode: options.mode,
    elapsedMs: performance.now() - started,
    handled,
    skipped,
    failed,
    redirectsStopped,
    ...(scheduler ? { scheduler } : {}),
  });
  if (options.mode === 'crawlee-builtin') {
    const crawler = new CheerioCrawler(
      {
        ...base,
        respectRobotsTxtFile: true,
        sameDomainDelaySecs: 0,
        onSkippedRequest: ({ url, reason }) => {
          if (skipped.has(url)) return;
          skipped.set(url, reason);
          report({ type: 'skipped', url, reason });
        },
      },
      config,
    );
    await crawler.run(runUrls);
    return outcome();
  }

  const politeness: Politeness = createPoliteness({
    userAgent: DEMO_USER_AGENT,
    pacing: { minDelayMs: options.minDelayMs ?? DEMO_MIN_DELAY_MS },
    logger: false,
    ...(options.store ? { store: options.store } : {}),
  });
  // Skips are facade events. A redirect hop into a disallowed path ends its request as a Crawlee skip
  // (onSkippedRequest with the request's URL); the facade's event names the refused hop.
  const refusedHops: string[] = [];
  // The plugin emits the event and then calls onSkippedRequest, one skip at a time, so the two pair up;
  // a page skipped at dequeue was recorded by its event already.
  base.onSkippedRequest = ({ url }) => {
    if (skipped.has(url)) return;
    const hop = refusedHops.shift();
    if (hop === undefined) return;
    redirectsStopped.set(url, hop);
    report({ type: 'redirect-stopped', url, target: hop });
  };
  politeness.subscribe((event) => {
    if (event.type === 'skip' && event.stage === 'redirect') refusedHops.push(event.url);
    if (event.type !== 'skip' || event.stage === 'redirect' || skipped.has(event.url)) return;
    skipped.set(event.url, event.decision.reason);
    report({
      type: 'skipped',
      url: event.url,
      reason: event.decision.reason,
      detail: explain(event.decision),
    });
  });
  try {
    const crawler = new CheerioCrawler(withPoliteness(base, politeness), config);
    const stopWatching = watchParked(crawler, report);
    try {
      await crawler.run(runUrls);
    } finally {
      stopWatching();
    }
    // A store on Redis gives the facade a Redis scheduler (option `scheduler: 'auto'`).
    return outcome(options.store && redisClientFromStore(options.store) ? 'redis' : 'memory');
  } finally {
    await politeness.close();
  }
}

/** `Disallow: /private/ (robots.txt line 2)`, or why no rule was needed. */
function explain(decision: Decision): string {
  const rule = decision.rule;
  if (rule) {
    const directive = rule.directive.charAt(0).toUpperCase() + rule.directive.slice(1);
    return `${directive}: ${rule.pattern} (robots.txt line ${rule.line})`;
  }
  if (decision.reason === 'unreachable') return 'robots.txt unreachable: disallow all until it answers';
  if (decision.reason === 'crawl-delay-too-long')
    return `Crawl-delay ${decision.crawlDelayMs} ms is above the maximum`;
  return decision.source;
}

/** Reports each host's parked count when it changes; returns a stop function. */
function watchParked(crawler: object, report: (progress: CrawlProgress) => void): () => void {
  const last = new Map<string, number>();
  const timer = setInterval(() => {
    for (const host of crawlStats(crawler).hosts) {
      if ((last.get(host.host) ?? 0) === host.parked) continue;
      last.set(host.host, host.parked);
      report({ type: 'parked', hostname: host.host, parked: host.parked });
    }
  }, 100);
  return () => clearInterval(timer);
}
