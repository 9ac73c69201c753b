/**
 * Latency-aware pacing for the facade: turns the adapters' observations into each host's signal (see
 * host-signal.ts, stored by signal-store.ts) and a host's signal into the delay it is paced by, and
 * tells the operator (a `pace-changed` event) when a host's delay moved notably and why.
 */
import { LRUCache } from 'lru-cache';
import type { PolitelyEvent } from '../kernel/events.js';
import {
  changeReason,
  effectiveDelayMs,
  type HostSignal,
  isNotableChange,
  isTroubleStatus,
  type SignalParams,
} from './host-signal.js';
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
  ): Promise<{ readonly fromMs: number; readonly toMs: number }>;
}

export interface HostPaceOptions extends SignalParams {
  readonly store: SignalStore;
  readonly emit: (event: PolitelyEvent) => void;
  /** The floor assumed for a host never paced here yet (minDelayMs with the margin). */
  readonly defaultFloorMs: number;
}

const MAX_HOSTS = 10_000;

export function createHostPace(options: HostPaceOptions): HostPace {
  const { store, emit, defaultFloorMs } = options;
  const params: SignalParams = { latencyFactor: options.latencyFactor, maxDelayMs: options.maxDelayMs };
  // Per host: the floor it was last paced with, and the delay last reported in an event.
  const floors = new LRUCache<string, number>({ max: MAX_HOSTS });
  const reported = new LRUCache<string, number>({ max: MAX_HOSTS });

  return {
    paceMs(host, floorMs) {
      floors.set(host, floorMs);
      return effectiveDelayMs(floorMs, store.get(host), params);
    },

    async observe(host, status, latencyMs) {
      const before: HostSignal = store.get(host);
      const after = await store.observe(host, {
        outcome: isTroubleStatus(status) ? 'error' : 'ok',
        ...(latencyMs !== undefined && Number.isFinite(latencyMs) && latencyMs >= 0 ? { latencyMs } : {}),
      });
      const floor = floors.get(host) ?? defaultFloorMs;
      const change = {
        fromMs: effectiveDelayMs(floor, before, params),
        toMs: effectiveDelayMs(floor, after, params),
      };
      const fromMs = reported.get(host) ?? floor;
      const toMs = change.toMs;
      // The end of an error spell is always worth saying, even when its last step was a small one.
      const backToFloor = after.penalty === 1 && before.penalty > 1 && toMs !== fromMs;
      if (!isNotableChange(fromMs, toMs) && !backToFloor) return change;
      reported.set(host, toMs);
      emit({
        type: 'pace-changed',
        host,
        fromMs,
        toMs,
        reason: changeReason(before, after, fromMs, toMs),
        ...(after.latencyMs !== undefined ? { latencyMs: Math.round(after.latencyMs * 10) / 10 } : {}),
        penalty: after.penalty,
      });
      return change;
    },
  };
}
