export type { KeyvLike } from '../kernel/clients.js';

/** What the cache knows about one origin's robots.txt. Plain data; `robots` is the compiled engine object. */
export interface RobotsEntry {
  /** `https://example.com` (default port folded), the scope the rules apply to (RFC 9309 2.3). */
  readonly origin: string;
  readonly robotsUrl: string;
  /**
   * `robots.txt`: a 2xx body is in force; `unavailable`: allow all; `unreachable`: nothing good is known
   * and the last fetch failed; `stale`: the last fetch failed, a good copy (<= staleTtlMs old) is in force.
   */
  readonly source: 'robots.txt' | 'unavailable' | 'unreachable' | 'stale';
  /** The parsed rules for `robots.txt` and `stale`. */
  readonly robots?: import('../engine/robots-txt.js').RobotsTxt;
  /** HTTP status of the fetch that produced this entry (0: network error/timeout). */
  readonly status: number;
  /**
   * Why the fetch that produced an `unreachable` or `stale` entry failed: `HTTP 503`, or the network
   * error (`getaddrinfo ENOTFOUND shop.internal`, `timed out after 10000 ms`).
   */
  readonly error?: string;
  /** The transport's error code when no answer came (`ECONNREFUSED`, ...); see RobotsFetchResult. */
  readonly code?: string;
  /** See FileEntry (origin-state.ts). */
  readonly route?: string;
  readonly fetchedAt: number;
  /** Until when this entry is used without refetching (epoch ms). */
  readonly freshUntil: number;
  /**
   * `unreachablePolicy: 'google'`, while robots.txt is unreachable: the outage's phase and start.
   * `disallow-all` and `site-down` disallow everything whatever `onUnreachable` says.
   */
  readonly outage?: import('./unreachable-timeline.js').Outage;
}
