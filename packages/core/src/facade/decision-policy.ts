/**
 * The decision policy: a URL's verdict and delay from what the cache knows about its origin's
 * robots.txt and the options. Plain functions without I/O; the facade resolves the host key, then
 * counts and reports what these return.
 */
import type { TdmRepEntry } from '../cache/tdmrep-cache.js';
import type { RobotsEntry } from '../cache/types.js';
import { matchTdmRep } from '../engine/tdmrep.js';
import { refusalOf } from '../engine/usage.js';
import { robotsLocation } from '../fetch/robots-url.js';
import type { Decision } from '../kernel/decision.js';
import { withoutCredentials } from '../kernel/redact.js';
import { withSafetyMargin } from '../kernel/safety-margin.js';
import type { RateLimitPace } from '../signals/host-signal.js';
import type { ResolvedOptions } from './options.js';

/** The options a decision depends on. */
export type DecisionPolicy = Pick<
  ResolvedOptions,
  | 'productToken'
  | 'minDelayMs'
  | 'respectCrawlDelay'
  | 'maxCrawlDelayMs'
  | 'crawlDelayAboveMax'
  | 'onUnreachable'
  | 'purpose'
>;

/**
 * The decision for `url` given its origin's cache entry; `hostKey` is the scheduler's key for it.
 * Built as one object, field by field (no spreads: this runs for every request).
 */
export function decide(entry: RobotsEntry, url: URL, hostKey: string, policy: DecisionPolicy): Decision {
  const decision: Record<string, unknown> = {
    url: withoutCredentials(url),
    robotsUrl: entry.robotsUrl,
    productToken: policy.productToken,
    hostKey,
  };
  const robots = unreachableOutcome(entry);
  if (robots !== undefined) decision.robots = robots;
  if (policy.purpose !== undefined) decision.purpose = policy.purpose;
  decision.source = entry.source;
  if (!entry.robots) {
    // Google's timeline disallows all in its first 12 hours and for a site down after 30 days.
    const phase = entry.outage?.phase;
    const forced = phase === 'disallow-all' || phase === 'site-down';
    const unreachable = entry.source === 'unreachable' && (forced || policy.onUnreachable === 'disallow');
    decision.delayMs = withSafetyMargin(policy.minDelayMs);
    decision.askedDelayMs = policy.minDelayMs;
    return verdict(decision, !unreachable, unreachable ? 'unreachable' : 'allowed');
  }
  const rules = entry.robots.forAgent(policy.productToken);
  const matched = rules.check(url.href);
  const crawlDelayMs = crawlDelayOf(rules.crawlDelay, policy);
  const tooLong = crawlDelayMs !== undefined && crawlDelayMs > policy.maxCrawlDelayMs;
  const askedDelayMs = askedOf(crawlDelayMs, policy);
  decision.delayMs = withSafetyMargin(askedDelayMs);
  decision.askedDelayMs = askedDelayMs;
  if (crawlDelayMs !== undefined) decision.crawlDelayMs = crawlDelayMs;
  if (matched.rule) decision.rule = matched.rule;
  if (!matched.allowed) return verdict(decision, false, 'disallowed');
  if (tooLong && policy.crawlDelayAboveMax === 'skip')
    return verdict(decision, false, 'crawl-delay-too-long');
  // Without a purpose nothing is refused for usage, and the usage lines are neither compiled nor
  // read: a crawl that does not ask pays nothing for files full of them.
  if (policy.purpose === undefined) return verdict(decision, true, 'allowed');
  const usage = rules.usage(url.href);
  if (usage === undefined) return verdict(decision, true, 'allowed');
  decision.usage = usage;
  const refusal = refusalOf(usage, policy.purpose);
  if (refusal === undefined) return verdict(decision, true, 'allowed');
  verdict(decision, false, 'usage-refused');
  decision.usageRefusal = refusal;
  return decision as unknown as Decision;
}

/**
 * The delay, start to start, a host asks of every request to it given its origin's robots.txt entry:
 * max(minDelayMs, Crawl-delay for our product token, capped at maxCrawlDelayMs), as `askedDelayMs`
 * of a decision. Without an entry (not fetched yet) or without rules (unreachable), minDelayMs. The
 * one rule for a page's decision and for the origin's own files (robots-fetch-pacing.ts), so a
 * robots.txt or tdmrep.json fetch is followed by the same gap as a page.
 */
export function delayAsked(
  entry: RobotsEntry | undefined,
  policy: Pick<DecisionPolicy, 'productToken' | 'minDelayMs' | 'respectCrawlDelay' | 'maxCrawlDelayMs'>,
): number {
  const robots = entry?.robots;
  if (!robots) return policy.minDelayMs;
  return askedOf(crawlDelayOf(robots.forAgent(policy.productToken).crawlDelay, policy), policy);
}

