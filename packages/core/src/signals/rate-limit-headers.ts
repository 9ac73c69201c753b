/**
 * What a response's rate-limit headers say about the host's quota, and the spacing between starts
 * that keeps it from running out before its reset. Pure: the caller gives the time.
 *
 * Forms read (the syntax is from the drafts; the code is ours):
 * - draft-ietf-httpapi-ratelimit-headers (-10): `RateLimit: "default";r=50;t=30` (r remaining, t seconds
 *   until the quota resets, as delta seconds so clock skew does not matter) and `RateLimit-Policy:
 *   "burst";q=100;w=60` (q quota per window of w seconds), both RFC 9651 lists of named policies.
 * - the unprefixed `RateLimit-Limit` / `-Remaining` / `-Reset` of the draft's earlier versions, and the
 *   older `X-RateLimit-Limit` / `-Remaining` / `-Reset` still common in the wild, whose Reset is delta
 *   seconds on some sites and an epoch timestamp on others.
 *
 * A value that does not parse, or makes no sense (negative, not a number), is treated as absent:
 * a site's garbage never paces a host and never fails a request.
 */
import { type BareItem, type Parameters, parseList } from 'structured-headers';
import type { PaceRateLimit } from '../kernel/events.js';
import { headerOf, type ResponseHeaders } from '../kernel/headers.js';
import { httpDateMs } from '../kernel/retry-after.js';

export type { ResponseHeaders } from '../kernel/headers.js';

/** Which form a reading came from (the event names it). */
export type RateLimitHeader = PaceRateLimit['header'];

/** One quota the headers describe, the spacing that spreads what remains of it over its time ... */
export interface RateLimitReading extends PaceRateLimit {
  /** ... and for how long from now: then the quota has reset and the host's pace goes back to normal. */
  readonly forMs: number;
}

/**
 * A header value longer than this is not read at all. It is what bounds the work: every item of a
 * list within it is read (a 4 KiB list holds a few hundred policies at most), so a site's strictest
 * policy counts wherever it stands in the list.
 */
const MAX_FIELD_LENGTH = 4096;
/**
 * A legacy Reset at or above this is an epoch timestamp in seconds (2001-09-09), at or above
 * EPOCH_MS_FROM one in ms: no window is 30 years long, and no epoch timestamp is that small.
 */
const EPOCH_SECONDS_FROM = 1e9;
const EPOCH_MS_FROM = 1e12;
const PLAIN_NUMBER = /^\d{1,15}(\.\d{1,6})?$/;

/**
 * The most restrictive quota the response's headers describe (the one asking for the widest
 * spacing), or undefined when they describe none that can pace (a remaining count without a reset
 * time, a limit alone, garbage).
 */
export function readRateLimit(
  headers: ResponseHeaders | undefined,
  now: number,
): RateLimitReading | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  if (typeof (headers as { get?: unknown }).get !== 'function' && !namesRateLimit(headers)) return undefined;
  let widest: RateLimitReading | undefined;
  const consider = (reading: RateLimitReading | undefined) => {
    if (reading && (!widest || reading.spacingMs > widest.spacingMs)) widest = reading;
  };
  try {
    const current = structuredList(headerText(headers, 'ratelimit'));
    const policies = structuredList(headerText(headers, 'ratelimit-policy'));
    const described = new Set<string>();
    for (const [name, params] of current) {
      const reading = fromCurrent(name, params, policies);
      if (reading && name !== undefined) described.add(name);
      consider(reading);
    }
    // A policy the RateLimit field says nothing about: its quota per window is the pace that never
    // exhausts it.
    for (const [name, params] of policies) {
      if (name !== undefined && described.has(name)) continue;
      consider(fromPolicy(name, params));
    }
    consider(legacy(headers, 'x-ratelimit', 'X-RateLimit-Remaining', now));
    consider(legacy(headers, 'ratelimit', 'RateLimit-Remaining', now));
  } catch {
    // Never fatal: whatever could not be read paces nothing.
  }
  return widest;
}

type Policy = readonly [name: string | undefined, params: Parameters];

function fromCurrent(
  name: string | undefined,
  params: Parameters,
  policies: readonly Policy[],
): RateLimitReading | undefined {
  const remaining = count(params.get('r'));
  if (remaining === undefined) return undefined;
  const named = policies.find(([policy]) => policy !== undefined && policy === name)?.[1];
  if (!countsRequests(named)) return undefined;
  const quota = count(named?.get('q'));
  const window = seconds(named?.get('w'));
  // Without `t` the reset is at most a window away, when the policy says how long one is.
  const reset = seconds(params.get('t')) ?? window;
  if (reset === undefined) return undefined;
  return {
    header: 'RateLimit',
    ...(name !== undefined ? { policy: name } : {}),
    remaining,
    resetMs: reset * 1000,
    ...(quota !== undefined ? { quota } : {}),
    ...(window !== undefined ? { windowMs: window * 1000 } : {}),
    ...spread(remaining, reset * 1000),
  };
}

