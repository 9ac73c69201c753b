/**
 * An origin's own files (robots.txt, tdmrep.json, the home page Google's timeline asks for) are
 * requests to the host too (Nutch and Heritrix count robots.txt), paced as a page is:
 * - a file waits for the host's slot like any other request (so a fleet starting together, or a crawl
 *   that already runs, never sends it closer than the host's delay to another request), within
 *   maxWaitMs like any other request (a slot further away is refused at once: nothing is fetched,
 *   and the check that asked rejects with WaitTooLongError);
 * - its slot, and the gap after its response (or a redirect hop's), is the delay a page of the host
 *   gets: the one the origin's robots.txt asks (`delayAsked`, decision-policy.ts: Crawl-delay for our
 *   product token, minDelayMs, maxCrawlDelayMs), with the safety margin;
 *   minDelayMs while robots.txt is not known yet;
 * - once a robots.txt is read (`spaceAfter`), the host's next start is pushed to the delay the new
 *   file asks: with `Crawl-delay: 2` the request after robots.txt leaves 2 s after it, not minDelayMs.
 *   The scheduler holds it, so it holds across a fleet (Redis) and after a restart (persisted pace).
 * Pacing trouble other than those two refusals never fails the fetch itself.
 */
import type { RobotsEntry } from '../cache/types.js';
import { toHttpUrl } from '../fetch/robots-url.js';
import type { FetchLike } from '../fetch/types.js';
import { isClosedError, isWaitTooLongError } from '../kernel/errors.js';
import type { Scheduler } from '../schedule/types.js';
import type { HostKeys } from './host-key.js';

export interface RobotsFetchPacing {
  /** Waits for the host's slot before one of its files is fetched (never rejects but as said above). */
  takeSlot(url: string): Promise<void>;
  /** `fetch` (default: the global one) that moves the host's next start once a response arrives. */
  readonly fetch: FetchLike;
  /** A robots.txt just read: the host's next start is pushed to the delay it asks (never rejects). */
  spaceAfter(robotsUrl: string, entry: RobotsEntry): Promise<void>;
}

export function createRobotsFetchPacing(deps: {
  readonly scheduler: Scheduler;
  readonly hostKeys: HostKeys;
  /** The spacing, start to start, a request takes under its origin's `entry` (a page's, margin included). */
  readonly delayOf: (entry: RobotsEntry | undefined) => number;
  /** The origin's robots.txt entry in process memory, fresh or not, without I/O and uncounted. */
  readonly known: (url: URL) => RobotsEntry | undefined;
  readonly maxWaitMs: number;
  readonly fetch: FetchLike | undefined;
}): RobotsFetchPacing {
  const { scheduler, hostKeys, delayOf, known, maxWaitMs } = deps;
  const inner: FetchLike = deps.fetch ?? ((url, init) => globalThis.fetch(url, init));
  /** Pushes the host's next start to the delay `entryOf` the URL asks, from now; trouble is swallowed. */
  const space = async (url: string, entryOf: (target: URL) => RobotsEntry | undefined) => {
    try {
      const target = toHttpUrl(url);
      const host = hostKeys.keyOf(target);
      const ms = delayOf(entryOf(target));
      if (ms > 0) await scheduler.penalize(host, ms);
    } catch {
      // Pacing trouble never fails the file's fetch itself.
    }
  };
  return {
    async takeSlot(url) {
      try {
        const target = toHttpUrl(url);
        const host = await hostKeys.resolve(target);
        await scheduler.reserve(host, delayOf(known(target)), { maxWaitMs });
      } catch (error) {
        // Closed while waiting, or not within maxWaitMs: the fetch must not go out (now). Other pacing
        // trouble never fails it.
        if (isClosedError(error) || isWaitTooLongError(error)) throw error;
      }
    },
    async fetch(url, init) {
      const response = await inner(url, init);
      await space(url, known);
      return response;
    },
    spaceAfter(robotsUrl, entry) {
      return space(robotsUrl, () => entry);
    },
  };
}
