/**
 * How long a response backs its host off: 429 and 503 by their Retry-After (RFC 9110 15.5.30 /
 * 15.6.4), a 429 without a usable one by a default, never beyond maxBackoffMs.
 */
import { retryAfterMs } from '../kernel/retry-after.js';

/** Backoff for a 429 that carries no usable Retry-After. */
const DEFAULT_429_BACKOFF_MS = 5_000;

/** The backoff in ms, or undefined when the response asks for none. */
export function backoffMs(
  status: number,
  retryAfter: string | null | undefined,
  now: number,
  maxBackoffMs: number,
): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  const asked = retryAfterMs(retryAfter, now);
  const fallback = status === 429 ? DEFAULT_429_BACKOFF_MS : undefined;
  const ms = Math.min(asked ?? fallback ?? 0, maxBackoffMs);
  return ms > 0 ? ms : undefined;
}
