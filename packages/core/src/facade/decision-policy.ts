/**
 * The decision policy: a URL's verdict and delay from what the cache knows about its origin's
 * robots.txt and the options. Plain functions without I/O; the facade resolves the host key, then
 * counts and reports what these return.
 */
import type { RobotsEntry } from '../cache/types.js';
import { robotsLocation } from '../fetch/robots-url.js';
import type { Decision } from '../kernel/decision.js';
import { withoutCredentials } from '../kernel/redact.js';
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
>;

/** The decision for `url` given its origin's cache entry; `hostKey` is the scheduler's key for it. */
export function decide(entry: RobotsEntry, url: URL, hostKey: string, policy: DecisionPolicy): Decision {
  const base = {
    url: withoutCredentials(url),
    robotsUrl: entry.robotsUrl,
    productToken: policy.productToken,
    hostKey,
    ...unreachableOutcome(entry),
  };
  if (!entry.robots) {
    // Google's timeline disallows all in its first 12 hours and for a site down after 30 days.
    const phase = entry.outage?.phase;
    const forced = phase === 'disallow-all' || phase === 'site-down';
    const unreachable = entry.source === 'unreachable' && (forced || policy.onUnreachable === 'disallow');
    const common = {
      ...base,
      source: entry.source,
      delayMs: withSafetyMargin(policy.minDelayMs),
      askedDelayMs: policy.minDelayMs,
    };
    return unreachable
      ? { ...common, allowed: false, reason: 'unreachable' }
      : { ...common, allowed: true, reason: 'allowed' };
  }
  const rules = entry.robots.forAgent(policy.productToken);
  const verdict = rules.check(url.href);
  const crawlDelayMs =
    policy.respectCrawlDelay && rules.crawlDelay !== undefined
      ? Math.round(rules.crawlDelay * 1000)
      : undefined;
  const tooLong = crawlDelayMs !== undefined && crawlDelayMs > policy.maxCrawlDelayMs;
  const askedDelayMs = Math.max(policy.minDelayMs, Math.min(crawlDelayMs ?? 0, policy.maxCrawlDelayMs));
  const common = {
    ...base,
    source: entry.source,
    delayMs: withSafetyMargin(askedDelayMs),
    askedDelayMs,
    ...(crawlDelayMs !== undefined ? { crawlDelayMs } : {}),
    ...(verdict.rule ? { rule: verdict.rule } : {}),
  };
  if (!verdict.allowed) return { ...common, allowed: false, reason: 'disallowed' };
  if (tooLong && policy.crawlDelayAboveMax === 'skip')
    return { ...common, allowed: false, reason: 'crawl-delay-too-long' };
  return { ...common, allowed: true, reason: 'allowed' };
}

/**
 * What a refusal (or a stale copy) owes the user: that robots.txt could not be reached, and why, so a
 * proxy or DNS problem reads as one rather than as a site that disallows everything.
 */
function unreachableOutcome(entry: RobotsEntry): Pick<Decision, 'robots'> {
  if (entry.source !== 'unreachable' && entry.source !== 'stale') return {};
  const error = entry.error ?? (entry.status > 0 ? `HTTP ${entry.status}` : 'no answer');
  return { robots: { outcome: 'unreachable', status: entry.status, error } };
}

/** /robots.txt itself is always allowed (RFC 9309 2.2.2), paced by minDelayMs like any request. */
export function robotsTxtItself(
  url: URL,
  hostKey: string,
  policy: Pick<DecisionPolicy, 'productToken' | 'minDelayMs'>,
): Decision {
  return {
    allowed: true,
    reason: 'allowed',
    url: withoutCredentials(url),
    robotsUrl: robotsLocation(url).robotsUrl,
    productToken: policy.productToken,
    source: 'robots.txt-itself',
    delayMs: withSafetyMargin(policy.minDelayMs),
    askedDelayMs: policy.minDelayMs,
    hostKey,
  };
}

/**
 * Spacing is enforced when a request starts on our side; the server sees it shifted by connection
 * latency, which varies from one request to the next (a new connection, a busy event loop). A small
 * upward margin, 10% of the delay and at most 50 ms, keeps the gaps the server sees at or above the
 * delay asked. Jitter only ever goes upward: a Crawl-delay is a floor.
 *
 * Measured at the wire (bench/pacing.ts, two CPU burners), a margin cannot cover latency that varies
 * by more than itself (120 ms of connection setup: gaps of 99 ms for 200 asked), and an adapter that
 * reports the real send with `markSent` needs none (0 gaps below the delay from 50 ms to 1 s), so
 * @politely/got paces by `askedDelayMs`; the margin stays for adapters that cannot see the send.
 */
export function withSafetyMargin(delayMs: number): number {
  return delayMs + Math.min(50, Math.round(delayMs * 0.1));
}

/**
 * The decision paced by the delay asked (`askedDelayMs`), without the margin above: for a request
 * whose real send is reported (`markSent`) before the host's next one reserves. A decision without
 * a margin (disallowed, or made elsewhere) comes back unchanged.
 */
export function withoutSafetyMargin<D extends Decision>(decision: D): D {
  const asked = decision.askedDelayMs;
  return asked === undefined || asked === decision.delayMs ? decision : { ...decision, delayMs: asked };
}
