/**
 * Where skips and handovers are counted and reported: per-host counters for progress displays, the
 * facade's `skip` event (`politeness.reportSkip`, heard through `onEvent` or `subscribe`), Crawlee's
 * own `onSkippedRequest`, and one log line per host (not one per URL). A URL is reported once per
 * crawl: a disallowed link found on 4 pages is one skip, not 4.
 */
import type { Log } from '@crawlee/core';
import type { DisallowedDecision, Politeness, SkipStage } from '@politely/core';
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

interface Counters {
  readonly host: string;
  fetched: number;
  readonly skipped: Record<SkipReason, number>;
  nextSlotAt: number;
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
  private readonly hosts = new Map<string, Counters>();
  private readonly totalSkips = zeroSkips();
  private totalFetched = 0;
  private readonly reported = new Set<string>();

  constructor(private readonly options: ReporterOptions) {}

  fetched(host: string): void {
    this.totalFetched++;
    this.host(host).fetched++;
  }

  /** The scheduler said "not before `at`" for this host. */
  nextSlot(host: string, at: number): void {
    this.host(host).nextSlotAt = at;
  }

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
    const counters = this.host(decision.hostKey);
    const firstForHost = Object.values(counters.skipped).every((count) => count === 0);
    counters.skipped[reason]++;
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

  stats(parkedByHost: ReadonlyMap<string, number>, robotsFetches: number): CrawleePolitenessStats {
    let parked = 0;
    for (const [host, count] of parkedByHost) {
      parked += count;
      this.host(host);
    }
    const hosts = [...this.hosts.values()]
      .map(
        (counters): HostCounters => ({
          ...counters,
          skipped: { ...counters.skipped },
          parked: parkedByHost.get(counters.host) ?? 0,
        }),
      )
      .sort((a, b) => b.fetched + b.parked - (a.fetched + a.parked) || a.host.localeCompare(b.host));
    return { fetched: this.totalFetched, skipped: { ...this.totalSkips }, parked, robotsFetches, hosts };
  }

  private host(host: string): Counters {
    let counters = this.hosts.get(host);
    if (!counters) {
      counters = { host, fetched: 0, skipped: zeroSkips(), nextSlotAt: 0 };
      this.hosts.set(host, counters);
    }
    return counters;
  }
}
