/**
 * What the cache knows about one origin's well-known file (robots.txt, tdmrep.json), and how it moves:
 * a fetch result or a stored record becomes the entry handed to callers plus what the next fetch
 * builds on (consecutive failures for the backoff, the last good copy for stale-if-error). What
 * differs between files (how a body reads, how its rules are stored and counted, what its entry
 * looks like, what a fetch reports) is the file's `WellKnownFile`; the rest is one state machine.
 * Pure: time comes in as arguments.
 */
import { type FreshnessLimits, freshUntil, retryAt } from '../fetch/freshness.js';
import { robotsPolicy } from '../fetch/policy.js';
import type { FetchOutcome, RobotsFetchResult } from '../fetch/types.js';
import type { PolitelyEvent } from '../kernel/events.js';
import { identifiesCopy, type Revalidation, renewedRevalidation, revalidationOf } from './revalidation.js';
import { MAX_STORED_ERROR, type StoredRecord } from './stored-record.js';
import {
  needsSiteCheck,
  type Outage,
  phaseAt,
  phaseEndsAt,
  type UnreachablePolicy,
} from './unreachable-timeline.js';

/** What every file's entry carries, whatever else it holds. */
export interface FileEntry {
  readonly origin: string;
  readonly status: number;
  readonly fetchedAt: number;
  /** Until when this entry is used without refetching (epoch ms). */
  readonly freshUntil: number;
  readonly error?: string;
  readonly outage?: Outage;
  /**
   * The route (`robots.route`) a fetch that got no answer went out by: the failure is held only for
   * requests going that route, or none (file-cache.ts). Kept in process memory only.
   */
  readonly route?: string;
}

/** What the state machine hands a file to build its entry from (`url`: the file's URL at the origin). */
export interface EntryParts<R> extends FileEntry {
  readonly url: string;
  /** `ok`: a 2xx copy is in force; `stale`: the last fetch failed, the last good copy stands in. */
  readonly source: 'ok' | 'unavailable' | 'unreachable' | 'stale';
  /** The rules in force (`ok`, `stale`). */
  readonly rules?: R;
  readonly code?: string;
}

/** What one fetch did (robots.txt reports it as it is, a `robots-fetch` event; `robotsUrl`: the file's URL). */
export type FetchReport = Omit<Extract<PolitelyEvent, { type: 'robots-fetch' }>, 'type'>;

/**
 * One well-known file of an origin, as the cache keeps it: `R` its rules once read (compiled, what a
 * check matches against), `E` the entry its callers get. The cache, the store records, the fleet
 * lock, freshness, revalidation and the unreachable handling are the same for every file.
 */
export interface WellKnownFile<R, E extends FileEntry> {
  /** `/robots.txt`, `/.well-known/tdmrep.json`. */
  readonly path: string;
  /** The store's key prefix for this file's records. */
  readonly storePrefix: string;
  /** The fleet lock's name for an origin's fetch of this file. */
  lockName(origin: string): string;
  /** Sent as Accept; undefined: the fetcher's (text/plain first). */
  readonly accept?: string;
  /** How rules are read, written into stored records: a record read otherwise is not loaded. */
  readonly parseKey: string;
  /** A 2xx body (cut at the byte limit) read into rules. Never throws. */
  read(result: RobotsFetchResult): R;
  /** The rules as plain JSON for the store. */
  toJSON(rules: R): unknown;
  /** Stored rules back, checked as a fetched body is; throws for rules this process would not have read. */
  fromJSON(json: unknown, url: string): R;
  /** Bytes the rules hold in process memory, estimated from the structures built (errs high). */
  estimateBytes(rules: R): number;
  entry(parts: EntryParts<R>): E;
  /** After each fetch: the event it makes, if any; no state after a 304 that renewed nothing. */
  fetched(report: FetchReport, state: OriginState<R, E> | undefined): PolitelyEvent | undefined;
  /** After a newer state replaced an older one: what changed, if this file announces it. */
  changed?(previous: OriginState<R, E>, next: OriginState<R, E>): PolitelyEvent | undefined;
}

export interface GoodCopy<R> {
  readonly rules: R;
  readonly status: number;
  /** When the copy was fetched, or last confirmed by a 304. */
  readonly fetchedAt: number;
  /** Its validators and caching headers, when the site sent a validator: the next refresh is conditional. */
  readonly revalidation?: Revalidation;
}

export interface OriginState<R, E extends FileEntry> {
  readonly entry: E;
  /** Outcome of the latest fetch. */
  readonly outcome: FetchOutcome;
  /** Consecutive unreachable outcomes; 0 after a success. */
  readonly failures: number;
  /** The latest 2xx copy, kept while it is in force or usable as stale-if-error. */
  readonly good?: GoodCopy<R>;
}

