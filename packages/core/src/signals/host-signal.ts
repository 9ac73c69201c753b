/**
 * What a host's responses say about how hard it is working, and the delay that follows from it.
 * Pure: no clock, no I/O. The Redis script in signal-script.ts applies the same update on the server.
 *
 * The idea is Heritrix's `delayFactor` (its politeness delay is a multiple of the last fetch's
 * duration, clamped by `minDelayMs` / `maxDelayMs`): a site that answers slowly gets asked less often.
 * We smooth the time to response headers with an EWMA so one slow page does not swing the pace, and
 * keep a separate error penalty that multiplies the delay on 5xx, 429 and timeouts (Scrapy's
 * AutoThrottle only ever slows on errors; this one also relaxes, one good response at a time).
 */

import type { PaceChangeReason } from '../kernel/events.js';

/** A host's smoothed signal. `latencyMs` undefined: no latency measured yet. */
export interface HostSignal {
  readonly latencyMs: number | undefined;
  /** >= 1: the delay is multiplied by this after errors, and decays back to 1 on good responses. */
  readonly penalty: number;
  /** The spacing the host's rate-limit headers asked for, until its quota resets (rate-limit-headers.ts). */
  readonly rateLimit?: RateLimitPace | undefined;
}

/** At least `spacingMs` between starts until `untilMs` (epoch ms, this process's clock). */
export interface RateLimitPace {
  readonly spacingMs: number;
  readonly untilMs: number;
}

/** One response (or failure) as an adapter saw it. */
export interface SignalSample {
  /** Time from the request going out to the response headers, in ms, when measured. */
  readonly latencyMs?: number | undefined;
  /** 'error': 5xx, 429, a timeout or a failed connection; 'ok': any other answer. */
  readonly outcome: 'ok' | 'error';
  /** The response's rate-limit headers asked for this spacing, for `forMs` from now (replaces the last). */
  readonly rateLimit?: { readonly spacingMs: number; readonly forMs: number } | undefined;
}

export interface SignalParams {
  /** The delay is at least this many times the smoothed latency; 0 turns latency pacing off. */
  readonly latencyFactor: number;
  /** The effective delay never exceeds this (unless Crawl-delay or minDelayMs ask for more). */
  readonly maxDelayMs: number;
}

/** Weight of the newest latency sample: the last 8 responses carry 90% of the smoothed value (0.75^8 ~ 0.1). */
export const LATENCY_SMOOTHING = 0.25;
/** Each error doubles the penalty ... */
export const PENALTY_GROWTH = 2;
/** ... up to this multiplier (the delay is capped by maxDelayMs anyway) ... */
export const MAX_PENALTY = 32;
/**
 * ... and each good response takes 40% of it off: 32x back to 1x takes 7 good responses, about 5 s
 * of a 100 ms floor's worth of waiting, while a server still failing more than 4 requests in 10 keeps
 * slowing (2^0.42 x 0.6^0.58 ~ 1).
 */
export const PENALTY_DECAY = 0.6;

export const NO_SIGNAL: HostSignal = Object.freeze({ latencyMs: undefined, penalty: 1 });

/** The signal after one more sample. */
export function observeSample(signal: HostSignal, sample: SignalSample): HostSignal {
  const measured = sample.latencyMs;
  const latencyMs =
    measured === undefined || !Number.isFinite(measured) || measured < 0
      ? signal.latencyMs
      : signal.latencyMs === undefined
        ? measured
        : signal.latencyMs + LATENCY_SMOOTHING * (measured - signal.latencyMs);
  const penalty =
    sample.outcome === 'error'
      ? Math.min(MAX_PENALTY, signal.penalty * PENALTY_GROWTH)
      : Math.max(1, signal.penalty * PENALTY_DECAY);
  return signal.rateLimit ? { latencyMs, penalty, rateLimit: signal.rateLimit } : { latencyMs, penalty };
}

/** The signal with the sample's rate-limit spacing applied at `now` (a sample without one keeps the last). */
export function withRateLimit(signal: HostSignal, sample: SignalSample, now: number): HostSignal {
  const asked = sample.rateLimit;
  if (!asked) return signal;
  return { ...signal, rateLimit: { spacingMs: asked.spacingMs, untilMs: now + asked.forMs } };
}

/**
 * The delay raised to the rate-limit spacing while the host's quota has not reset. Not capped by
 * maxDelayMs: the site said how many requests it takes (feedback caps it by maxBackoffMs, as it caps
 * Retry-After); it only ever slows.
 */
export function rateLimitedDelayMs(delayMs: number, signal: HostSignal, now: number): number {
  const limit = signal.rateLimit;
  return limit && now < limit.untilMs ? Math.max(delayMs, limit.spacingMs) : delayMs;
}

/**
 * The delay for a host: `max(floor, latencyFactor x latency) x penalty`, at most maxDelayMs, and never
 * below `floorMs` (minDelayMs or Crawl-delay, as the decision carries it): the asked delay is a floor
 * nothing here may lower.
 */
export function effectiveDelayMs(floorMs: number, signal: HostSignal, params: SignalParams): number {
  const fromLatency = params.latencyFactor * (signal.latencyMs ?? 0);
  const wanted = Math.max(floorMs, fromLatency) * signal.penalty;
  return Math.max(floorMs, Math.ceil(Math.min(params.maxDelayMs, wanted)));
}

export type { PaceChangeReason };

/** A change worth telling an operator about: at least this fraction up or down. */
export const NOTABLE_CHANGE = 0.25;

export function isNotableChange(fromMs: number, toMs: number): boolean {
  if (fromMs === toMs) return false;
  if (fromMs <= 0) return toMs > 0;
  return Math.abs(toMs - fromMs) / fromMs >= NOTABLE_CHANGE;
}

export function changeReason(
  before: HostSignal,
  after: HostSignal,
  fromMs: number,
  toMs: number,
): PaceChangeReason {
  if (after.penalty > before.penalty) return 'errors';
  if (toMs < fromMs && after.penalty < before.penalty) return 'recovered';
  return 'latency';
}

/** Statuses that say the server is struggling: overloaded (429) or failing (5xx). */
export function isTroubleStatus(status: number): boolean {
  return status === 429 || status >= 500 || status === 0;
}

/**
 * Error codes of a request that timed out or whose connection failed: the server (or the path to it)
 * is struggling, so the pace slows as for a 5xx. DNS failures and our own refusals are not its fault.
 */
const TROUBLE_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * True for an error that says the host timed out or dropped the connection, looking through `cause`
 * (undici wraps its errors in `TypeError('fetch failed')`) and recognising AbortSignal.timeout().
 */
export function isServerTroubleError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const { code, name, cause } = current as { code?: unknown; name?: unknown; cause?: unknown };
    if (typeof code === 'string' && TROUBLE_CODES.has(code)) return true;
    if (name === 'TimeoutError') return true;
    current = cause;
  }
  return false;
}
