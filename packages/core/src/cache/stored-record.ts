/**
 * The value kept in the store for one origin: plain JSON, versioned, checked on the way in. Anything
 * that does not decode (garbage, an older layout, another origin, other parse options) is a miss.
 */
import type { FetchOutcome } from '../fetch/types.js';

export const STORE_KEY_PREFIX = 'politely:robots:v1:';

export function storeKey(origin: string): string {
  return `${STORE_KEY_PREFIX}${origin}`;
}

export interface StoredGoodCopy {
  /** The engine's serialised rules (RobotsTxt#toJSON()). */
  readonly robots: unknown;
  readonly status: number;
  readonly fetchedAt: number;
}

export interface StoredRobots {
  readonly v: 1;
  readonly origin: string;
  readonly robotsUrl: string;
  /** Outcome of the latest fetch. */
  readonly outcome: FetchOutcome;
  readonly status: number;
  readonly fetchedAt: number;
  readonly freshUntil: number;
  /** Consecutive unreachable outcomes (0 after a success), for the retry backoff. */
  readonly failures: number;
  /** The parse options the rules were compiled with (see parseKey). */
  readonly parse: string;
  /** The latest 2xx copy: in force when outcome is ok, the stale-if-error copy when unreachable. */
  readonly good?: StoredGoodCopy;
}

const OUTCOMES: ReadonlySet<unknown> = new Set<FetchOutcome>(['ok', 'unavailable', 'unreachable']);

/** The stored record, or undefined when `value` is not a v1 record for this origin and parse key. */
export function decodeStored(value: unknown, origin: string, parse: string): StoredRobots | undefined {
  if (!isObject(value)) return undefined;
  if (value.v !== 1 || value.origin !== origin || value.parse !== parse) return undefined;
  if (typeof value.robotsUrl !== 'string' || !OUTCOMES.has(value.outcome)) return undefined;
  if (
    !isTime(value.status) ||
    !isTime(value.fetchedAt) ||
    !isTime(value.freshUntil) ||
    !isTime(value.failures)
  ) {
    return undefined;
  }
  const good = value.good;
  if (good !== undefined) {
    if (!isObject(good) || good.robots === undefined || !isTime(good.status) || !isTime(good.fetchedAt)) {
      return undefined;
    }
  }
  if (value.outcome === 'ok' && good === undefined) return undefined;
  return value as unknown as StoredRobots;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