export interface StateRules<R, E extends FileEntry> {
  readonly file: WellKnownFile<R, E>;
  readonly limits: FreshnessLimits;
  readonly staleTtlMs: number;
  readonly onUnauthorized: 'allow' | 'disallow';
  /** 'google': an unreachable file follows Google's timeline (unreachable-timeline.ts). */
  readonly unreachablePolicy: UnreachablePolicy;
}

/** The home page's answer, asked for when Google's timeline needs it (siteCheckNeeded). */
export interface SiteAnswer {
  readonly answered: boolean;
  readonly status: number;
}
/**
 * True when a fetch at `at` with this result leaves the file unreachable for 30 days or more under
 * Google's timeline: whether the site's pages answer then decides between allow-all and site-down.
 */
export function siteCheckNeeded<R, E extends FileEntry>(
  result: RobotsFetchResult,
  previous: OriginState<R, E> | undefined,
  at: number,
  rules: StateRules<R, E>,
): boolean {
  if (rules.unreachablePolicy !== 'google') return false;
  if (robotsPolicy(result, { onUnauthorized: rules.onUnauthorized }).outcome !== 'unreachable') return false;
  return needsSiteCheck(outageSince(previous, at), at);
}

/** The state after a fetch at `fetchedAt`, given what was known before it (and the site check, if any). */
export function stateAfterFetch<R, E extends FileEntry>(
  origin: string,
  result: RobotsFetchResult,
  previous: OriginState<R, E> | undefined,
  fetchedAt: number,
  rules: StateRules<R, E>,
  site?: SiteAnswer,
): OriginState<R, E> {
  const policy = robotsPolicy(result, { onUnauthorized: rules.onUnauthorized });
  const at = { origin, url: result.robotsUrl, status: result.status, fetchedAt };
  if (policy.outcome === 'ok') {
    const revalidation = revalidationOf(result, fetchedAt);
    const good: GoodCopy<R> = {
      rules: rules.file.read(result),
      status: result.status,
      fetchedAt,
      ...(revalidation ? { revalidation } : {}),
    };
    const entry = entryOf(rules, at, 'ok', freshUntil(fetchedAt, result, rules.limits), good);
    return { entry, outcome: 'ok', failures: 0, good };
  }
  if (policy.outcome === 'unavailable') {
    // The site answered that there is no file: an older copy must not outlive that answer.
    const entry = entryOf(rules, at, 'unavailable', freshUntil(fetchedAt, result, rules.limits), undefined);
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
    return outageState(rules, failed, outage, fresh, failures, previous?.good);
  }
  const good = usableGood(previous?.good, fetchedAt, rules.staleTtlMs);
  const entry = entryOf(rules, failed, 'unreachable', retry, good);
  return { entry, outcome: 'unreachable', failures, ...(good ? { good } : {}) };
}

/**
 * The state after a 304 Not Modified to the conditional request made from `previous`'s copy: the same
 * rules, confirmed at `fetchedAt`, fresh for what the 304's Cache-Control / Expires say (the copy's
 * own when it sends none, RFC 9111 4.3.4), within the same limits as a 200. Undefined when the 304
 * renews nothing: no copy in force, content on the 304, or a validator that names another copy; the
 * caller then fetches without conditions.
 */
export function stateAfterNotModified<R, E extends FileEntry>(
  previous: OriginState<R, E> | undefined,
  result: RobotsFetchResult,
  fetchedAt: number,
  rules: StateRules<R, E>,
): OriginState<R, E> | undefined {
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
  const good: GoodCopy<R> = { rules: copy.rules, status: copy.status, fetchedAt, revalidation };
  const at = { origin: previous.entry.origin, url: result.robotsUrl, status: copy.status, fetchedAt };
  const entry = entryOf(rules, at, 'ok', freshUntil(fetchedAt, revalidation, rules.limits), good);
  return { entry, outcome: 'ok', failures: 0, good };
}

/** The state a stored record describes at `now`; undefined when its rules do not load (a rejected record). */
export function stateFromStored<R, E extends FileEntry>(
  record: StoredRecord,
  now: number,
  rules: StateRules<R, E>,
): OriginState<R, E> | undefined {
  let good: GoodCopy<R> | undefined;
  if (record.good) {
    try {
      const { robots: json, ...kept } = record.good;
      good = { ...kept, rules: rules.file.fromJSON(json, record.robotsUrl) };
    } catch {
      return undefined;
    }
  }
  const at = {
    origin: record.origin,
    url: record.robotsUrl,
    status: record.status,
    fetchedAt: record.fetchedAt,
    ...(record.outcome === 'unreachable' && record.error !== undefined ? { error: record.error } : {}),
  };
  if (record.outcome === 'unreachable' && rules.unreachablePolicy === 'google') {
    // A record written without the timeline (policy 'rfc') knows only its latest failure.
    const outage = record.outage ?? { since: record.fetchedAt, phase: 'disallow-all' };
    return outageState(rules, at, outage, record.freshUntil, record.failures, good);
  }
  if (record.outcome === 'unreachable') good = usableGood(good, now, rules.staleTtlMs);
  const entry = entryOf(rules, at, record.outcome, record.freshUntil, good);
  return { entry, outcome: record.outcome, failures: record.failures, ...(good ? { good } : {}) };
}

