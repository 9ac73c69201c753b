/**
 * Where skips and handovers are counted and reported: per-host counters for progress displays, the
 * user's `onSkip`, Crawlee's own `onSkippedRequest`, and one log line per host (not one per URL).
 * A URL is reported once per crawl: a disallowed link found on 4 pages is one skip, not 4.
 */
import type { Log } from '@crawlee/core';
import type { CrawleePolitenessStats, HostCounters, SkipEvent, SkipReason } from './types.js';

/** Crawlee's `onSkippedRequest` callback, typed loosely so 3.x and 4.x shapes both fit. */
export type CrawleeSkipCallback = (args: { url: string; reason: 'robotsTxt' }) => unknown;

export interface ReporterOptions {
  readonly log: Log;
  readonly onSkip?: ((event: SkipEvent) => void | Promise<void>) | undefined;
  readonly onSkippedRequest?: CrawleeSkipCallback | undefined;
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
  private readonly listeners = new Set<(event: SkipEvent) => void>();
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

  subscribe(listener: (event: SkipEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Counts and reports a skip, the first time its URL is skipped in this crawl. Never rejects: a
   * throwing user callback is logged, not propagated.
   */
  async skipped(event: SkipEvent): Promise<void> {
    if (this.reported.has(event.url)) return;
    if (this.reported.size >= REPORTED_MEMORY) this.reported.clear();
    this.reported.add(event.url);
    const counters = this.host(event.host);
    const firstForHost = Object.values(counters.skipped).every((count) => count === 0);
    counters.skipped[event.reason]++;
    this.totalSkips[event.reason]++;
    this.logSkip(event, firstForHost);
    for (const listener of this.listeners) this.guard(() => listener(event), 'skip listener');
    if (this.options.onSkip) await this.guardAsync(() => this.options.onSkip?.(event), 'onSkip');
    // A refusal at a redirect hop or at send fails the request (failedRequestHandler); not a Crawlee skip.
    if (event.stage !== 'redirect' && event.stage !== 'send' && this.options.onSkippedRequest) {
      await this.guardAsync(
        () => this.options.onSkippedRequest?.({ url: event.url, reason: 'robotsTxt' }),
        'onSkippedRequest',
      );
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

  private logSkip(event: SkipEvent, firstForHost: boolean): void {
    const rule = event.decision.rule;
    const data = {
      url: event.url,
      reason: event.reason,
      stage: event.stage,
      robotsUrl: event.decision.robotsUrl,
      ...(rule ? { rule: `${rule.directive}: ${rule.pattern}`, line: rule.line } : {}),
    };
    if (firstForHost) {
      this.options.log.info(
        `Skipping requests to ${event.host} per robots.txt (further skips are logged at DEBUG)`,
        data,
      );
    } else {
      this.options.log.debug('Skipped per robots.txt', data);
    }
  }

  private guard(run: () => unknown, what: string): void {
    try {
      run();
    } catch (error) {
      this.options.log.warning(`politely: ${what} threw; ignored`, { error: String(error) });
    }
  }

  private async guardAsync(run: () => unknown, what: string): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.options.log.warning(`politely: ${what} threw; ignored`, { error: String(error) });
    }
  }
}
