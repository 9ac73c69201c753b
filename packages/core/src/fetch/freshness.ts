/**
 * How long a robots.txt outcome is used before fetching again. Server caching headers are honoured
 * within limits: never past `cacheTtlMs` (RFC 9309 2.4 asks for at most 24 h), never under a floor that
 * keeps a `max-age=0` site from costing one robots.txt fetch per page.
 */
import { retryAfterMs } from '../schedule/retry-after.js';

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

/** Lifetime the server asked for, in ms: s-maxage, then max-age, then Expires; 0 for no-store/no-cache. */
export function serverLifetimeMs(now: number, headers: CachingHeaders): number | undefined {
  const directives = parseCacheControl(headers.cacheControl);
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  // Our cache is shared (across a fleet, through the store), so s-maxage wins over max-age (RFC 9111 5.2.2.10).
  for (const name of ['s-maxage', 'max-age']) {
    const seconds = deltaSeconds(directives.get(name));
    if (seconds !== undefined) return seconds * 1000;
  }
  if (headers.expires !== undefined) {
    const at = Date.parse(headers.expires);
    // An invalid Expires (often "0" or "-1") means already expired (RFC 9111 5.3).
    return Number.isNaN(at) ? 0 : Math.max(0, at - now);
  }
  return undefined;
}

function parseCacheControl(value: string | undefined): Map<string, string | undefined> {
  const directives = new Map<string, string | undefined>();
  if (!value) return directives;
  for (const part of value.split(',')) {
    const [rawName, ...rest] = part.split('=');
    const name = rawName?.trim().toLowerCase();
    if (!name || directives.has(name)) continue;
    const rawValue = rest.join('=').trim();
    directives.set(name, rest.length > 0 ? rawValue.replace(/^"(.*)"$/, '$1') : undefined);
  }
  return directives;
}

function deltaSeconds(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
