/**
 * A scripted Politeness for unit tests of the translator: decisions come from a table of path
 * prefixes, robots.txt "fetches" resolve when the test says so, and slots follow a fake clock.
 * It stands in for the facade's contract (types.ts) and its adapter kit (adapter/kit.ts), not for
 * its implementation.
 */

import type { Decision, DecisionReason, DisallowedDecision, Politeness, SkipStage } from '@politely/core';
import { ADAPTER_KIT, type AdapterKit, emptyStats, type TryReservation } from '@politely/core/adapter';

export interface FakeClock {
  now(): number;
  advance(ms: number): void;
}

export function fakeClock(start = 1_000_000): FakeClock {
  let time = start;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
  };
}

export interface FakePoliteness extends Politeness {
  readonly [ADAPTER_KIT]: AdapterKit;
  /** Origins whose rules are "in memory" (checkCached answers for them). */
  readonly known: Set<string>;
  /** Resolves pending check() calls for an origin and marks it known. */
  release(origin: string): void;
  readonly prefetches: string[];
  readonly reservations: string[];
  /** Backoffs and start marks asked of the scheduler, in order. */
  readonly penalties: Array<{ readonly host: string; readonly ms: number }>;
  /** What `reportSkip` was told, in order (the facade's `skip` events). */
  readonly skips: Array<{
    readonly url: string;
    readonly stage: SkipStage;
    readonly decision: DisallowedDecision;
  }>;
}

/**
 * @param rules path prefix -> reason for URLs that are not allowed (`/private` -> 'disallowed').
 * @param delayMs start-to-start spacing per host.
 */
export function fakePoliteness(
  clock: FakeClock,
  rules: Record<string, Exclude<DecisionReason, 'allowed'>>,
  delayMs: number,
): FakePoliteness {
  const nextSlot = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();
  const decide = (url: string): Decision => {
    const parsed = new URL(url);
    const prefix = Object.keys(rules).find((candidate) => parsed.pathname.startsWith(candidate));
    const reason = prefix ? rules[prefix] : undefined;
    const common = {
      url,
      robotsUrl: `${parsed.origin}/robots.txt`,
      productToken: 'FakeBot',
      source: 'robots.txt' as const,
      ...(prefix && reason === 'disallowed'
        ? { rule: { directive: 'disallow' as const, pattern: prefix, line: 2 } }
        : {}),
      delayMs,
      hostKey: parsed.hostname,
    };
    return reason === undefined
      ? { ...common, allowed: true, reason: 'allowed' }
      : { ...common, allowed: false, reason };
  };
  const penalize = async (host: string, ms: number) => {
    fake.penalties.push({ host, ms });
    nextSlot.set(host, Math.max(nextSlot.get(host) ?? 0, clock.now() + ms));
  };
  const checkCached = (url: string | URL) =>
    fake.known.has(new URL(String(url)).origin) ? decide(String(url)) : undefined;
  // The adapter kit the plugin takes from a Politeness (adapterKit): the fake's own.
  const kit: AdapterKit = {
    sendUserAgent: true,
    checkCached,
    prefetch(url) {
      fake.prefetches.push(String(url));
    },
    async markSent(decisionOrUrl) {
      const decision =
        typeof decisionOrUrl === 'string' || decisionOrUrl instanceof URL
          ? checkCached(decisionOrUrl)
          : decisionOrUrl;
      if (decision?.allowed && decision.delayMs > 0) await penalize(decision.hostKey, decision.delayMs);
    },
    pass: () => Promise.reject(new Error('not used')),
    async nextStart(decisionOrUrl) {
      const host =
        typeof decisionOrUrl === 'string' || decisionOrUrl instanceof URL
          ? new URL(String(decisionOrUrl)).hostname
          : decisionOrUrl.hostKey;
      return Math.max(clock.now(), nextSlot.get(host) ?? 0);
    },
    async tryReserve(decision): Promise<TryReservation> {
      const now = clock.now();
      const next = nextSlot.get(decision.hostKey) ?? 0;
      if (next > now) return { ok: false, notBefore: next, waitMs: next - now };
      nextSlot.set(decision.hostKey, now + decision.delayMs);
      fake.reservations.push(decision.url);
      return { ok: true, startAt: now };
    },
    hostKey: (url) => new URL(String(url)).hostname,
    paceMs: (decision) => decision.delayMs,
    reportSkip(decision, stage) {
      fake.skips.push({ url: decision.url, stage, decision });
    },
  };
  const fake: FakePoliteness = {
    [ADAPTER_KIT]: kit,
    productToken: 'FakeBot',
    userAgent: 'FakeBot/1.0',
    known: new Set(),
    prefetches: [],
    reservations: [],
    penalties: [],
    skips: [],
    release(origin) {
      fake.known.add(origin);
      for (const resolve of waiting.get(origin) ?? []) resolve();
      waiting.delete(origin);
    },
    async check(url) {
      const origin = new URL(String(url)).origin;
      if (!fake.known.has(origin)) {
        await new Promise<void>((resolve) => waiting.set(origin, [...(waiting.get(origin) ?? []), resolve]));
      }
      return decide(String(url));
    },
    admit: () => Promise.reject(new Error('not used')),
    sitemaps: async () => [],
    observeResponse: async () => undefined,
    forget: async (url) => {
      fake.known.delete(new URL(String(url)).origin);
    },
    stats: emptyStats,
    subscribe: () => () => {},
    close: async () => {},
  };
  return fake;
}
