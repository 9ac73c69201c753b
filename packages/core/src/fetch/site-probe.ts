/**
 * Whether a site's pages answer while its robots.txt does not: one GET of the origin's home page `/`,
 * read no further than the status line and headers. Google's unreachable timeline allows crawling
 * after 30 days only when the home page is available (cache/unreachable-timeline.ts).
 */
import { raceAbort } from '../kernel/abort.js';
import { startDeadline } from '../kernel/deadline.js';
import { nodeFetch } from './fetcher.js';
import { discard } from './read-body.js';
import type { FetchLike } from './types.js';

export interface SiteProbeOptions {
  readonly fetch?: FetchLike | undefined;
  /** Sent as the User-Agent header. */
  readonly userAgent: string;
  /** Whole exchange, in ms. */
  readonly timeoutMs: number;
}

export interface SiteProbe {
  /**
   * True for any status below 500 but 429: a page, a redirect (to https, to a language) or a client
   * error is the server answering; 5xx, 429 (the server asks for less), network errors and timeouts
   * are not.
   */
  readonly answered: boolean;
  /** The home page's status; 0 for a network error or timeout. */
  readonly status: number;
}

export async function probeSite(origin: string, options: SiteProbeOptions): Promise<SiteProbe> {
  const fetchImpl = options.fetch ?? nodeFetch;
  const controller = new AbortController();
  const cancelDeadline = startDeadline(options.timeoutMs, () => controller.abort());
  try {
    // Raced as well: a fetch that ignores its signal still ends the probe at the deadline.
    const response = await raceAbort(
      fetchImpl(`${origin}/`, {
        method: 'GET',
        headers: { 'User-Agent': options.userAgent, Accept: 'text/html, */*;q=0.1' },
        redirect: 'manual',
        signal: controller.signal,
      }),
      controller.signal,
    );
    discard(response);
    const { status } = response;
    return { answered: status > 0 && status < 500 && status !== 429, status };
  } catch {
    return { answered: false, status: 0 };
  } finally {
    cancelDeadline();
    if (!controller.signal.aborted) controller.abort();
  }
}
