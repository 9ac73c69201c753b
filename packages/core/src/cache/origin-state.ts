/**
 * What the cache knows about one origin, and how it moves: a fetch result or a stored record becomes
 * the entry handed to callers plus what the next fetch builds on (consecutive failures for the backoff,
 * the last good copy for stale-if-error). Pure: time comes in as arguments.
 */
import { parseRobotsTxt, RobotsTxt } from '../engine/index.js';
import type { ParseOptions } from '../engine/types.js';
import { type FreshnessLimits, freshUntil, retryAt } from '../fetch/freshness.js';
import { charsetOf, robotsPolicy } from '../fetch/policy.js';
import type { FetchOutcome, RobotsFetchResult } from '../fetch/types.js';
import { identifiesCopy, type Revalidation, renewedRevalidation, revalidationOf } from './revalidation.js';
import { MAX_STORED_ERROR, type StoredRobots } from './stored-record.js';
import type { RobotsEntry } from './types.js';
import {
  needsSiteCheck,
  type Outage,
  phaseAt,
  phaseEndsAt,
  type UnreachablePolicy,
} from './unreachable-timeline.js';

export interface GoodCopy {
  readonly robots: RobotsTxt;
  readonly status: number;
  /** When the copy was fetched, or last confirmed by a 304. */
  readonly fetchedAt: number;
  /** Its validators and caching headers, when the site sent a validator: the next refresh is conditional. */
  readonly revalidation?: Revalidation;
}

export interface OriginState {
  readonly entry: RobotsEntry;
  /** Outcome of the latest fetch. */
  readonly outcome: FetchOutcome;
  /** Consecutive unreachable outcomes; 0 after a success. */
  readonly failures: number;
  /** The latest 2xx copy, kept while it is in force or usable as stale-if-error. */
  readonly good?: GoodCopy;
}

export interface StateRules {
  readonly limits: FreshnessLimits;
  readonly staleTtlMs: number;
  readonly maxBytes: number;
  readonly onUnauthorized: 'allow' | 'disallow';
  readonly parseOptions: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>;
  /** Fingerprint of parseOptions, written into stored records. */
  readonly parseKey: string;
  /** 'google': an unreachable robots.txt follows Google's timeline (unreachable-timeline.ts). */
  readonly unreachablePolicy: UnreachablePolicy;
}

/** The home page's answer, asked for when Google's timeline needs it (siteCheckNeeded). */
export interface SiteAnswer {
  readonly answered: boolean;
  readonly status: number;
}

/**
 * True when a fetch at `at` with this result leaves robots.txt unreachable for 30 days or more under
 * Google's timeline: whether the site's pages answer then decides between allow-all and site-down.
 */
export function siteCheckNeeded(
  result: RobotsFetchResult,
  previous: OriginState | undefined,
  at: number,
  rules: StateRules,
): boolean {
  if (rules.unreachablePolicy !== 'google') return false;
  if (robotsPolicy(result, { onUnauthorized: rules.onUnauthorized }).outcome !== 'unreachable') return false;
  return needsSiteCheck(outageSince(previous, at), at);
}

/** The state after a fetch at `fetchedAt`, given what was known before it (and the site check, if any). */
export function stateAfterFetch(
  origin: string,
  result: RobotsFetchResult,
  previous: OriginState | undefined,
  fetchedAt: number,
  rules: StateRules,
  site?: SiteAnswer,
): OriginState {
  const policy = robotsPolicy(result, { onUnauthorized: rules.onUnauthorized });
  const at = { origin, robotsUrl: result.robotsUrl, status: result.status, fetchedAt };
  if (policy.outcome === 'ok') {
    const charset = charsetOf(result.contentType);
    const robots = parseRobotsTxt(result.body ?? new Uint8Array(), {
      ...rules.parseOptions,
      maxBytes: rules.maxBytes,
      ...(charset ? { charset } : {}),
    });
    const revalidation = revalidationOf(result, fetchedAt);
    const good = { robots, status: result.status, fetchedAt, ...(revalidation ? { revalidation } : {}) };
    const entry = entryOf(at, 'ok', freshUntil(fetchedAt, result, rules.limits), good);
    return { entry, outcome: 'ok', failures: 0, good };
  }
  if (policy.outcome === 'unavailable') {
    // The site answered that there are no rules: an older copy must not outlive that answer.
    const entry = entryOf(at, 'unavailable', freshUntil(fetchedAt, result, rules.limits), undefined);
    return { entry, outcome: 'unavailable', failures: 0 };
  }
  const failures = previous?.outcome === 'unreachable' ? previous.failures + 1 : 1;
  const failed = { ...at, error: failureOf(result), ...(result.code ? { code: result.code } : {}) };
  const retry = retryAfterFailure(fetchedAt, failures, result, rules.limits);
  if (rules.unreachablePolicy === 'google') {
    const since = outageSince(previous, fetchedAt);
    const outage: Outage = {
      since,
      phase: phaseAt(since, fetchedAt, site?.answered ?? false),
      ...(site ? { siteStatus: site.status } : {}),
    };
    // The next phase starts on time: a backoff never carries an old phase past its end.
    const fresh = Math.min(retry, phaseEndsAt(since, fetchedAt) ?? retry);
    return outageState(failed, outage, fresh, failures, previous?.good);
  }
  const good = usableGood(previous?.good, fetchedAt, rules.staleTtlMs);
  const entry = entryOf(failed, 'unreachable', retry, good);
  return { entry, outcome: 'unreachable', failures, ...(good ? { good } : {}) };
}

