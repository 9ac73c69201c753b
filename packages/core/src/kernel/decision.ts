/**
 * The decision for one URL: shared by the facade that makes it, the errors that carry it and the
 * events that report it, so it sits in the kernel below all three.
 */
import type { MatchedRule } from '../engine/types.js';
import type { UsagePreferences } from '../engine/usage.js';
import type { UsagePurpose, UsageRefusal } from './content-usage.js';

/** Where a TDMRep declaration came from, in the spec's order of precedence (later wins). */
export type TdmSource = 'tdmrep.json' | 'header' | 'meta';

/** What TDMRep says for one URL: reserved or not, by which declaration, and its policy if any. */
export interface TdmReservation {
  /** `tdm-reservation: 1`: TDM rights are reserved; false for `0`. */
  readonly reserved: boolean;
  readonly source: TdmSource;
  /** `tdm-policy`: where the site says how TDM rights may be licensed (HTML or JSON-LD). */
  readonly policy?: string;
  /** For `tdmrep.json`: the file's URL and the `location` of the rule that matched. */
  readonly file?: string;
  readonly location?: string;
}

/** Where the rules behind a decision came from. */
export type RulesSource =
  | 'robots.txt' // a 2xx robots.txt (possibly reached through redirects)
  | 'unavailable' // 4xx / too many redirects: allow all (RFC 9309 2.3.1.3)
  | 'unreachable' // 429 / 5xx / network / timeout with no good copy: disallow all (2.3.1.4)
  | 'stale' // unreachable now, so the last good copy (up to 30 days old) is used
  | 'robots.txt-itself'; // /robots.txt is always fetchable (2.2.2)

/** What a decision carries whatever its verdict. */
interface DecisionBase {
  /** The URL asked about, without userinfo (credentials are never shown). */
  readonly url: string;
  readonly robotsUrl: string;
  readonly productToken: string;
  readonly source: RulesSource;
  /** The deciding rule, when one matched. */
  readonly rule?: MatchedRule;
  /** The Crawl-delay for our agent, in ms, when robots.txt gives one (and respectCrawlDelay is on). */
  readonly crawlDelayMs?: number;
  /** The start-to-start delay that applies to this URL's host: max(minDelayMs, Crawl-delay, capped). */
  readonly delayMs: number;
  /**
   * The same delay without the safety margin `delayMs` carries for adapters that reserve a slot before
   * they can see the request go out. An adapter that reports the real send (`markSent`) paces by this.
   */
  readonly askedDelayMs?: number;
  /** The scheduler's key for this URL (hostname by default). */
  readonly hostKey: string;
  /**
   * Why robots.txt gave no rules, when it could not be reached (source `unreachable`, or `stale` when
   * the last good copy stands in): its status (0: no HTTP answer) and what went wrong, e.g.
   * `{ outcome: 'unreachable', status: 0, error: 'getaddrinfo ENOTFOUND shop.internal' }` or
   * `{ outcome: 'unreachable', status: 503, error: 'HTTP 503' }`.
   */
  readonly robots?: {
    readonly outcome: 'unreachable';
    readonly status: number;
    readonly error: string;
    /**
     * The transport's error code when no answer came (status 0): `ECONNREFUSED`, `ENOTFOUND`,
     * `CERT_HAS_EXPIRED`, `ETIMEDOUT`... Adapters fail with it (`robotsTransportError`), so their
     * client's retry by error code applies.
     */
    readonly code?: string;
  };
  /**
   * The AI usage preferences robots.txt gives for this URL and our agent (Content-Usage,
   * Content-Signal), when any do; only for a URL robots.txt lets us fetch, and only with the `purpose`
   * option set (without one the usage lines are not read: issue 35.3).
   */
  readonly usage?: UsagePreferences;
  /** The `purpose` option the decision was made for, when one is set. */
  readonly purpose?: UsagePurpose;
  /**
   * What TDMRep says for this URL, when the purpose is text and data mining (`ai-train`, `ai-input`)
   * and something does: the origin's tdmrep.json rule when decided, the response's header or the
   * page's meta tag when it refused after the response (reason 'tdm-reserved'), with the policy URL.
   */
  readonly tdm?: TdmReservation;
}

/** The URL may be fetched. */
export interface AllowedDecision extends DecisionBase {
  readonly allowed: true;
  readonly reason: 'allowed';
}

/**
 * The URL may not be fetched: a rule disallows it, robots.txt is unreachable with no good copy, its
 * Crawl-delay is above maxCrawlDelayMs (crawlDelayAboveMax: 'skip'), its host's rate-limit headers
 * ask for more time between requests than maxRateLimitDelayMs until their reset ('rate-limited',
 * rateLimitAboveMax: 'skip', with `rateLimit` saying how long), or its usage preferences say no for
 * the crawl's `purpose` ('usage-refused', with `usageRefusal` saying which line), or TDMRep reserves
 * text and data mining rights for a TDM `purpose` ('tdm-reserved', with `tdm` saying where, and the
 * policy).
 */
export interface DisallowedDecision extends DecisionBase {
  readonly allowed: false;
  readonly reason:
    | 'disallowed'
    | 'unreachable'
    | 'crawl-delay-too-long'
    | 'rate-limited'
    | 'usage-refused'
    | 'tdm-reserved';
  /** For 'usage-refused': the purpose and the label that said no. */
  readonly usageRefusal?: UsageRefusal;
  /** For 'rate-limited': the spacing the host's headers ask for, in ms, and when it ends (epoch ms). */
  readonly rateLimit?: { readonly spacingMs: number; readonly untilMs: number };
}

/**
 * The answer for one URL. Every verdict says why, and which line decided when a rule did. A union on
 * `allowed`: once `!decision.allowed` is checked, `reason` is one of the four refusals.
 */
export type Decision = AllowedDecision | DisallowedDecision;

export type DecisionReason = Decision['reason'];
