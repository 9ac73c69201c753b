/**
 * A small breadth-first scraper on a polite fetch: fetch a page, pull its links, queue the new ones,
 * a few requests in flight at once. Politeness lives entirely in the fetch function; this file only
 * sorts outcomes into fetched / blocked (with the reason) / failed.
 */
import { getDisallowedDecision, isWaitTooLongError } from '@politely/fetch';

export type PageOutcome =
  | { readonly url: string; readonly result: 'fetched'; readonly status: number; readonly finalUrl: string }
  | {
      readonly url: string;
      readonly result: 'blocked';
      readonly reason: string;
      /** The robots.txt line that decided, when a rule did. */
      readonly line?: number;
      /** The URL that was refused when it is not `url` itself: a redirect target. */
      readonly refused?: string;
    }
  | { readonly url: string; readonly result: 'failed'; readonly error: string };

export interface ScrapeOptions {
  /** Requests in flight at once, across all hosts. Default 8. */
  readonly concurrency?: number;
  /** Stop queueing after this many distinct URLs. Default 500. */
  readonly maxPages?: number;
  /** Which discovered links to follow. Default: all http(s) links. */
  readonly follow?: (url: URL) => boolean;
  /** Sees each outcome as it happens. */
  readonly onOutcome?: (outcome: PageOutcome) => void;
}

/** `href="..."` or `href='...'`; enough for well-formed pages, and no HTML parser needed. */
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;

export function extractLinks(html: string, baseUrl: string): URL[] {
  const links: URL[] = [];
  for (const match of html.matchAll(HREF)) {
    const href = match[1] ?? match[2] ?? '';
    if (!URL.canParse(href, baseUrl)) continue;
    const url = new URL(href, baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    links.push(url);
  }
  return links;
}

/** Scrapes from `startUrls` with `fetch` (any fetch-compatible function; here, a polite one). */
export async function scrape(
  fetch: typeof globalThis.fetch,
  startUrls: readonly string[],
  options: ScrapeOptions = {},
): Promise<PageOutcome[]> {
  const concurrency = options.concurrency ?? 8;
  const maxPages = options.maxPages ?? 500;
  const follow = options.follow ?? (() => true);
  const seen = new Set<string>();
  const queue: string[] = [];
  const outcomes: PageOutcome[] = [];
  const enqueue = (url: string) => {
    if (seen.has(url) || seen.size >= maxPages) return;
    seen.add(url);
    queue.push(url);
  };

  const visit = async (url: string): Promise<PageOutcome> => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
      const body = await response.text();
      if ((response.headers.get('content-type') ?? '').includes('html')) {
        for (const link of extractLinks(body, response.url)) if (follow(link)) enqueue(link.href);
      }
      return { url, result: 'fetched', status: response.status, finalUrl: response.url };
    } catch (error) {
      const decision = getDisallowedDecision(error);
      if (decision) {
        return {
          url,
          result: 'blocked',
          reason: decision.reason,
          ...(decision.rule ? { line: decision.rule.line } : {}),
          ...(decision.url === url ? {} : { refused: decision.url }),
        };
      }
      if (isWaitTooLongError(error)) return { url, result: 'blocked', reason: 'wait-too-long' };
      return { url, result: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
  };

  for (const url of startUrls) enqueue(url);
  const inFlight = new Set<Promise<void>>();
  while (queue.length > 0 || inFlight.size > 0) {
    while (inFlight.size < concurrency && queue.length > 0) {
      const url = queue.shift() as string;
      const task = visit(url).then((outcome) => {
        outcomes.push(outcome);
        options.onOutcome?.(outcome);
        inFlight.delete(task);
      });
      inFlight.add(task);
    }
    await Promise.race(inFlight);
  }
  return outcomes;
}
