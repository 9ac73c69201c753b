/**
 * Google's timeline for a robots.txt that stays unreachable (5xx, 429, network errors, timeouts), the
 * `unreachablePolicy: 'google'` option. As Google documents it (Search Console Help, Crawl Stats report,
 * "robots.txt availability", https://support.google.com/webmasters/answer/9679690; and
 * https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt#http-status-codes):
 *
 * | time since the outage began | what the crawler does                                                |
 * | --------------------------- | -------------------------------------------------------------------- |
 * | under 12 hours              | `disallow-all`: crawl nothing, retry robots.txt                       |
 * | 12 hours to 30 days         | `last-good-copy`: the last good robots.txt (none: `onUnreachable`)   |
 * | 30 days and more            | `allow-all` if the site's home page answers, else `site-down`         |
 *
 * robots.txt is retried all along with the usual backoff; the first answer that is not unreachable
 * ends the outage (`recovered`). The default, `'rfc'`, keeps RFC 9309 2.3.1.4 as it reads: disallow all,
 * with a good copy up to `staleTtlMs` old standing in from the first failure. Pure: time comes in as
 * arguments.
 */
import type { PolitelyEvent, UnreachablePhase } from '../kernel/events.js';

export type { UnreachablePhase };
export type UnreachablePolicy = 'rfc' | 'google';

export const DISALLOW_ALL_FOR_MS = 12 * 3_600_000;
export const LAST_GOOD_COPY_UNTIL_MS = 30 * 86_400_000;

/** Where an origin's outage stands, as kept in its state. */
export interface Outage {
  /** When the first of the consecutive unreachable fetches happened, epoch ms. */
  readonly since: number;
  readonly phase: Exclude<UnreachablePhase, 'recovered'>;
  /** From 30 days on: the home page's status at the latest check (0: no answer). */
  readonly siteStatus?: number;
}

/** True when a failed fetch at `at` needs to know whether the site's pages answer (30 days and more). */
export function needsSiteCheck(since: number, at: number): boolean {
  return at - since >= LAST_GOOD_COPY_UNTIL_MS;
}

/** The phase at `at` of an outage that began at `since`; `siteAnswers` decides from 30 days on. */
export function phaseAt(since: number, at: number, siteAnswers: boolean): Outage['phase'] {
  const lasted = at - since;
  if (lasted < DISALLOW_ALL_FOR_MS) return 'disallow-all';
  if (lasted < LAST_GOOD_COPY_UNTIL_MS) return 'last-good-copy';
  return siteAnswers ? 'allow-all' : 'site-down';
}

/** When the phase in force at `at` ends by itself (then robots.txt is fetched again), or undefined. */
export function phaseEndsAt(since: number, at: number): number | undefined {
  if (at - since < DISALLOW_ALL_FOR_MS) return since + DISALLOW_ALL_FOR_MS;
  if (at - since < LAST_GOOD_COPY_UNTIL_MS) return since + LAST_GOOD_COPY_UNTIL_MS;
  return undefined;
}

/** True when the phase is consistent with an outage of that length (stored records are checked with it). */
export function phaseFits(phase: unknown, since: number, at: number): boolean {
  const expected = phaseAt(since, at, true);
  if (expected === 'allow-all') return phase === 'allow-all' || phase === 'site-down';
  return phase === expected;
}

export type UnreachablePhaseEvent = Extract<PolitelyEvent, { type: 'unreachable-phase' }>;

/**
 * The event a change of state announces: a new phase, or the end of the outage; undefined when the
 * phase stays (or there is no timeline).
 */
export function phaseChange(
  origin: string,
  previous: Outage | undefined,
  next: Outage | undefined,
): UnreachablePhaseEvent | undefined {
  if (next === undefined) {
    return previous
      ? { type: 'unreachable-phase', origin, phase: 'recovered', since: previous.since }
      : undefined;
  }
  if (previous?.phase === next.phase && previous.since === next.since) return undefined;
  return {
    type: 'unreachable-phase',
    origin,
    phase: next.phase,
    since: next.since,
    ...(next.siteStatus !== undefined ? { siteStatus: next.siteStatus } : {}),
  };
}
