/**
 * A robots.txt fetch is a request to the host too (Nutch and Heritrix count it): it waits for the
 * host's slot like any other request (so a fleet starting together, or a crawl that already runs,
 * never sends it closer than minDelayMs to another request), within maxWaitMs like any other request
 * (a slot further away is refused at once: nothing is fetched, and the check that asked rejects with
 * WaitTooLongError, where it waited 30 s behind a stored pace with maxWaitMs at 3 s), and once its
 * response (or a redirect hop's) arrives, the host's next start is pushed to at least minDelayMs
 * later. Other pacing trouble never fails the robots.txt fetch itself.
 */
import { toHttpUrl } from '../fetch/robots-url.js';
import type { FetchLike } from '../fetch/types.js';
import { isClosedError, isWaitTooLongError } from '../kernel/errors.js';
import type { Scheduler } from '../schedule/types.js';
import type { HostKeys } from './host-key.js';

export interface RobotsFetchPacing {
  /** Waits for the host's slot before its robots.txt is fetched (never rejects). */
  takeSlot(robotsUrl: string): Promise<void>;
  /** `fetch` (default: the global one) that moves the host's next start once a response arrives. */
  readonly fetch: FetchLike;
}

export function createRobotsFetchPacing(deps: {
  readonly scheduler: Scheduler;
  readonly hostKeys: HostKeys;
  /** Start-to-start spacing around a robots.txt fetch (minDelayMs with its safety margin). */
  readonly spacingMs: number;
  readonly maxWaitMs: number;
  readonly fetch: FetchLike | undefined;
}): RobotsFetchPacing {
  const { scheduler, hostKeys, spacingMs, maxWaitMs } = deps;
  const inner: FetchLike = deps.fetch ?? ((url, init) => globalThis.fetch(url, init));
  return {
    async takeSlot(robotsUrl) {
      try {
        const host = await hostKeys.resolve(toHttpUrl(robotsUrl));
        await scheduler.reserve(host, spacingMs, { maxWaitMs });
      } catch (error) {
        // Closed while waiting, or not within maxWaitMs: the fetch must not go out (now). Other pacing
        // trouble never fails it.
        if (isClosedError(error) || isWaitTooLongError(error)) throw error;
      }
    },
    async fetch(url, init) {
      const response = await inner(url, init);
      if (spacingMs > 0) {
        try {
          await scheduler.penalize(hostKeys.keyOf(toHttpUrl(url)), spacingMs);
        } catch {
          // Pacing trouble never fails the robots.txt fetch itself.
        }
      }
      return response;
    },
  };
}
