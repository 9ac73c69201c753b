/**
 * The value kept in the store for one origin's well-known file: plain JSON, versioned, checked on the
 * way in. Anything that does not decode (garbage, an older layout, another origin, other parse
 * options) is a miss. One layout for every file, named as robots.txt's came first (`robotsUrl` is the
 * file's URL, `good.robots` its rules), under a key prefix of each file's own.
 */
import type { FetchOutcome } from '../fetch/types.js';
import type { StoreRecordRejection } from '../kernel/events.js';
import { isRevalidation, type Revalidation } from './revalidation.js';
import { type Outage, phaseFits } from './unreachable-timeline.js';

export const STORE_KEY_PREFIX = 'politely:robots:v1:';

export function storeKey(origin: string, prefix = STORE_KEY_PREFIX): string {
  return `${prefix}${origin}`;
}

export interface StoredGoodCopy {
  /** The file's rules as its WellKnownFile#toJSON writes them (robots.txt: RobotsTxt#toJSON()). */
  readonly robots: unknown;
  readonly status: number;
  readonly fetchedAt: number;
  /**
   * The copy's source URL, validators and caching headers (revalidation.ts), so any process refreshes
   * it conditionally. Added to layout 1 without a new version: a record without it loads as before
   * (refreshed without conditions), and a process that predates it ignores it.
   */
  readonly revalidation?: Revalidation;
}

export interface StoredRecord {
  readonly v: 1;
  readonly origin: string;
  readonly robotsUrl: string;
  /** Outcome of the latest fetch. */
  readonly outcome: FetchOutcome;
  readonly status: number;
  readonly fetchedAt: number;
  readonly freshUntil: number;
  /** Consecutive unreachable outcomes (0 after a success), for the retry backoff. */
  readonly failures: number;
  /** The parse options the rules were compiled with (see parseKey). */
  readonly parse: string;
  /** The latest 2xx copy: in force when outcome is ok, the stale-if-error copy when unreachable. */
  readonly good?: StoredGoodCopy;
  /** `unreachablePolicy: 'google'`, while unreachable: where the outage stands (restarts and fleets go on). */
  readonly outage?: Outage;
  /** While unreachable: why the latest fetch failed (`HTTP 503`, `getaddrinfo ENOTFOUND ...`), for refusals. */
  readonly error?: string;
}

/** Longest `error` written to or accepted from the store: room for any network error's message. */
export const MAX_STORED_ERROR = 300;

const OUTCOMES: ReadonlySet<unknown> = new Set<FetchOutcome>(['ok', 'unavailable', 'unreachable']);

export type { StoreRecordRejection };
/**
 * Clock skew tolerated between the processes of a fleet sharing a store, in ms: a record written by a
 * machine whose clock runs up to this much ahead is still accepted (NTP keeps real fleets well inside).
 */
export const MAX_CLOCK_SKEW_MS = 60_000;

export interface RecordLimits {
  /** This process's time, epoch ms. */
  readonly now: number;
  /** The longest freshness this process gives an outcome, in ms (fetchedAt + this bounds freshUntil). */
  readonly maxLifetimeMs: (outcome: FetchOutcome) => number;
}

export type DecodedRecord =
  | { readonly record: StoredRecord; readonly rejected?: undefined }
  | { readonly record?: undefined; readonly rejected: StoreRecordRejection };

/**
 * The stored record, `{ rejected }` naming why it cannot be trusted, or undefined when nothing is stored.
 * Rules are checked by the caller (stateFromStored), as loading them is the costly part.
 */
export function decodeStored(
  value: unknown,
  origin: string,
  file: { readonly path: string; readonly parseKey: string },
  limits: RecordLimits,
): DecodedRecord | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return { rejected: 'malformed' };
  if (value.v !== 1) return { rejected: 'version' };
  if (value.origin !== origin || value.robotsUrl !== `${origin}${file.path}`) {
    return { rejected: typeof value.origin === 'string' ? 'origin-mismatch' : 'malformed' };
  }
  if (typeof value.parse !== 'string' || !OUTCOMES.has(value.outcome)) return { rejected: 'malformed' };
  if (value.parse !== file.parseKey) return { rejected: 'parse-options' };
  const { status, fetchedAt, freshUntil, failures } = value;
  if (!isStatus(status) || !isTime(fetchedAt) || !isTime(freshUntil) || !isCount(failures)) {
    return { rejected: 'malformed' };
  }
  const good = value.good;
  if (good !== undefined) {
    if (!isObject(good) || !isObject(good.robots) || !isStatus(good.status) || !isTime(good.fetchedAt)) {
      return { rejected: 'malformed' };
    }
    // The good copy is never newer than the record it is kept in.
    if (good.fetchedAt > fetchedAt) return { rejected: 'malformed' };
    // Its validators become request headers: a value we would not send is a record we did not write.
    if (good.revalidation !== undefined && !isRevalidation(good.revalidation))
      return { rejected: 'malformed' };
  }
  const outcome = value.outcome as FetchOutcome;
  if (outcome === 'ok' && good === undefined) return { rejected: 'malformed' };
  if (value.outage !== undefined && (outcome !== 'unreachable' || !isOutage(value.outage, fetchedAt))) {
    return { rejected: 'malformed' };
  }
  const error = value.error;
  if (error !== undefined && (typeof error !== 'string' || error.length > MAX_STORED_ERROR)) {
    return { rejected: 'malformed' };
  }
  if (fetchedAt > limits.now + MAX_CLOCK_SKEW_MS) return { rejected: 'future-fetch' };
  if (freshUntil < fetchedAt) return { rejected: 'malformed' };
  if (freshUntil > fetchedAt + limits.maxLifetimeMs(outcome)) {
    return { rejected: 'freshness-too-long' };
  }
  return { record: value as unknown as StoredRecord };
}

/** An outage that began before the fetch recorded, in the phase an outage of that length is in. */
function isOutage(value: unknown, fetchedAt: number): boolean {
  if (!isObject(value) || !isTime(value.since) || value.since > fetchedAt) return false;
  if (value.siteStatus !== undefined && !isStatus(value.siteStatus)) return false;
  return phaseFits(value.phase, value.since, fetchedAt);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 999;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 1_000_000;
}
