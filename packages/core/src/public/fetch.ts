/**
 * `@politely/core/fetch`: the robots.txt fetch policy as building blocks, for tools that fetch
 * robots.txt themselves: where an origin's robots.txt lives, a bounded fetch that follows RFC 9309's
 * redirect and size limits, the pure function from an HTTP outcome to rules (RFC 9309 2.3.1), and the
 * Retry-After parser the pacing uses. Also the sitemap follower: the sitemaps a site's robots.txt
 * lists, fetched with your own download and XML parser.
 */
export {
  createSitemapFollower,
  type SitemapEntry,
  type SitemapFollower,
  type SitemapFollowerOptions,
  type SitemapPages,
} from '../facade/sitemap-follower.js';
export { type FetchRobotsOptions, fetchRobotsTxt } from '../fetch/fetcher.js';
export { type RobotsPolicy, robotsPolicy } from '../fetch/policy.js';
export { isRobotsTxtUrl, type RobotsLocation, robotsLocation } from '../fetch/robots-url.js';
export type { FetchLike, FetchLikeResponse, FetchOutcome, RobotsFetchResult } from '../fetch/types.js';
export type { RulesSource } from '../kernel/decision.js';
export { retryAfterMs } from '../kernel/retry-after.js';