/** robots.txt's Crawl-delay (seconds) in ms when it is honoured. */
function crawlDelayOf(
  seconds: number | undefined,
  policy: Pick<DecisionPolicy, 'respectCrawlDelay'>,
): number | undefined {
  return policy.respectCrawlDelay && seconds !== undefined ? Math.round(seconds * 1000) : undefined;
}

function askedOf(
  crawlDelayMs: number | undefined,
  policy: Pick<DecisionPolicy, 'minDelayMs' | 'maxCrawlDelayMs'>,
): number {
  return Math.max(policy.minDelayMs, Math.min(crawlDelayMs ?? 0, policy.maxCrawlDelayMs));
}

function verdict(decision: Record<string, unknown>, allowed: boolean, reason: Decision['reason']): Decision {
  decision.allowed = allowed;
  decision.reason = reason;
  return decision as unknown as Decision;
}

/**
 * An allowed decision under the origin's tdmrep.json (TDMRep, `purpose` 'ai-train' or 'ai-input';
 * the caller passes the file only then): the first rule whose location matches the URL is carried
 * as `decision.tdm`, and one that reserves TDM rights refuses the URL before it is fetched (reason
 * 'tdm-reserved', with the rule's policy). A refusal by robots.txt stands as it is, and so does an
 * unset URL. A response's header or meta tag may still refuse what the file left open
 * (kernel/tdm-reservation.ts); one that says 0 cannot reopen what the file reserved, as the page is
 * never asked for: the request the file reserves is the one not sent.
 */
export function tdmFileVerdict(decision: Decision, file: TdmRepEntry | undefined, url: URL): Decision {
  if (!decision.allowed || file === undefined || file.rules.length === 0) return decision;
  const rule = matchTdmRep(file.rules, url.href);
  if (rule === undefined) return decision;
  const tdm = {
    reserved: rule.reservation === 1,
    source: 'tdmrep.json' as const,
    file: file.fileUrl,
    location: rule.location,
    ...(rule.policy !== undefined ? { policy: rule.policy } : {}),
  };
  return tdm.reserved ? { ...decision, tdm, allowed: false, reason: 'tdm-reserved' } : { ...decision, tdm };
}

/**
 * An allowed decision for a host whose rate-limit headers ask for more than maxRateLimitDelayMs
 * between requests (`limit`, until its reset), under rateLimitAboveMax: 'skip', becomes a refusal
 * (reason 'rate-limited'), as a Crawl-delay above maxCrawlDelayMs does under crawlDelayAboveMax:
 * 'skip'. 'wait' paces the host as asked and 'fail' fails its pacing slot (politeness.ts): neither
 * changes the verdict.
 */
export function rateLimitVerdict(
  decision: Decision,
  limit: RateLimitPace | undefined,
  policy: Pick<ResolvedOptions, 'rateLimitAboveMax'>,
): Decision {
  if (!decision.allowed || !limit || policy.rateLimitAboveMax !== 'skip') return decision;
  return {
    ...decision,
    allowed: false,
    reason: 'rate-limited',
    rateLimit: { spacingMs: limit.spacingMs, untilMs: limit.untilMs },
  };
}

/**
 * What a refusal (or a stale copy) owes the user: that robots.txt could not be reached, and why, so a
 * proxy or DNS problem reads as one rather than as a site that disallows everything.
 */
function unreachableOutcome(entry: RobotsEntry): Decision['robots'] {
  if (entry.source !== 'unreachable' && entry.source !== 'stale') return undefined;
  const error = entry.error ?? (entry.status > 0 ? `HTTP ${entry.status}` : 'no answer');
  const code = entry.status === 0 ? entry.code : undefined;
  return { outcome: 'unreachable', status: entry.status, error, ...(code ? { code } : {}) };
}

/**
 * /robots.txt itself is always allowed (RFC 9309 2.2.2), and paced like any request to the host: by
 * the delay its copy in memory asks (`known`), minDelayMs when none is.
 */
export function robotsTxtItself(
  url: URL,
  hostKey: string,
  policy: Pick<DecisionPolicy, 'productToken' | 'minDelayMs' | 'respectCrawlDelay' | 'maxCrawlDelayMs'>,
  known?: RobotsEntry,
): Decision {
  const askedDelayMs = delayAsked(known, policy);
  return {
    allowed: true,
    reason: 'allowed',
    url: withoutCredentials(url),
    robotsUrl: robotsLocation(url).robotsUrl,
    productToken: policy.productToken,
    source: 'robots.txt-itself',
    delayMs: withSafetyMargin(askedDelayMs),
    askedDelayMs,
    hostKey,
  };
}
