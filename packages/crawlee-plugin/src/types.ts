/**
 * Public types of @politely/crawlee: the plugin's own options, what it reports, and its counters.
 */
import type { Configuration } from '@crawlee/core';
import type { SpacingOptions } from '@politely/core/adapter';

/**
 * Why the plugin kept a request from being fetched, as counted in `stats()`. The first three mirror
 * `Decision.reason`; `redirect` is a redirect hop into a disallowed path (the request then fails once,
 * not retried). Each skip is also a `skip` event of the facade (`onEvent`, `politeness.subscribe`).
 */
export type SkipReason =
  | 'disallowed'
  | 'unreachable'
  | 'crawl-delay-too-long'
  | 'rate-limited'
  | 'usage-refused'
  | 'tdm-reserved'
  | 'redirect';

export interface CrawleePolitenessOptions extends SpacingOptions {
  /**
   * Requests held in memory while their host is not due (or its robots.txt is being fetched). When
   * reached, no more requests are pulled from the queue until some leave. Default 1000.
   */
  readonly maxParked?: number;
  /** Drop disallowed URLs at enqueue time when their rules are already in memory. Default true. */
  readonly filterOnEnqueue?: boolean;
  /** Check each redirect hop of the crawler's HTTP client against robots.txt. Default true. */
  readonly checkRedirects?: boolean;
  /**
   * Browser crawlers (Playwright, Puppeteer): the subresources of every page (images, scripts,
   * styles, XHR/fetch, frames), of its own host and of others, are checked against their own
   * robots.txt and aborted when disallowed (`'check'`, as Google's renderer does), or let through
   * unchecked (`'allow'`). They are never paced. Default `'check'`.
   */
  readonly subresources?: 'check' | 'allow';
  /**
   * The Crawlee `Configuration` of the crawl: the default queue (no `requestQueue` of yours) is opened
   * with it, and the plugin's `politely` store lives in its storage. Not needed on Crawlee 3: the
   * plugin sees the one your queue was opened with, or the one you give the crawler as its second
   * argument, and uses that (a different one given here is ignored). Where it sees none, it warns
   * once and keeps robots.txt records and host pace in memory only (never in Crawlee's global
   * storage in place of the crawl's); this option is the way to hand it over.
   */
  readonly config?: Configuration;
  /**
   * For each origin the crawl meets, fetch the sitemaps its robots.txt lists (through the crawler's
   * HTTP client: checked and paced) and enqueue the pages on the origin's hostname they list, which
   * are then checked and paced like any other request. Default false.
   */
  readonly enqueueSitemaps?: boolean;
  /**
   * A page that tells this crawler `nofollow` (an X-Robots-Tag header, for everyone or for its product
   * token, or `<meta name="robots">` / `<meta name="<product token>">`) enqueues nothing through its
   * context's `enqueueLinks`; `addRequests` stays yours. Default true: the site's robots rules are what
   * the plugin obeys once installed, as for robots.txt. `pageDirectives(context)` reads the rules either way.
   */
  readonly respectNofollow?: boolean;
}

/** What the plugin counts, per host and over the crawl. */
interface Counters {
  /** Requests handed to the crawler (a retried request counts once per attempt). */
  readonly fetched: number;
  /** URLs kept from being fetched, by reason (each URL once per crawl). */
  readonly skipped: Readonly<Record<SkipReason, number>>;
  /** Requests held right now, waiting for their host's next slot or its robots.txt. */
  readonly parked: number;
}

/** Counters of one host (the scheduler's host key), for progress displays. */
export interface HostCounters extends Counters {
  readonly host: string;
  /** Epoch ms of the host's next slot as last reported by the scheduler (0 until it made anyone wait). */
  readonly nextSlotAt: number;
}

export interface CrawleePolitenessStats extends Counters {
  /** robots.txt fetches made so far (all outcomes), from the facade's stats. */
  readonly robotsFetches: number;
  /** Per-host counters, busiest first. */
  readonly hosts: readonly HostCounters[];
}