export function storedFromState<R, E extends FileEntry>(
  state: OriginState<R, E>,
  rules: StateRules<R, E>,
): StoredRecord {
  const { entry, good } = state;
  return {
    v: 1,
    origin: entry.origin,
    robotsUrl: `${entry.origin}${rules.file.path}`,
    outcome: state.outcome,
    status: entry.status,
    fetchedAt: entry.fetchedAt,
    freshUntil: entry.freshUntil,
    failures: state.failures,
    parse: rules.file.parseKey,
    ...(state.outcome === 'unreachable' && entry.error !== undefined ? { error: entry.error } : {}),
    ...(entry.outage ? { outage: entry.outage } : {}),
    ...(good
      ? {
          good: {
            robots: rules.file.toJSON(good.rules),
            status: good.status,
            fetchedAt: good.fetchedAt,
            ...(good.revalidation ? { revalidation: good.revalidation } : {}),
          },
        }
      : {}),
  };
}

type EntryBase = Omit<EntryParts<unknown>, 'source' | 'rules' | 'freshUntil' | 'outage'>;

/** The first retry after a transport failure, in ms; it doubles per consecutive one (`unreachableRetryMs` at most). */
export const TRANSPORT_RETRY_MS = 1000;

/**
 * When to fetch the file again after a failure. A site that answered (429, 5xx) keeps RFC 9309's
 * backoff (`retryAt`). A transport failure (no answer: refused, unresolved, a bad certificate, a
 * timeout) says nothing about the site's rules and is often the client's own trouble (a proxy, a
 * short timeout, a network blip): the first is not kept at all, so the caller's retry asks for the
 * file again as the client would retry its page; from the second on, 1 s doubling up to
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

function entryOf<R, E extends FileEntry>(
  rules: StateRules<R, E>,
  base: EntryBase,
  outcome: FetchOutcome,
  fresh: number,
  good: GoodCopy<R> | undefined,
): E {
  const entry = { ...base, freshUntil: fresh };
  if (outcome === 'ok' && good) return rules.file.entry({ ...entry, source: 'ok', rules: good.rules });
  if (outcome === 'unreachable' && good)
    return rules.file.entry({ ...entry, source: 'stale', rules: good.rules });
  return rules.file.entry({ ...entry, source: outcome === 'unreachable' ? 'unreachable' : 'unavailable' });
}

/** When the outage a fetch at `at` belongs to began: the previous one goes on, or a new one starts. */
function outageSince<R, E extends FileEntry>(previous: OriginState<R, E> | undefined, at: number): number {
  if (previous?.outcome !== 'unreachable') return at;
  // A state built without the timeline knows only its latest failure.
  return previous.entry.outage?.since ?? previous.entry.fetchedAt;
}

/**
 * An unreachable origin under Google's timeline. The last good copy is kept through the first two
 * phases (hidden during the first 12 hours) and dropped from 30 days on, when the site is treated as
 * having no robots.txt (allow-all) or as down (site-down).
 */
function outageState<R, E extends FileEntry>(
  rules: StateRules<R, E>,
  base: EntryBase,
  outage: Outage,
  fresh: number,
  failures: number,
  previousGood: GoodCopy<R> | undefined,
): OriginState<R, E> {
  const good =
    outage.phase === 'disallow-all' || outage.phase === 'last-good-copy' ? previousGood : undefined;
  const entry = { ...base, freshUntil: fresh, outage };
  const shown =
    outage.phase === 'allow-all'
      ? rules.file.entry({ ...entry, source: 'unavailable' })
      : outage.phase === 'last-good-copy' && good
        ? rules.file.entry({ ...entry, source: 'stale', rules: good.rules })
        : rules.file.entry({ ...entry, source: 'unreachable' });
  return { entry: shown, outcome: 'unreachable', failures, ...(good ? { good } : {}) };
}

/** A good copy stands in for an unreachable file for staleTtlMs after it was fetched (2.3.1.4). */
function usableGood<R>(
  good: GoodCopy<R> | undefined,
  at: number,
  staleTtlMs: number,
): GoodCopy<R> | undefined {
  return good && at - good.fetchedAt <= staleTtlMs ? good : undefined;
}
