/**
 * Latency-aware pacing for the facade: turns the adapters' observations into each host's signal (see
 * host-signal.ts, stored by signal-store.ts) and a host's signal into the delay it is paced by, and
 * tells the operator (a `pace-changed` event) when a host's delay moved notably and why. A response's
 * rate-limit headers (rate-limit-headers.ts) travel the same way: into the signal, across the fleet
 * with Redis, and out as the delay until the quota resets.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../kernel/clock.js';
import type { PaceRateLimit, PolitelyEvent } from '../kernel/events.js';
import {
  changeReason,
  effectiveDelayMs,
  type HostSignal,
  isNotableChange,
  isTroubleStatus,
  type PaceChangeReason,
  type RateLimitPace,
  rateLimitedDelayMs,
  type SignalParams,
} from './host-signal.js';
import type { RateLimitReading } from './rate-limit-headers.js';
import type { SignalStore } from './signal-store.js';

export interface HostPace {
  /** The delay to pace `host` by now: `floorMs` (the decision's delay) raised by its signal. */
  paceMs(host: string, floorMs: number): number;
  /**
   * Feeds one response (status 0: none, the request timed out or failed) into the host's signal.
   * Resolves with the host's delay before and after it.
   */
  observe(
    host: string,
    status: number,
    latencyMs: number | undefined,
    rateLimit?: RateLimitReading,
  ): Promise<{ readonly fromMs: number; readonly toMs: number }>;
  /**
   * The host's rate limit while it asks for more than maxRateLimitDelayMs between requests and has
   * not reset (no I/O: the signal last known here, the fleet's with Redis); else undefined.
   */
  limitAboveMax(host: string): RateLimitPace | undefined;
}

export interface HostPaceOptions extends SignalParams {
  readonly store: SignalStore;
  readonly emit: (event: PolitelyEvent) => void;
  /** The floor assumed for a host never paced here yet (minDelayMs with the margin). */
  readonly defaultFloorMs: number;
  readonly clock: Clock;
  /** A rate-limit spacing above this is one rateLimitAboveMax decides about (options.ts). */
  readonly maxRateLimitDelayMs: number;
  readonly rateLimitAboveMax: 'wait' | 'skip' | 'fail';
}

const MAX_HOSTS = 10_000;

export function createHostPace(options: HostPaceOptions): HostPace {
  const { store, emit, defaultFloorMs, clock, maxRateLimitDelayMs, rateLimitAboveMax } = options;
  const params: SignalParams = { latencyFactor: options.latencyFactor, maxDelayMs: options.maxDelayMs };
  // Per host: the floor it was last paced with, and the delay last reported in an event.
  const floors = new LRUCache<string, number>({ max: MAX_HOSTS });
  const reported = new LRUCache<string, number>({ max: MAX_HOSTS });
  // Hosts whose rate limit is above the max now, so the event goes out once per spell.
  const aboveMax = new LRUCache<string, true>({ max: MAX_HOSTS });
  const limitAbove = (signal: HostSignal, now: number): RateLimitPace | undefined => {
    const limit = signal.rateLimit;
    return limit && now < limit.untilMs && limit.spacingMs > maxRateLimitDelayMs ? limit : undefined;
  };
  /**
   * With 'skip' or 'fail' a rate limit above the max paces nothing: the host's requests are refused
   * until its reset, and holding its schedule for it as well would keep them parked behind it, the
   * crawl stalled until each reset without a word. Nothing is sent meanwhile
   * (the facade refuses every pass too), so no request goes out sooner than the site asked.
   */
  const pacedBy = (signal: HostSignal, now: number): HostSignal =>
    rateLimitAboveMax !== 'wait' && limitAbove(signal, now)
      ? { latencyMs: signal.latencyMs, penalty: signal.penalty }
      : signal;
  const delayOf = (floorMs: number, signal: HostSignal, now: number) => {
    const paced = pacedBy(signal, now);
    return rateLimitedDelayMs(effectiveDelayMs(floorMs, paced, params), paced, now);
  };

  return {
    paceMs(host, floorMs) {
      floors.set(host, floorMs);
      return delayOf(floorMs, store.get(host), clock.now());
    },

    async observe(host, status, latencyMs, rateLimit) {
      const before: HostSignal = store.get(host);
      // Built whole, fields left undefined rather than spread in: every response of every request
      // comes through here.
      const after = await store.observe(host, {
        outcome: isTroubleStatus(status) ? 'error' : 'ok',
        latencyMs:
          latencyMs !== undefined && Number.isFinite(latencyMs) && latencyMs >= 0 ? latencyMs : undefined,
        rateLimit: rateLimit ? { spacingMs: rateLimit.spacingMs, forMs: rateLimit.forMs } : undefined,
      });
      const now = clock.now();
      noteLimit(host, after, now, rateLimit);
      const floor = floors.get(host) ?? defaultFloorMs;
      const change = { fromMs: delayOf(floor, before, now), toMs: delayOf(floor, after, now) };
      const fromMs = reported.get(host) ?? floor;
      const toMs = change.toMs;
      const reason = reasonFor(before, after, fromMs, toMs, now);
      // The end of an error spell or of a rate limit is always worth saying, even in a small last step.
      const backToFloor =
        toMs !== fromMs && ((after.penalty === 1 && before.penalty > 1) || reason === 'rate-limit-reset');
      if (!isNotableChange(fromMs, toMs) && !backToFloor) return change;
      reported.set(host, toMs);
      const limit = reason === 'rate-limit' ? after.rateLimit : undefined;
      emit({
        type: 'pace-changed',
        host,
        fromMs,
        toMs,
        reason,
        ...(after.latencyMs !== undefined ? { latencyMs: Math.round(after.latencyMs * 10) / 10 } : {}),
        penalty: after.penalty,
        ...(limit ? { untilMs: limit.untilMs } : {}),
        ...(limit && rateLimit ? { rateLimit: describe(rateLimit) } : {}),
      });
      return change;
    },

    limitAboveMax(host) {
      return limitAbove(store.get(host), clock.now());
    },
  };

  /** Says once per spell that a host's rate limit went above the max, and what is done about it. */
  function noteLimit(host: string, signal: HostSignal, now: number, reading: RateLimitReading | undefined) {
    const limit = limitAbove(signal, now);
    if (!limit) {
      aboveMax.delete(host);
      return;
    }
    if (aboveMax.has(host)) return;
    aboveMax.set(host, true);
    emit({
      type: 'rate-limit-above-max',
      host,
      spacingMs: limit.spacingMs,
      untilMs: limit.untilMs,
      maxRateLimitDelayMs,
      action: rateLimitAboveMax,
      ...(reading ? { rateLimit: describe(reading) } : {}),
    });
  }

  /**
   * Rate-limit reasons first: the quota's spacing is what paces the host while it is the widest, and
   * when the pace last reported was the quota's and drops, the quota stopped holding the host (its
   * reset passed, or a new reading leaves plenty).
   */
  function reasonFor(
    before: HostSignal,
    after: HostSignal,
    fromMs: number,
    toMs: number,
    now: number,
  ): PaceChangeReason {
    const limit = after.rateLimit;
    if (limit && now < limit.untilMs && limit.spacingMs >= toMs) return 'rate-limit';
    const last = before.rateLimit;
    if (last && last.spacingMs >= fromMs && toMs < fromMs) return 'rate-limit-reset';
    return changeReason(before, after, fromMs, toMs);
  }
}

/** What the event says about the headers that set the pace (the reading without its duration). */
function describe(reading: RateLimitReading): PaceRateLimit {
  const { forMs: _forMs, ...described } = reading;
  return described;
}
