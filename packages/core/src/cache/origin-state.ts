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
import type { StoredRobots } from './stored-record.js';
import type { RobotsEntry } from './types.js';

export interface GoodCopy {
  readonly robots: RobotsTxt;
  readonly status: number;
  readonly fetchedAt: number;
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
}

/** The state after a fetch at `fetchedAt`, given what was known before it. */
export function stateAfterFetch(
  origin: string,
  result: RobotsFetchResult,
  previous: OriginState | undefined,
  fetchedAt: number,
  rules: StateRules,
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
    const good = { robots, status: result.status, fetchedAt };
    const entry = entryOf(at, 'ok', freshUntil(fetchedAt, result, rules.limits), good);
    return { entry, outcome: 'ok', failures: 0, good };
  }
  if (policy.outcome === 'unavailable') {
    // The site answered that there are no rules: an older copy must not outlive that answer.
    const entry = entryOf(at, 'unavailable', freshUntil(fetchedAt, result, rules.limits), undefined);
    return { entry, outcome: 'unavailable', failures: 0 };
  }
  const failures = previous?.outcome === 'unreachable' ? previous.failures + 1 : 1;
  const good = usableGood(previous?.good, fetchedAt, rules.staleTtlMs);
  const entry = entryOf(
    at,
    'unreachable',
    retryAt(fetchedAt, failures, result.retryAfter, rules.limits),
    good,
  );
  return { entry, outcome: 'unreachable', failures, ...(good ? { good } : {}) };
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
  if (record.outcome === 'unreachable') good = usableGood(good, now, rules.staleTtlMs);
  const at = {
    origin: record.origin,
    robotsUrl: record.robotsUrl,
    status: record.status,
    fetchedAt: record.fetchedAt,
  };
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
    ...(good
      ? { good: { robots: good.robots.toJSON(), status: good.status, fetchedAt: good.fetchedAt } }
      : {}),
  };
}

/** Records the parse options in the stored value, so processes configured differently never share rules. */
export function parseKeyOf(
  options: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>,
): string {
  return `${options.precedence ?? 'longest'}/${options.wildcards ?? true}/${options.agentMatching ?? 'exact'}/${options.percentEncoding ?? 'rfc'}`;
}

type EntryBase = Pick<RobotsEntry, 'origin' | 'robotsUrl' | 'status' | 'fetchedAt'>;

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

/** A good copy stands in for an unreachable robots.txt for staleTtlMs after it was fetched (2.3.1.4). */
function usableGood(good: GoodCopy | undefined, at: number, staleTtlMs: number): GoodCopy | undefined {
  return good && at - good.fetchedAt <= staleTtlMs ? good : undefined;
}
