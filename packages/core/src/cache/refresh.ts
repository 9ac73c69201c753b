/**
 * One robots.txt fetch and what it makes of the origin's state: the request (paced by the host's slot),
 * the home page check Google's timeline needs after 30 days unreachable (at most one per failed
 * fetch, paced too), the state after it (origin-state.ts), and the `robots-fetch` event. Nothing is kept here: the cache
 * decides whether the new state replaces the previous one.
 */
import { fetchRobotsTxt } from '../fetch/fetcher.js';
import { probeSite } from '../fetch/site-probe.js';
import type { FetchLike } from '../fetch/types.js';
import type { PolitelyEvent } from '../kernel/events.js';
import {
  type OriginState,
  type SiteAnswer,
  type StateRules,
  siteCheckNeeded,
  stateAfterFetch,
} from './origin-state.js';
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
}

/** Fetches robots.txt once and returns the origin's state after it. */
export async function refresh(
  origin: string,
  robotsUrl: string,
  previous: OriginState | undefined,
  config: RefreshConfig,
): Promise<OriginState> {
  await config.takeSlot?.(robotsUrl);
  const result = await fetchRobotsTxt(robotsUrl, {
    userAgent: config.userAgent,
    timeoutMs: config.timeoutMs,
    // One byte past the limit tells a body of exactly maxBytes from a longer one; the engine makes the cut.
    maxBytes: config.maxBytes + 1,
    maxRedirects: config.maxRedirects,
    ...(config.fetch ? { fetch: config.fetch } : {}),
  });
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
  config.emit({
    type: 'robots-fetch',
    origin,
    robotsUrl,
    status: result.status,
    outcome: next.outcome,
    redirects: result.redirects,
    bytes: Math.min(received, config.maxBytes),
    truncated: received > config.maxBytes,
    elapsedMs: result.elapsedMs,
    ...(result.error !== undefined ? { error: result.error } : {}),
  });
  return next;
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
