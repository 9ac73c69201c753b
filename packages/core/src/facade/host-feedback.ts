/**
 * What a host's responses and real sends tell its schedule. A response feeds the host's pace (its
 * latency, errors and rate-limit headers), and a Retry-After (or a 429 without one) backs the host off; a
 * request that really went out at `at` moves the host's next start to at least `at` plus the host's pace.
 */

import type { Clock, Scheduler } from '../schedule/types.js';
import { type Backoff, backoffOf } from '../signals/backoff-policy.js';
import type { HostPace } from '../signals/host-pace.js';
import { type RateLimitReading, readRateLimit } from '../signals/rate-limit-headers.js';
import type { ResponseDetails } from './types.js';

export interface HostFeedback {
  /**
   * Returns the backoff set (in ms, and its cause) if the response asked for one. Never rejects: a
   * backoff the scheduler failed to set is undefined (a Redis scheduler reports its own outage as an event).
   */
  response(
    host: string,
    status: number,
    retryAfter: string | null | undefined,
    details: ResponseDetails | undefined,
  ): Promise<Backoff | undefined>;
  /** The request to `host`, paced by `paceMs`, went out at `at` (default now). Never rejects. */
  sent(host: string, paceMs: number, at: number | undefined): Promise<void>;
}

const SETTLED: Promise<void> = Promise.resolve();
const NOTHING = () => {};

export function createHostFeedback(deps: {
  readonly scheduler: Scheduler;
  readonly pace: HostPace;
  readonly clock: Clock;
  readonly maxBackoffMs: number;
  /** Read RateLimit / RateLimit-Policy / X-RateLimit-* headers (option `rateLimitHeaders`). */
  readonly rateLimitHeaders: boolean;
}): HostFeedback {
  const { scheduler, pace, clock, maxBackoffMs, rateLimitHeaders } = deps;

  /**
   * The response's quota, capped as Retry-After is (no header holds a host longer than maxBackoffMs).
   * Read beside a Retry-After, not instead of it: the draft (draft-ietf-httpapi-ratelimit-headers)
   * gives Retry-After precedence over `t`, but a site that says "come back in 60 s" while its quota
   * is empty for 300 s (GitHub's 403) gets another refusal at 60 s. The longest wait the response
   * justifies holds the host: the backoff below and this pace each push the host's next start, and
   * the later one stands.
   */
  const quotaOf = (details: ResponseDetails | undefined) => {
    if (!rateLimitHeaders || details?.headers === undefined) return undefined;
    const reading = readRateLimit(details.headers, clock.now());
    if (!reading) return undefined;
    return {
      ...reading,
      spacingMs: Math.min(reading.spacingMs, maxBackoffMs),
      forMs: Math.min(reading.forMs, maxBackoffMs),
    } satisfies RateLimitReading;
  };

  return {
    async response(host, status, retryAfter, details) {
      const quota = quotaOf(details);
      try {
        const { fromMs, toMs } = await pace.observe(host, status, details?.latencyMs, quota);
        // A slower pace holds the next request already now: an adapter may have spaced it (markSent)
        // by the pace from before this response was read. A quota that sets the pace holds it on
        // every response, for the whole fleet: a process that has not read it yet reserves after
        // this. A generous one (a spacing below the host's delay) holds nothing.
        const quotaPaces = quota !== undefined && quota.spacingMs > 0 && quota.spacingMs >= toMs;
        if (toMs > fromMs || quotaPaces) await scheduler.penalize(host, toMs);
      } catch {
        // The signal is advice: trouble recording it never fails the response it describes.
      }
      const backoff = backoffOf(status, retryAfter, clock.now(), maxBackoffMs);
      if (backoff === undefined) return undefined;
      try {
        await scheduler.penalize(host, backoff.ms);
      } catch {
        // Backoff is advice: a failing scheduler never turns a response into a failure.
        return undefined;
      }
      return backoff;
    },
    sent(host, paceMs, at) {
      // Nothing to hold (no delay asked, or it has passed): no promise made for it, as every
      // request of a crawl that asks no delay comes through here.
      if (paceMs <= 0) return SETTLED;
      const sentAt = at ?? clock.now();
      const ms = sentAt + paceMs - clock.now();
      if (ms <= 0) return SETTLED;
      // Pacing bookkeeping is best effort; it never fails the request it describes.
      try {
        return scheduler.penalize(host, ms).then(NOTHING, NOTHING);
      } catch {
        return SETTLED;
      }
    },
  };
}
