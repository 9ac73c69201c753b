/**
 * Where skips are counted and reported: per-host counters for progress displays (with the frontier's
 * hand-out counters, `frontier.hosts()`), the
 * facade's `skip` event (`politeness.reportSkip`, heard through `onEvent` or `subscribe`), Crawlee's
 * own `onSkippedRequest`, and one log line per host (not one per URL). A URL is reported once per
 * crawl: a disallowed link found on 4 pages is one skip, not 4.
 */
import type { Log } from '@crawlee/core';
import type { DisallowedDecision, Politeness, SkipStage } from '@politely/core';
import type { FrontierHost } from '@politely/core/frontier';
import type { CrawleePolitenessStats, HostCounters, SkipReason } from './types.js';

/** Crawlee's `onSkippedRequest` callback, typed loosely so 3.x and 4.x shapes both fit. */
export type CrawleeSkipCallback = (args: { url: string; reason: 'robotsTxt' }) => unknown;

export interface ReporterOptions {
  readonly politeness: Politeness;
  readonly log: Log;
  readonly onSkippedRequest?: CrawleeSkipCallback | undefined;
}

/** One skip: the request's URL (a navigation's decision may be for a later hop of it) and where. */
export interface Skip {
  readonly url: string;
  readonly stage: SkipStage;
  readonly decision: DisallowedDecision;
}

/** URLs remembered as reported; past this many the memory starts over (a URL may then be reported again). */
const REPORTED_MEMORY = 100_000;

const zeroSkips = (): Record<SkipReason, number> => ({
  disallowed: 0,
  unreachable: 0,
  'crawl-delay-too-long': 0,
  redirect: 0,
});

export class Reporter {
  /** Skips per host (the scheduler's host key). */
  private readonly skipsByHost = new Map<string, Record<SkipReason, number>>();
  private readonly totalSkips = zeroSkips();
  private readonly reported = new Set<string>();

  constructor(private readonly options: ReporterOptions) {}

  /**
   * Counts and reports a skip, the first time its URL is skipped in this crawl. A page's subresource
   * is only reported as an event (it is no request of the crawl). Never rejects: a throwing
   * `onSkippedRequest` is logged, not propagated.
   */
  async skipped({ url, stage, decision }: Skip): Promise<void> {
    if (this.reported.has(url)) return;
    if (this.reported.size >= REPORTED_MEMORY) this.reported.clear();
    this.reported.add(url);
    this.options.politeness.reportSkip(decision, stage);
    if (stage === 'subresource') return;
    const reason: SkipReason = stage === 'redirect' ? 'redirect' : decision.reason;
    let skips = this.skipsByHost.get(decision.hostKey);
    const firstForHost = !skips;
    if (!skips) {
      skips = zeroSkips();
      this.skipsByHost.set(decision.hostKey, skips);
    }
    skips[reason]++;
    this.totalSkips[reason]++;
    const rule = decision.rule;
    const data = {
      url,
      reason,
      stage,
      robotsUrl: decision.robotsUrl,
      ...(rule ? { rule: `${rule.directive}: ${rule.pattern}`, line: rule.line } : {}),
    };
    if (firstForHost) {
      this.options.log.info(
        `Skipping requests to ${decision.hostKey} per robots.txt (further skips are logged at DEBUG)`,
        data,
      );
    } else {
      this.options.log.debug('Skipped per robots.txt', data);
    }
    // A refusal at a redirect hop or at send fails the request (failedRequestHandler); not a Crawlee skip.
    if (stage === 'redirect' || stage === 'send' || !this.options.onSkippedRequest) return;
    try {
      await this.options.onSkippedRequest({ url, reason: 'robotsTxt' });
    } catch (error) {
      this.options.log.warning('politely: onSkippedRequest threw; ignored', { error: String(error) });
    }
  }

  /** The plugin's counters: the frontier's per host (handed out, parked, next slot) and the skips. */
  stats(frontierHosts: readonly FrontierHost[], robotsFetches: number): CrawleePolitenessStats {
    const hosts = new Map<string, HostCounters>();
    let fetched = 0;
    let parked = 0;
    for (const host of frontierHosts) {
      fetched += host.handedOut;
      parked += host.parked;
      hosts.set(host.host, counters(host.host, host.handedOut, host.parked, host.nextDueAt));
    }
    for (const [host, skips] of this.skipsByHost) {
      hosts.set(host, { ...(hosts.get(host) ?? counters(host, 0, 0, 0)), skipped: { ...skips } });
    }
    const sorted = [...hosts.values()].sort(
      (a, b) => b.fetched + b.parked - (a.fetched + a.parked) || a.host.localeCompare(b.host),
    );
    return { fetched, skipped: { ...this.totalSkips }, parked, robotsFetches, hosts: sorted };
  }
}

const counters = (host: string, fetched: number, parked: number, nextSlotAt: number): HostCounters => ({
  host,
  fetched,
  skipped: zeroSkips(),
  parked,
  nextSlotAt,
});
