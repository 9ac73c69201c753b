/**
 * How long a robots.txt outcome is used before fetching again. Server caching headers are honoured
 * within limits: never past `cacheTtlMs` (RFC 9309 2.4 asks for at most 24 h), never under a floor that
 * keeps a `max-age=0` site from costing one robots.txt fetch per page.
 */
import { retryAfterMs } from '../kernel/retry-after.js';

export interface FreshnessLimits {
  /** Longest lifetime of a fetched robots.txt, in ms. */
  readonly cacheTtlMs: number;
  /** Shortest lifetime, in ms (clamped to cacheTtlMs). Default 60000. */
  readonly minTtlMs?: number;
  /** First retry delay after an unreachable fetch, in ms; doubles per consecutive failure. */
  readonly unreachableRetryMs: number;
  /** Longest retry delay, also the bound on Retry-After, in ms. Default 3600000 (1 h). */
  readonly maxRetryMs?: number;
}

export const DEFAULT_MIN_TTL_MS = 60_000;
export const DEFAULT_MAX_RETRY_MS = 3_600_000;

export interface CachingHeaders {
  readonly cacheControl?: string | undefined;
  readonly expires?: string | undefined;
}

/** Until when a fetched (ok or unavailable) outcome is fresh, as epoch ms. */
export function freshUntil(now: number, headers: CachingHeaders, limits: FreshnessLimits): number {
  const floor = Math.min(limits.minTtlMs ?? DEFAULT_MIN_TTL_MS, limits.cacheTtlMs);
  const lifetime = serverLifetimeMs(now, headers) ?? limits.cacheTtlMs;
  return now + clamp(lifetime, floor, limits.cacheTtlMs);
}

/**
 * The longest an outcome can stay fresh under these limits, in ms: what freshUntil (ok, unavailable)
 * or retryAt (unreachable) can give at most. A stored record promising more was not written by us.
 */
export function maxLifetimeMs(
  outcome: 'ok' | 'unavailable' | 'unreachable',
  limits: FreshnessLimits,
): number {
  if (outcome !== 'unreachable') return limits.cacheTtlMs;
  const floor = Math.min(limits.minTtlMs ?? DEFAULT_MIN_TTL_MS, limits.unreachableRetryMs);
  return Math.max(limits.maxRetryMs ?? DEFAULT_MAX_RETRY_MS, floor);
}

/**
 * When to fetch again after the `failures`-th consecutive unreachable outcome (1 for the first):
 * Retry-After when sent, else unreachableRetryMs doubling per failure, both within [floor, maxRetryMs].
 */
export function retryAt(
  now: number,
  failures: number,
  retryAfter: string | undefined,
  limits: FreshnessLimits,
): number {
  const ceiling = limits.maxRetryMs ?? DEFAULT_MAX_RETRY_MS;
  const floor = Math.min(limits.minTtlMs ?? DEFAULT_MIN_TTL_MS, limits.unreachableRetryMs);
  const requested = retryAfterMs(retryAfter, now);
  const doublings = Math.min(Math.max(failures - 1, 0), 30);
  const backoff = requested ?? limits.unreachableRetryMs * 2 ** doublings;
  return now + clamp(backoff, floor, Math.max(ceiling, floor));
}

/**
 * Lifetime the server asked for, in ms: s-maxage, then max-age, then Expires; 0 for no-store/no-cache.
 * A max-age or s-maxage that is not a delta-seconds (`garbage`, `-1`, `1.5`, empty) or that appears
 * twice with different values makes the response stale, 0 (RFC 9111 1.2.2 and 4.2.1: an invalid or
 * ambiguous freshness lifetime is no lifetime); the caller's floor then applies.
 */
export function serverLifetimeMs(now: number, headers: CachingHeaders): number | undefined {
  const directives = parseCacheControl(headers.cacheControl);
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  // Our cache is shared (across a fleet, through the store), so s-maxage wins over max-age (RFC 9111 5.2.2.10).
  for (const name of ['s-maxage', 'max-age']) {
    if (!directives.has(name)) continue;
    const seconds = deltaSeconds(directives.get(name));
    return seconds === undefined ? 0 : seconds * 1000;
  }
  if (headers.expires !== undefined) {
    const at = Date.parse(headers.expires);
    // An invalid Expires (often "0" or "-1") means already expired (RFC 9111 5.3).
    return Number.isNaN(at) ? 0 : Math.max(0, at - now);
  }
  return undefined;
}

/** Marks a directive given twice with different values: its value is then unusable. */
const CONFLICT = Symbol('conflicting values');

function parseCacheControl(value: string | undefined): Map<string, string | undefined | typeof CONFLICT> {
  const directives = new Map<string, string | undefined | typeof CONFLICT>();
  if (!value) return directives;
  for (const part of value.split(',')) {
    const [rawName, ...rest] = part.split('=');
    const name = rawName?.trim().toLowerCase();
    if (!name) continue;
    const rawValue = rest.join('=').trim();
    const parsed = rest.length > 0 ? rawValue.replace(/^"(.*)"$/, '$1') : undefined;
    if (directives.has(name) && directives.get(name) !== parsed) directives.set(name, CONFLICT);
    else directives.set(name, parsed);
  }
  return directives;
}

function deltaSeconds(value: string | undefined | typeof CONFLICT): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
