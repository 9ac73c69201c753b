/**
 * How long a response's Retry-After backs its host off: whatever the status carrying it, a 429
 * without a usable one by a default, never beyond maxBackoffMs.
 *
 * RFC 9110 10.2.3 defines Retry-After for 503, 429 and 3xx, but sites send it wherever they refuse
 * for load: GitHub's rate-limit answer is a 403 with `Retry-After: 60`. Honouring it only on 429 and
 * 503 would let a crawler come back at once after being told to wait a minute; a wait
 * a site asks for is a wait whatever the status, and the longest one a response justifies wins (the
 * rate-limit headers' reset is weighed beside it in facade/host-feedback.ts).
 */
import { retryAfterMs } from '../kernel/retry-after.js';

/** Backoff for a 429 that carries no usable Retry-After. */
const DEFAULT_429_BACKOFF_MS = 5_000;

/**
 * What set a backoff: the response's Retry-After, or, for a 429 without a usable one, the default
 * (`'429'`). Carried by the `backoff` event and the `politely.backoffs` metric.
 */
export type BackoffCause = 'retry-after' | '429';

/** A backoff a response asks for: how long, in ms, and why. */
export interface Backoff {
  readonly ms: number;
  readonly cause: BackoffCause;
}

/** The backoff, or undefined when the response asks for none. */
export function backoffOf(
  status: number,
  retryAfter: string | null | undefined,
  now: number,
  maxBackoffMs: number,
): Backoff | undefined {
  const asked = retryAfterMs(retryAfter, now);
  const fallback = status === 429 ? DEFAULT_429_BACKOFF_MS : undefined;
  const ms = Math.min(asked ?? fallback ?? 0, maxBackoffMs);
  if (!(ms > 0)) return undefined;
  return { ms, cause: asked === undefined ? '429' : 'retry-after' };
}
