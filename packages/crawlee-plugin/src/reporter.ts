/**
 * Where skips are counted and reported: per-host counters for progress displays (with the frontier's
 * hand-out counters, `frontier.hosts()`), the facade's `skip` event (`politeness.reportSkip`, heard
 * through `onEvent` or `subscribe`), Crawlee's own `onSkippedRequest`, and one log line per host (not
 * one per URL). A URL is reported once per crawl: a disallowed link found on 4 pages is one skip, not 4.
 */

import type { Log } from '@crawlee/core';
import {
  type DisallowedDecision,
  type Politeness,
  RobotsDisallowedError,
  type SkipStage,
} from '@politely/core';
import { adapterKit } from '@politely/core/adapter';
import type { FrontierHost } from '@politely/core/frontier';
import type { CrawleePolitenessStats, HostCounters, SkipReason } from './types.js';

/**
 * Crawlee's `onSkippedRequest` callback, typed loosely so 3.x and 4.x shapes both fit. Crawlee's
 * reasons have one for robots.txt and none for usage, TDMRep or rate limits: `reason` is always
 * `'robotsTxt'`, and `cause` (a RobotsDisallowedError) carries the refusal itself, read with
 * `getDisallowedDecision(args)?.reason`.
 */
export type CrawleeSkipCallback = (args: { url: string; reason: 'robotsTxt'; cause?: Error }) => unknown;

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
  /**
   * A request the handler sent itself (`context.sendRequest`): refused with an error its caller
   * sees, and not one of the crawl's requests, so Crawlee's `onSkippedRequest` is not told.
   */
  readonly ownRequest?: boolean;
}

/** URLs remembered as reported; past this many the memory starts over (a URL may then be reported again). */
const REPORTED_MEMORY = 100_000;
/**
 * Hosts whose skips are counted one by one (`stats().hosts`); past this many the host skipped least
 * recently is forgotten (its skips stay in the totals; a later skip of it is logged at INFO again).
 * URLs are deduplicated by `reported`, not by this, so forgetting a host reports no URL twice.
 */
export const SKIPPED_HOSTS_MEMORY = 10_000;

const zeroSkips = (): Record<SkipReason, number> => ({
  disallowed: 0,
  unreachable: 0,
  'crawl-delay-too-long': 0,
  'rate-limited': 0,
  'usage-refused': 0,
  'tdm-reserved': 0,
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
  async skipped({ url, stage, decision, ownRequest = false }: Skip): Promise<void> {
    if (this.reported.has(url)) return;
    if (this.reported.size >= REPORTED_MEMORY) this.reported.clear();
    this.reported.add(url);
    const { politeness, log, onSkippedRequest } = this.options;
    adapterKit(politeness).reportSkip(decision, stage);
    if (stage === 'subresource') return;
    const reason: SkipReason = stage === 'redirect' ? 'redirect' : decision.reason;
    const { hostKey, robotsUrl, rule } = decision;
    const skips = this.skipsByHost.get(hostKey);
    const firstForHost = skips === undefined;
    const counted = this.hostSkips(hostKey, skips);
    counted[reason]++;
    this.totalSkips[reason]++;
    const where = rule ? { rule: `${rule.directive}: ${rule.pattern}`, line: rule.line } : {};
    // An unreachable robots.txt (a DNS failure, a proxy's 502) must not read as the site's own rules.
    const unreachable = decision.robots ? `robots.txt unreachable: ${decision.robots.error}` : undefined;
    const hop = decision.url !== url ? { refusedUrl: decision.url } : {};
    // A rate limit is the host's headers speaking, not robots.txt; a TDMRep reservation is the site's
    // tdmrep.json, header or meta tag (its policy URL logged with it).
    const limited = decision.reason === 'rate-limited';
    const tdm = decision.reason === 'tdm-reserved' ? decision.tdm : undefined;
    const data = {
      url,
      ...hop,
      reason,
      stage,
      robotsUrl,
      ...where,
      ...(unreachable ? { robotsTxt: unreachable } : {}),
      ...(tdm ? { tdmSource: tdm.source, ...(tdm.policy ? { tdmPolicy: tdm.policy } : {}) } : {}),
    };
    if (firstForHost) {
      const why = unreachable
        ? `, ${unreachable}`
        : limited
          ? ' while its rate-limit headers ask for more than maxRateLimitDelayMs between requests'
          : tdm
            ? ' whose text and data mining rights are reserved (TDMRep)'
            : ' per robots.txt';
      log.info(`Skipping requests to ${hostKey}${why} (further skips are logged at DEBUG)`, data);
    } else {
      log.debug(
        limited
          ? 'Skipped while rate-limited'
          : tdm
            ? 'Skipped: TDM rights reserved (TDMRep)'
            : 'Skipped per robots.txt',
        data,
      );
    }
    // Every refusal of one of the crawl's requests, at whatever stage, ends it as a Crawlee skip.
    if (ownRequest || !onSkippedRequest) return;
    try {
      // `cause` not enumerable: what Crawlee's own skips pass stays `{ url, reason }` when logged or compared.
      const args = Object.defineProperty({ url, reason: 'robotsTxt' as const }, 'cause', {
        value: new RobotsDisallowedError(decision),
      });
      await onSkippedRequest(args);
    } catch (error) {
      log.warning('politely: onSkippedRequest threw; ignored', { error: String(error) });
    }
  }

  /** The host's skip counters, now its most recent (least recently skipped hosts are forgotten first). */
  private hostSkips(
    hostKey: string,
    known: Record<SkipReason, number> | undefined,
  ): Record<SkipReason, number> {
    if (known) this.skipsByHost.delete(hostKey);
    const skips = known ?? zeroSkips();
    this.skipsByHost.set(hostKey, skips);
    if (this.skipsByHost.size > SKIPPED_HOSTS_MEMORY) {
      const oldest = this.skipsByHost.keys().next().value;
      if (oldest !== undefined) this.skipsByHost.delete(oldest);
    }
    return skips;
  }

  /**
   * The plugin's counters: the frontier's per host (handed out, parked, next slot) and the skips.
   * `handedOut` is the frontier's total: `hosts()` forgets hosts no longer in play, so their sum is not.
   */
  stats(frontierHosts: readonly FrontierHost[], handedOut: number): CrawleePolitenessStats {
    const hosts = new Map<string, HostCounters>();
    for (const { host, handedOut, parked, nextDueAt } of frontierHosts) {
      hosts.set(host, { host, fetched: handedOut, skipped: zeroSkips(), parked, nextSlotAt: nextDueAt });
    }
    for (const [host, skips] of this.skipsByHost) {
      const counted = hosts.get(host) ?? { host, fetched: 0, parked: 0, nextSlotAt: 0 };
      hosts.set(host, { ...counted, skipped: { ...skips } });
    }
    const { ok, unavailable, unreachable, notModified } = this.options.politeness.stats().robotsFetches;
    return {
      fetched: handedOut,
      skipped: { ...this.totalSkips },
      parked: frontierHosts.reduce((total, host) => total + host.parked, 0),
      robotsFetches: ok + unavailable + unreachable + notModified,
      hosts: [...hosts.values()].sort(
        (a, b) => b.fetched + b.parked - (a.fetched + a.parked) || a.host.localeCompare(b.host),
      ),
    };
  }
}