/**
 * The state after a 304 Not Modified to the conditional request made from `previous`'s copy: the same
 * rules, confirmed at `fetchedAt`, fresh for what the 304's Cache-Control / Expires say (the copy's
 * own when it sends none, RFC 9111 4.3.4), within the same limits as a 200. Undefined when the 304
 * renews nothing: no copy in force, content on the 304, or a validator that names another copy; the
 * caller then fetches without conditions.
 */
export function stateAfterNotModified(
  previous: OriginState | undefined,
  result: RobotsFetchResult,
  fetchedAt: number,
  rules: StateRules,
): OriginState | undefined {
  const copy = previous?.outcome === 'ok' ? previous.good : undefined;
  const asked = copy?.revalidation;
  if (
    !previous ||
    !copy ||
    !asked ||
    result.status !== 304 ||
    !result.conditional ||
    result.notModifiedWithBody
  ) {
    return undefined;
  }
  if (!identifiesCopy(asked, result)) return undefined;
  const revalidation = renewedRevalidation(asked, result);
  const good: GoodCopy = { robots: copy.robots, status: copy.status, fetchedAt, revalidation };
  const at = { origin: previous.entry.origin, robotsUrl: result.robotsUrl, status: copy.status, fetchedAt };
  const entry = entryOf(at, 'ok', freshUntil(fetchedAt, revalidation, rules.limits), good);
  return { entry, outcome: 'ok', failures: 0, good };
}

/** The state a stored record describes at `now`; undefined when its rules do not load (a rejected record). */
export function stateFromStored(
  record: StoredRobots,
  now: number,
  rules: StateRules,
): OriginState | undefined {
  let good: GoodCopy | undefined;
  if (record.good) {
    try {
      good = { ...record.good, robots: RobotsTxt.fromJSON(record.good.robots) };
    } catch {
      return undefined;
    }
  }
  const at = {
    origin: record.origin,
    robotsUrl: record.robotsUrl,
    status: record.status,
    fetchedAt: record.fetchedAt,
    ...(record.outcome === 'unreachable' && record.error !== undefined ? { error: record.error } : {}),
  };
  if (record.outcome === 'unreachable' && rules.unreachablePolicy === 'google') {
    // A record written without the timeline (policy 'rfc') knows only its latest failure.
    const outage = record.outage ?? { since: record.fetchedAt, phase: 'disallow-all' };
    return outageState(at, outage, record.freshUntil, record.failures, good);
  }
  if (record.outcome === 'unreachable') good = usableGood(good, now, rules.staleTtlMs);
  const entry = entryOf(at, record.outcome, record.freshUntil, good);
  return { entry, outcome: record.outcome, failures: record.failures, ...(good ? { good } : {}) };
}

export function storedFromState(state: OriginState, rules: StateRules): StoredRobots {
  const { entry, good } = state;
  return {
    v: 1,
    origin: entry.origin,
    robotsUrl: entry.robotsUrl,
    outcome: state.outcome,
    status: entry.status,
    fetchedAt: entry.fetchedAt,
    freshUntil: entry.freshUntil,
    failures: state.failures,
    parse: rules.parseKey,
    ...(state.outcome === 'unreachable' && entry.error !== undefined ? { error: entry.error } : {}),
    ...(entry.outage ? { outage: entry.outage } : {}),
    ...(good
      ? {
          good: {
            robots: good.robots.toJSON(),
            status: good.status,
            fetchedAt: good.fetchedAt,
            ...(good.revalidation ? { revalidation: good.revalidation } : {}),
          },
        }
      : {}),
  };
}

