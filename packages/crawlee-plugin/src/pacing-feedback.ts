/**
 * What the crawl tells the scheduler after the request manager let a request go: when it really
 * started, and what the server answered. Shared by the HTTP-client decorator and the browser
 * navigation hooks.
 */
import type { Politeness } from '@politely/core';

const isHttpUrl = (url: string): boolean => url.startsWith('http://') || url.startsWith('https://');

/**
 * With pacing `dequeue` the slot was reserved when the request was handed out; the crawler may send
 * later than that (session, hooks, a cold client, a new browser page). Pushing the host's next start
 * to one delay after the real start keeps the gap for every reservation made after this ran (one
 * made before it, while this request was late, is why HTTP crawlers reserve at send instead).
 */
export async function markStarted(politeness: Politeness, url: string): Promise<void> {
  if (!isHttpUrl(url)) return;
  await politeness.markSent(url);
}

/** Feeds an error status (429/503 with Retry-After) back as a per-host backoff. */
export async function observeStatus(
  politeness: Politeness,
  url: string,
  status: number,
  retryAfter: string | string[] | undefined | null,
): Promise<void> {
  if (status < 400 || !isHttpUrl(url)) return;
  const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  try {
    await politeness.observeResponse(url, status, header ?? null);
  } catch {
    // Backoff is best effort; a failing scheduler never fails the page.
  }
}
