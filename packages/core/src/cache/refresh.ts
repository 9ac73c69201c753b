/**
 * One fetch of a well-known file and what it makes of the origin's state: the request (paced by the host's slot),
 * conditional when the copy in force has validators (a 304 renews it: revalidation.ts; a 304 that
 * renews nothing is followed by one request without conditions), the home page check Google's
 * timeline needs after 30 days unreachable (at most one per failed fetch, paced too), the state after
 * it (origin-state.ts), and what the file reports of it (robots.txt: the `robots-fetch` event). Nothing
 * is kept here: the cache decides whether the new state replaces the previous one.
 */
import { fetchRobotsTxt } from '../fetch/fetcher.js';
import { probeSite } from '../fetch/site-probe.js';
import type { FetchLike, FetchOutcome, RobotsFetchResult, RobotsValidators } from '../fetch/types.js';
import type { PolitelyEvent } from '../kernel/events.js';
import {
  type FileEntry,
  type OriginState,
  type SiteAnswer,
  type StateRules,
  siteCheckNeeded,
  stateAfterFetch,
  stateAfterNotModified,
} from './origin-state.js';
import { validatorsOf } from './revalidation.js';

export interface RefreshConfig<R, E extends FileEntry> {
  readonly userAgent: string;
  readonly fetch: FetchLike | undefined;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly rules: StateRules<R, E>;
  readonly now: () => number;
  readonly emit: (event: PolitelyEvent) => void;
  /** Waits for the host's slot before the file is fetched, outside the fetch's own timeout. */
  readonly takeSlot: ((url: string) => Promise<void>) | undefined;
  /** Once the file is read: the host's next start is pushed to the delay it asks (never rejects). */
  readonly spaceAfter: ((url: string, entry: E) => Promise<void>) | undefined;
}

/** What a refresh did: the state after it, and the outcome it reported. */
export interface Refreshed<R, E extends FileEntry> {
  readonly state: OriginState<R, E>;
  /** `not-modified`: a 304 renewed the copy in force. */
  readonly outcome: FetchOutcome | 'not-modified';
}

/** Fetches the file (conditionally when it can) and returns the origin's state after it. */
export async function refresh<R, E extends FileEntry>(
  origin: string,
  robotsUrl: string,
  previous: OriginState<R, E> | undefined,
  config: RefreshConfig<R, E>,
): Promise<Refreshed<R, E>> {
  // Only the rules in force are revalidated: an unavailable (4xx) answer cannot be (a server ignores
  // conditions on what would not be a 2xx, RFC 9110 13.2.1), and an outage's old copy is fetched whole
  // once the site is back.
  const copy = previous?.outcome === 'ok' ? previous.good?.revalidation : undefined;
  let result = await fetchOnce(robotsUrl, copy && validatorsOf(copy, config.now()), config);
  if (result.status === 304 && result.conditional) {
    const renewed = stateAfterNotModified(previous, result, config.now(), config.rules);
    if (renewed) {
      await config.spaceAfter?.(robotsUrl, renewed.entry);
      report(origin, result, 'not-modified', 0, renewed, config);
      return { state: renewed, outcome: 'not-modified' };
    }
    // A 304 that renews nothing is no answer about the rules, and must never read as an empty file
    // (allow all): reported, then asked once more without conditions; a 304 to that is unreachable.
    report(origin, result, 'unreachable', 0, undefined, config, unusableNotModified(result));
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
  report(origin, result, next.outcome, received, next, config, result.error);
  return { state: next, outcome: next.outcome };
}

async function fetchOnce<R, E extends FileEntry>(
  robotsUrl: string,
  validators: RobotsValidators | undefined,
  config: RefreshConfig<R, E>,
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
    ...(config.rules.file.accept ? { accept: config.rules.file.accept } : {}),
  });
}

/** `state`: the one the fetch left; undefined for a 304 that renews nothing (the next request tells). */
function report<R, E extends FileEntry>(
  origin: string,
  result: RobotsFetchResult,
  outcome: Refreshed<R, E>['outcome'],
  received: number,
  state: OriginState<R, E> | undefined,
  config: RefreshConfig<R, E>,
  error?: string,
): void {
  const event = config.rules.file.fetched(
    {
      origin,
      robotsUrl: result.robotsUrl,
      status: result.status,
      outcome,
      redirects: result.redirects,
      bytes: Math.min(received, config.maxBytes),
      truncated: received > config.maxBytes,
      elapsedMs: result.elapsedMs,
      ...(error !== undefined ? { error } : {}),
    },
    state,
  );
  if (event) config.emit(event);
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
export function unexpectedFailure<R, E extends FileEntry>(
  origin: string,
  url: string,
  error: unknown,
  config: Pick<RefreshConfig<R, E>, 'now' | 'rules' | 'emit'>,
): OriginState<R, E> {
  const at = config.now();
  const { file, limits } = config.rules;
  const entry = file.entry({
    origin,
    url,
    source: 'unreachable',
    status: 0,
    fetchedAt: at,
    freshUntil: at + limits.unreachableRetryMs,
  });
  const state: OriginState<R, E> = { entry, outcome: 'unreachable', failures: 1 };
  const event = file.fetched(
    {
      origin,
      robotsUrl: url,
      status: 0,
      outcome: 'unreachable',
      redirects: 0,
      bytes: 0,
      truncated: false,
      elapsedMs: 0,
      error: `internal error: ${error instanceof Error ? error.message : String(error)}`,
    },
    state,
  );
  if (event) config.emit(event);
  return state;
}
