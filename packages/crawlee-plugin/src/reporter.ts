/**
 * Where skips are counted and reported: per-host counters for progress displays (with the frontier's
 * hand-out counters, `frontier.hosts()`), the facade's `skip` event (`politeness.reportSkip`, heard
 * through `onEvent` or `subscribe`), Crawlee's own `onSkippedRequest`, and one log line per host (not
 * one per URL). A URL is reported once per crawl: a disallowed link found on 4 pages is one skip, not 4.
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
    const { politeness, log, onSkippedRequest } = this.options;
    politeness.reportSkip(decision, stage);
    if (stage === 'subresource') return;
    const reason: SkipReason = stage === 'redirect' ? 'redirect' : decision.reason;
    const { hostKey, robotsUrl, rule } = decision;
    const firstForHost = !this.skipsByHost.has(hostKey);
    const skips = this.skipsByHost.get(hostKey) ?? zeroSkips();
    this.skipsByHost.set(hostKey, skips);
    skips[reason]++;
    this.totalSkips[reason]++;
    const where = rule ? { rule: `${rule.directive}: ${rule.pattern}`, line: rule.line } : {};
    // An unreachable robots.txt (a DNS failure, a proxy's 502) must not read as the site's own rules.
    const unreachable = decision.robots ? `robots.txt unreachable: ${decision.robots.error}` : undefined;
    const data = {
      url,
      reason,
      stage,
      robotsUrl,
      ...where,
      ...(unreachable ? { robotsTxt: unreachable } : {}),
    };
    if (firstForHost) {
      const why = unreachable ? `, ${unreachable}` : ' per robots.txt';
      log.info(`Skipping requests to ${hostKey}${why} (further skips are logged at DEBUG)`, data);
    } else {
      log.debug('Skipped per robots.txt', data);
    }
    // A refusal at a redirect hop or at send fails the request (failedRequestHandler); not a Crawlee skip.
    if (stage === 'redirect' || stage === 'send' || !onSkippedRequest) return;
    try {
      await onSkippedRequest({ url, reason: 'robotsTxt' });
    } catch (error) {
      log.warning('politely: onSkippedRequest threw; ignored', { error: String(error) });
    }
  }

  /** The plugin's counters: the frontier's per host (handed out, parked, next slot) and the skips. */
  stats(frontierHosts: readonly FrontierHost[]): CrawleePolitenessStats {
    const hosts = new Map<string, HostCounters>();
    for (const { host, handedOut, parked, nextDueAt } of frontierHosts) {
      hosts.set(host, { host, fetched: handedOut, skipped: zeroSkips(), parked, nextSlotAt: nextDueAt });
    }
    for (const [host, skips] of this.skipsByHost) {
      const counted = hosts.get(host) ?? { host, fetched: 0, parked: 0, nextSlotAt: 0 };
      hosts.set(host, { ...counted, skipped: { ...skips } });
    }
    const sum = (key: 'handedOut' | 'parked') => frontierHosts.reduce((total, host) => total + host[key], 0);
    const { ok, unavailable, unreachable } = this.options.politeness.stats().robotsFetches;
    return {
      fetched: sum('handedOut'),
      skipped: { ...this.totalSkips },
      parked: sum('parked'),
      robotsFetches: ok + unavailable + unreachable,
      hosts: [...hosts.values()].sort(
        (a, b) => b.fetched + b.parked - (a.fetched + a.parked) || a.host.localeCompare(b.host),
      ),
    };
  }
}