function fromPolicy(name: string | undefined, params: Parameters): RateLimitReading | undefined {
  if (!countsRequests(params)) return undefined;
  const quota = count(params.get('q'));
  const window = seconds(params.get('w'));
  if (quota === undefined || window === undefined || window === 0) return undefined;
  const windowMs = window * 1000;
  return {
    header: 'RateLimit-Policy',
    ...(name !== undefined ? { policy: name } : {}),
    quota,
    windowMs,
    // A quota of 0 lets no request into any window: not one request per window (q=1), but a host
    // that takes none, held as long as any header may hold it (the caller caps this at maxBackoffMs).
    ...(quota === 0
      ? { spacingMs: Number.POSITIVE_INFINITY, forMs: Number.POSITIVE_INFINITY }
      : { spacingMs: Math.ceil(windowMs / quota), forMs: windowMs }),
  };
}

function legacy(
  headers: ResponseHeaders,
  prefix: string,
  header: RateLimitHeader,
  now: number,
): RateLimitReading | undefined {
  const remaining = count(plainNumber(headerText(headers, `${prefix}-remaining`)));
  if (remaining === undefined) return undefined;
  const resetMs = resetFrom(headerText(headers, `${prefix}-reset`), now);
  if (resetMs === undefined) return undefined;
  // `-Limit` may carry a policy after the number (`100, 100;w=60` in the draft's earlier versions).
  const quota = count(plainNumber(headerText(headers, `${prefix}-limit`)?.split(/[,;]/)[0]));
  return {
    header,
    remaining,
    resetMs,
    ...(quota !== undefined ? { quota } : {}),
    ...spread(remaining, resetMs),
  };
}

/**
 * r remaining in t: the k-th of them starts no sooner than k x t / r from now, so the last lands at
 * the reset; none left (r = 0) holds the host until the reset.
 */
function spread(remaining: number, resetMs: number): { spacingMs: number; forMs: number } {
  return { spacingMs: Math.ceil(resetMs / Math.max(remaining, 1)), forMs: Math.ceil(resetMs) };
}

/** A legacy Reset: delta seconds, an epoch timestamp (seconds or ms), or an HTTP-date. */
function resetFrom(text: string | undefined, now: number): number | undefined {
  if (text === undefined) return undefined;
  const value = plainNumber(text);
  if (value === undefined) {
    // Retry-After's reading of a date: Date.parse accepts far too much.
    const at = httpDateMs(text.trim(), now);
    return at !== undefined && at > now ? at - now : undefined;
  }
  if (value >= EPOCH_MS_FROM) return value > now ? value - now : undefined;
  if (value >= EPOCH_SECONDS_FROM) return value * 1000 > now ? value * 1000 - now : undefined;
  return value * 1000;
}

/** Every field read here is named `RateLimit...` or `X-RateLimit...` (any case). */
const RATE_LIMIT_NAME = /^(?:x-)?ratelimit/i;

/**
 * True when a record of headers has a field read here: one look at its names, so a response without
 * any (nearly all) costs no lookups by name, each of which scans the names for another case.
 */
function namesRateLimit(record: Readonly<Record<string, unknown>>): boolean {
  for (const name in record) if (RATE_LIMIT_NAME.test(name)) return true;
  return false;
}

/** The header's value, its lines joined as one list (Node joins with ', ', browsers with '\n'). */
function headerText(headers: ResponseHeaders, name: string): string | undefined {
  const found = headerOf(headers, name);
  const value = typeof found === 'string' ? found : found?.join(', ');
  if (value === undefined || value.length > MAX_FIELD_LENGTH) return undefined;
  return value.replace(/\r?\n/g, ', ');
}

function structuredList(text: string | undefined): Policy[] {
  if (text === undefined || text.trim() === '') return [];
  let list: ReturnType<typeof parseList>;
  try {
    list = parseList(text);
  } catch {
    return [];
  }
  const policies: Policy[] = [];
  for (const [item, params] of list) {
    // An inner list is no policy.
    if (Array.isArray(item)) continue;
    policies.push([policyName(item), params]);
  }
  return policies;
}

function policyName(item: BareItem): string | undefined {
  if (typeof item === 'string') return item;
  // A token (the draft's examples quote names; some servers will not).
  if (item !== null && typeof item === 'object' && 'value' in item && typeof item.value === 'string')
    return item.value;
  return undefined;
}

/**
 * A policy's quota unit (`qu`) is requests unless it says otherwise; one that counts bytes or
 * concurrent requests says nothing about how often a request may start.
 */
function countsRequests(params: Parameters | undefined): boolean {
  const unit = params?.get('qu');
  return unit === undefined || unit === 'requests';
}

/** A non-negative integer count. */
function count(value: BareItem | number | undefined): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Non-negative seconds (an integer per the draft; a decimal is taken as meant). */
function seconds(value: BareItem | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function plainNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  return PLAIN_NUMBER.test(trimmed) ? Number(trimmed) : undefined;
}
