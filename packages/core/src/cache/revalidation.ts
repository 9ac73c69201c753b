/**
 * Revalidating a cached robots.txt: what a 2xx copy keeps so robots.txt can be fetched
 * again with a conditional request, and whether a 304 Not Modified renews that copy. Kept with the good
 * copy in process memory and in the stored record, so another process of the fleet, or this one
 * restarted, asks conditionally too. Pure.
 *
 * From RFC 9110 (13.1.2, 13.1.3: If-None-Match, If-Modified-Since; 15.4.5: 304; 8.8.3.2: weak
 * comparison) and RFC 9111 (4.3.4: which stored response a 304 updates, and that its header fields
 * replace the stored ones).
 */
import type { RobotsFetchResult, RobotsValidators } from '../fetch/types.js';
import { httpHref } from '../kernel/http-url.js';

/** What a conditional refresh of a 2xx copy needs: where it came from, its validators, its caching headers. */
export interface Revalidation extends RobotsValidators {
  /** The copy's Cache-Control and Expires, as updated by the latest 304 (RFC 9111 4.3.4). */
  readonly cacheControl?: string;
  readonly expires?: string;
  /**
   * When the body was last fetched whole (epoch ms); 304s keep it. Absent from records written
   * before it was kept: their next refresh asks without conditions.
   */
  readonly wholeAt?: number;
}

/**
 * How long 304s may keep a body in force before it is fetched whole again: 7 days. By
 * HTTP's rules a 304 to our conditional request renews our copy (RFC 9111 4.3.4), and RFC 9309 2.4's
 * 24 hours bounds the time between such refreshes, which a 304 meets. Neither covers a server that
 * answers 304 to everything (an ETag that never changes, a proxy that compares nothing): its file
 * could change unseen for good. A week bounds that at one full download per origin a week (at most
 * one refresh in seven at the default 24 hours of freshness, so most of what revalidation saves is
 * kept), and keeps a changed file unseen no longer than the week Google's crawler may keep a copy
 * it cannot refresh.
 */
export const WHOLE_FETCH_EVERY_MS = 7 * 86_400_000;

/** Longest header value kept (or accepted from the store); a longer one means no conditional refresh. */
export const MAX_REVALIDATION_HEADER = 1024;
/** Longest URL kept for the copy's source. */
export const MAX_REVALIDATION_URL = 4096;

/** A header value we may send back: field-value characters only (no CR, LF, NUL: RFC 9110 5.5). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const HEADER_FIELDS = ['etag', 'lastModified', 'cacheControl', 'expires'] as const;

/**
 * What a 2xx fetch leaves for its next refresh; undefined without a validator (nothing to ask with)
 * or with a value this code would not send (over-long, control characters).
 */
export function revalidationOf(result: RobotsFetchResult, fetchedAt: number): Revalidation | undefined {
  const candidate = {
    url: result.finalUrl,
    ...pick(result),
    wholeAt: fetchedAt,
  };
  return isRevalidation(candidate) ? candidate : undefined;
}

/** True for a value a stored record may carry as a good copy's `revalidation` (stored-record.ts). */
export function isRevalidation(value: unknown): value is Revalidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (!isHttpUrl(record.url)) return false;
  for (const name of HEADER_FIELDS) {
    const field = record[name];
    if (field !== undefined && !isFieldValue(field)) return false;
  }
  if (record.wholeAt !== undefined && !Number.isFinite(record.wholeAt)) return false;
  // At least one validator, and an ETag is never empty.
  if (record.etag === '' || (record.etag === undefined && record.lastModified === undefined)) return false;
  return true;
}

/**
 * The conditions the next request for this copy carries; none once its body is WHOLE_FETCH_EVERY_MS
 * old (or of unknown age), so it is fetched whole again.
 */
export function validatorsOf(revalidation: Revalidation, now: number): RobotsValidators | undefined {
  if (revalidation.wholeAt === undefined || now - revalidation.wholeAt >= WHOLE_FETCH_EVERY_MS)
    return undefined;
  return {
    url: revalidation.url,
    ...(revalidation.etag !== undefined ? { etag: revalidation.etag } : {}),
    ...(revalidation.lastModified !== undefined ? { lastModified: revalidation.lastModified } : {}),
  };
}

/**
 * Whether a 304 to our conditional request identifies our copy (RFC 9111 4.3.4). A 304 naming an
 * ETag identifies the copy whose ETag it is (weak comparison, as If-None-Match uses, RFC 9110
 * 13.1.2): another one is not ours, so it renews nothing. Without an ETag, a Last-Modified, if sent,
 * must be the copy's. A 304 that names no validator answers the one conditional request we made for the
 * one copy we keep: it renews it (RFC 9111 4.3.4 asks for a validator-less stored response there;
 * servers that drop validators from 304s are common, and the conditions sent were this copy's).
 */
export function identifiesCopy(copy: Revalidation, result: RobotsFetchResult): boolean {
  if (result.etag !== undefined) return copy.etag !== undefined && weakMatch(copy.etag, result.etag);
  if (result.lastModified !== undefined) return result.lastModified === copy.lastModified;
  return true;
}

/** The copy's revalidation after a 304: the 304's header fields replace the stored ones (RFC 9111 4.3.4). */
export function renewedRevalidation(copy: Revalidation, result: RobotsFetchResult): Revalidation {
  const renewed: Revalidation = { ...copy, ...pick(result) };
  // A 304 value we would not send again is not kept: the copy's own stays.
  return isRevalidation(renewed) ? renewed : copy;
}

function pick(result: RobotsFetchResult): Omit<Revalidation, 'url'> {
  return {
    ...(result.etag !== undefined ? { etag: result.etag } : {}),
    ...(result.lastModified !== undefined ? { lastModified: result.lastModified } : {}),
    ...(result.cacheControl !== undefined ? { cacheControl: result.cacheControl } : {}),
    ...(result.expires !== undefined ? { expires: result.expires } : {}),
  };
}

/** RFC 9110 8.8.3.2: two entity-tags match weakly when their opaque-tags are the same, W/ or not. */
function weakMatch(a: string, b: string): boolean {
  return opaqueTag(a) === opaqueTag(b);
}

function opaqueTag(tag: string): string {
  const trimmed = tag.trim();
  return trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed;
}

function isFieldValue(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_REVALIDATION_HEADER && FIELD_VALUE.test(value);
}

function isHttpUrl(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_REVALIDATION_URL && httpHref(value) === value;
}