/** Records the parse options in the stored value, so processes configured differently never share rules. */
export function parseKeyOf(
  options: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>,
): string {
  return `${options.precedence ?? 'longest'}/${options.wildcards ?? true}/${options.agentMatching ?? 'exact'}/${options.percentEncoding ?? 'rfc'}`;
}

type EntryBase = Pick<RobotsEntry, 'origin' | 'robotsUrl' | 'status' | 'fetchedAt' | 'error' | 'code'>;

/** The first retry after a transport failure, in ms; it doubles per consecutive one (`unreachableRetryMs` at most). */
export const TRANSPORT_RETRY_MS = 1000;

/**
 * When to fetch robots.txt again after a failure. A site that answered (429, 5xx) keeps RFC 9309's
 * backoff (`retryAt`). A transport failure (no answer: refused, unresolved, a bad certificate, a
 * timeout) says nothing about the site's rules and is often the client's own trouble (a proxy, a
 * short timeout, a network blip): the first is not kept at all, so the caller's retry asks robots.txt
 * again as the client would retry its page; from the second on, 1 s doubling up to
 * `unreachableRetryMs`, so a dead host is not asked on every request. The page is refused all the same
 * while robots.txt is unreachable (2.3.1.4).
 */
function retryAfterFailure(
  at: number,
  failures: number,
  result: RobotsFetchResult,
  limits: FreshnessLimits,
): number {
  const transport = result.status === 0 && (result.failure === 'network' || result.failure === 'timeout');
  if (!transport) return retryAt(at, failures, result.retryAfter, limits);
  if (failures <= 1) return at;
  return at + Math.min(TRANSPORT_RETRY_MS * 2 ** Math.min(failures - 2, 30), limits.unreachableRetryMs);
}

/** Why a fetch counted as unreachable: its HTTP status, or the network error the fetcher reported. */
function failureOf(result: RobotsFetchResult): string {
  const why = result.status > 0 ? `HTTP ${result.status}` : (result.error ?? 'no answer');
  return why.length > MAX_STORED_ERROR ? `${why.slice(0, MAX_STORED_ERROR - 1)}…` : why;
}

function entryOf(
  base: EntryBase,
  outcome: FetchOutcome,
  fresh: number,
  good: GoodCopy | undefined,
): RobotsEntry {
  const entry = { ...base, freshUntil: fresh };
  if (outcome === 'ok' && good) return { ...entry, source: 'robots.txt', robots: good.robots };
  if (outcome === 'unreachable' && good) return { ...entry, source: 'stale', robots: good.robots };
  return { ...entry, source: outcome === 'unreachable' ? 'unreachable' : 'unavailable' };
}

/** When the outage a fetch at `at` belongs to began: the previous one goes on, or a new one starts. */
function outageSince(previous: OriginState | undefined, at: number): number {
  if (previous?.outcome !== 'unreachable') return at;
  // A state built without the timeline knows only its latest failure.
  return previous.entry.outage?.since ?? previous.entry.fetchedAt;
}

/**
 * An unreachable origin under Google's timeline. The last good copy is kept through the first two
 * phases (hidden during the first 12 hours) and dropped from 30 days on, when the site is treated as
 * having no robots.txt (allow-all) or as down (site-down).
 */
function outageState(
  base: EntryBase,
  outage: Outage,
  fresh: number,
  failures: number,
  previousGood: GoodCopy | undefined,
): OriginState {
  const good =
    outage.phase === 'disallow-all' || outage.phase === 'last-good-copy' ? previousGood : undefined;
  const entry = { ...base, freshUntil: fresh, outage };
  const shown: RobotsEntry =
    outage.phase === 'allow-all'
      ? { ...entry, source: 'unavailable' }
      : outage.phase === 'last-good-copy' && good
        ? { ...entry, source: 'stale', robots: good.robots }
        : { ...entry, source: 'unreachable' };
  return { entry: shown, outcome: 'unreachable', failures, ...(good ? { good } : {}) };
}

/** A good copy stands in for an unreachable robots.txt for staleTtlMs after it was fetched (2.3.1.4). */
function usableGood(good: GoodCopy | undefined, at: number, staleTtlMs: number): GoodCopy | undefined {
  return good && at - good.fetchedAt <= staleTtlMs ? good : undefined;
}
