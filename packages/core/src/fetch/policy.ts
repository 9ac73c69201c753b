/**
 * The fetch policy: what an HTTP outcome for robots.txt means for crawling (RFC 9309 2.3.1). One pure
 * function over one table, so the HTTP client's defaults never decide it (a 5xx error page is not a
 * robots.txt).
 */
import type { FetchOutcome, RobotsFetchResult } from './types.js';

/** What the crawler does with the origin until the next fetch. */
export type RulesPolicy = 'parse' | 'allow-all' | 'disallow-all';

export interface RobotsPolicy {
  readonly outcome: FetchOutcome;
  readonly rules: RulesPolicy;
  /** The RFC 9309 section (or politely option) behind the row. */
  readonly basis: string;
}

export interface PolicyOptions {
  /** 401/403: 'allow' (RFC 9309: unavailable) or 'disallow' (treated like unreachable). Default 'allow'. */
  readonly onUnauthorized?: 'allow' | 'disallow';
}

const OK: RobotsPolicy = { outcome: 'ok', rules: 'parse', basis: 'RFC 9309 2.3.1.1' };
const REDIRECTS_EXHAUSTED: RobotsPolicy = {
  outcome: 'unavailable',
  rules: 'allow-all',
  basis: 'RFC 9309 2.3.1.2',
};
const UNAVAILABLE: RobotsPolicy = { outcome: 'unavailable', rules: 'allow-all', basis: 'RFC 9309 2.3.1.3' };
const UNREACHABLE: RobotsPolicy = {
  outcome: 'unreachable',
  rules: 'disallow-all',
  basis: 'RFC 9309 2.3.1.4',
};
/**
 * A 304 only answers a conditional request (RFC 9110 15.4.5), and says nothing about the rules on its
 * own: the cache renews its copy from one it asked for (cache/refresh.ts). Any other 304 is no answer
 * about the rules, so never an empty robots.txt (allow all): unreachable, retried with backoff.
 */
const NOT_MODIFIED_UNASKED: RobotsPolicy = {
  outcome: 'unreachable',
  rules: 'disallow-all',
  basis: 'RFC 9110 15.4.5',
};
const UNAUTHORIZED_DISALLOWED: RobotsPolicy = {
  outcome: 'unreachable',
  rules: 'disallow-all',
  basis: "onUnauthorized: 'disallow'",
};

/**
 * | outcome                               | policy                          |
 * | ------------------------------------- | ------------------------------- |
 * | 2xx                                   | ok: parse the body              |
 * | 304 (the cache renews its copy first)  | unreachable: disallow all       |
 * | 3xx not followed, too many redirects  | unavailable: allow all          |
 * | 401, 403                              | per onUnauthorized (allow)      |
 * | 429                                   | unreachable: disallow all       |
 * | other 4xx                             | unavailable: allow all          |
 * | 5xx, network error, timeout           | unreachable: disallow all       |
 * | anything else (1xx, > 599)            | unreachable: disallow all       |
 *
 * 429 counts as unreachable because the server asks us to slow down, as Google treats it; a status
 * outside HTTP's classes is not evidence of absent rules, so it errs on the side of not crawling.
 */
export function robotsPolicy(
  result: Pick<RobotsFetchResult, 'status' | 'failure'>,
  options: PolicyOptions = {},
): RobotsPolicy {
  const { status } = result;
  if (result.failure === 'too-many-redirects') return REDIRECTS_EXHAUSTED;
  if (status >= 200 && status <= 299) return OK;
  if (status === 304) return NOT_MODIFIED_UNASKED;
  if (status >= 300 && status <= 399) return REDIRECTS_EXHAUSTED;
  if (status === 401 || status === 403) {
    return options.onUnauthorized === 'disallow' ? UNAUTHORIZED_DISALLOWED : UNAVAILABLE;
  }
  if (status === 429) return UNREACHABLE;
  if (status >= 400 && status <= 499) return UNAVAILABLE;
  return UNREACHABLE;
}

/** The `charset` parameter of a Content-Type header, lower-cased, or undefined. */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1]?.toLowerCase();
}
