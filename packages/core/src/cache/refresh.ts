/**
 * One robots.txt fetch and what it makes of the origin's state: the request (paced by the host's slot),
 * conditional when the copy in force has validators (a 304 renews it: revalidation.ts; a 304 that
 * renews nothing is followed by one request without conditions), the home page check Google's
 * timeline needs after 30 days unreachable (at most one per failed fetch, paced too), the state after
 * it (origin-state.ts), and the `robots-fetch` event. Nothing is kept here: the cache decides whether
 * the new state replaces the previous one.
 */
import { fetchRobotsTxt } from '../fetch/fetcher.js';
import { probeSite } from '../fetch/site-probe.js';
import type { FetchLike, FetchOutcome, RobotsFetchResult, RobotsValidators } from '../fetch/types.js';
import type { PolitelyEvent } from '../kernel/events.js';
import {
  type OriginState,
  type SiteAnswer,
  type StateRules,
  siteCheckNeeded,
  stateAfterFetch,
  stateAfterNotModified,
} from './origin-state.js';
import { validatorsOf } from './revalidation.js';
import type { RobotsEntry } from './types.js';

export interface RefreshConfig {
  readonly userAgent: string;
  readonly fetch: FetchLike | undefined;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly rules: StateRules;
  readonly now: () => number;
  readonly emit: (event: PolitelyEvent) => void;
  /** Waits for the host's slot before robots.txt is fetched, outside the fetch's own timeout. */
  readonly takeSlot: ((url: string) => Promise<void>) | undefined;
  /** Once robots.txt is read: the host's next start is pushed to the delay it asks (never rejects). */
  readonly spaceAfter: ((robotsUrl: string, entry: RobotsEntry) => Promise<void>) | undefined;
}

/** What a refresh did: the state after it, and the outcome its `robots-fetch` event reported. */
export interface Refreshed {
  readonly state: OriginState;
  /** `not-modified`: a 304 renewed the copy in force. */
  readonly outcome: FetchOutcome | 'not-modified';
}

/** Fetches robots.txt (conditionally when it can) and returns the origin's state after it. */
export async function refresh(
  origin: string,
  robotsUrl: string,
  previous: OriginState | undefined,
  config: RefreshConfig,
): Promise<Refreshed> {
  // Only the rules in force are revalidated: an unavailable (4xx) answer cannot be (a server ignores
  // conditions on what would not be a 2xx, RFC 9110 13.2.1), and an outage's old copy is fetched whole
  // once the site is back.
  const copy = previous?.outcome === 'ok' ? previous.good?.revalidation : undefined;
  let result = await fetchOnce(robotsUrl, copy && validatorsOf(copy, config.now()), config);
  if (result.status === 304 && result.conditional) {
    const renewed = stateAfterNotModified(previous, result, config.now(), config.rules);
    if (renewed) {
      await config.spaceAfter?.(robotsUrl, renewed.entry);
      emitFetch(origin, result, 'not-modified', 0, config);
      return { state: renewed, outcome: 'not-modified' };
    }
    // A 304 that renews nothing is no answer about the rules, and must never read as an empty file
    // (allow all): reported, then asked once more without conditions; a 304 to that is unreachable.
    emitFetch(origin, result, 'unreachable', 0, config, unusableNotModified(result));
    result = await fetchOnce(robotsUrl, undefined, config);
  }
  const received = result.body?.byteLength ?? 0;
  let site: SiteAnswer | undefined;
  if (siteCheckNeeded(result, previous, config.now(), config.rules)) {
    const home = `${origin}/`;
    await config.takeSlot?.(home);
    site = await probeSite(origin, {
      fetch: config.fetch,
      userAgent: config.userAgent,
      timeoutMs: config.timeoutMs,
    });
  }
  const next = stateAfterFetch(origin, result, previous, config.now(), config.rules, site);
  await config.spaceAfter?.(robotsUrl, next.entry);
  emitFetch(origin, result, next.outcome, received, config, result.error);
  return { state: next, outcome: next.outcome };
}

async function fetchOnce(
  robotsUrl: string,
  validators: RobotsValidators | undefined,
  config: RefreshConfig,
): Promise<RobotsFetchResult> {
  await config.takeSlot?.(robotsUrl);
  return fetchRobotsTxt(robotsUrl, {
    userAgent: config.userAgent,
    timeoutMs: config.timeoutMs,
    // One byte past the limit tells a body of exactly maxBytes from a longer one; the engine makes the cut.
    maxBytes: config.maxBytes + 1,
    maxRedirects: config.maxRedirects,
    ...(config.fetch ? { fetch: config.fetch } : {}),
    ...(validators ? { validators } : {}),
  });
}

function emitFetch(
  origin: string,
  result: RobotsFetchResult,
  outcome: Refreshed['outcome'],
  received: number,
  config: RefreshConfig,
  error?: string,
): void {
  config.emit({
    type: 'robots-fetch',
    origin,
    robotsUrl: result.robotsUrl,
    status: result.status,
    outcome,
    redirects: result.redirects,
    bytes: Math.min(received, config.maxBytes),
    truncated: received > config.maxBytes,
    elapsedMs: result.elapsedMs,
    ...(error !== undefined ? { error } : {}),
  });
}

/** Why a 304 to our conditional request renewed nothing. */
function unusableNotModified(result: RobotsFetchResult): string {
  const why = result.notModifiedWithBody
    ? '304 Not Modified with content'
    : result.etag !== undefined
      ? `304 Not Modified for another copy (ETag ${result.etag.slice(0, 80)})`
      : result.lastModified !== undefined
        ? `304 Not Modified for another copy (Last-Modified ${result.lastModified.slice(0, 80)})`
        : '304 Not Modified with no copy to renew';
  return `${why}; fetched again without conditions`;
}

/**
 * A bug of ours (the engine, a serialiser) must not crash a crawl: the origin is treated as
 * unreachable until the first retry and the error reported. The caller keeps this state in process
 * memory only.
 */
export function unexpectedFailure(
  origin: string,
  robotsUrl: string,
  error: unknown,
  config: Pick<RefreshConfig, 'now' | 'emit' | 'rules'>,
): OriginState {
  const at = config.now();
  const entry: RobotsEntry = {
    origin,
    robotsUrl,
    source: 'unreachable',
    status: 0,
    fetchedAt: at,
    freshUntil: at + config.rules.limits.unreachableRetryMs,
  };
  config.emit({
    type: 'robots-fetch',
    origin,
    robotsUrl,
    status: 0,
    outcome: 'unreachable',
    redirects: 0,
    bytes: 0,
    truncated: false,
    elapsedMs: 0,
    error: `internal error: ${error instanceof Error ? error.message : String(error)}`,
  });
  return { entry, outcome: 'unreachable', failures: 1 };
}
