/**
 * The request handler of a browser crawler, skipped when the page's navigation was not allowed: a
 * redirect hop into a disallowed path (or robots.txt that changed after dequeue) was answered in the
 * browser with an empty page, and the crawl must not handle it as the page it asked for.
 *
 * Crawlee 3 has no way for a hook to skip a request once its task started (a thrown error is a
 * failure, retried), so the skip happens here, before your handler: the request is marked SKIPPED
 * and not retried, and reported as a `skip` event (stage `navigation`) and to Crawlee's
 * `onSkippedRequest` with reason `robotsTxt`. Crawlee still counts it among finished requests, as it
 * does for its own skips after navigation (a redirect out of the enqueue strategy).
 *
 * Where a page could not see redirect hops (Playwright without CDP: Firefox, WebKit), each hop of
 * the response's redirect chain is checked here instead; such a hop reached the server.
 */
import { RequestState } from '@crawlee/core';
import { type DisallowedDecision, isHttpUrl, type Politeness } from '@politely/core';
import type { PageGuard } from '@politely/core/browser';
import type { Reporter } from './reporter.js';

interface HandlerContext {
  readonly page?: unknown;
  readonly response?: unknown;
  readonly request: { url: string; noRetry?: boolean; state?: unknown };
}

// biome-ignore lint/suspicious/noExplicitAny: any crawler's handler, whatever its context type
type Handler = (context: any) => unknown;

export interface SkipBlockedNavigationOptions {
  readonly guard: PageGuard;
  readonly politeness: Politeness;
  readonly reporter: Reporter;
  /** Called with each page that reached a handler without our interception (e.g. options spread). */
  readonly uninterceptedPage: (context: HandlerContext) => void;
}

export function skipBlockedNavigation<H extends Handler>(
  handler: H,
  options: SkipBlockedNavigationOptions,
): H {
  const wrapped = async (context: HandlerContext) => {
    const page = context.page;
    if (page !== null && typeof page === 'object') {
      const mode = options.guard.interception(page);
      if (mode === undefined) options.uninterceptedPage(context);
      const decision =
        options.guard.blockedNavigation(page) ??
        (mode !== 'cdp' && mode !== 'puppeteer'
          ? await disallowedHop(context, options.politeness)
          : undefined);
      if (decision) {
        context.request.noRetry = true;
        context.request.state = RequestState.SKIPPED;
        await options.reporter.skipped({ url: context.request.url, stage: 'navigation', decision });
        return;
      }
    }
    return (handler as (context: HandlerContext) => unknown)(context);
  };
  return wrapped as unknown as H;
}

/** The first disallowed URL of the navigation's redirect chain (hops after the first, and the last). */
async function disallowedHop(
  context: HandlerContext,
  politeness: Politeness,
): Promise<DisallowedDecision | undefined> {
  for (const url of redirectChain(context.response).slice(1)) {
    if (!isHttpUrl(url)) continue;
    const decision = politeness.checkCached(url) ?? (await politeness.check(url).catch(() => undefined));
    if (decision && !decision.allowed) return decision;
  }
  return undefined;
}

/** URLs from the first request to the response's own, for Playwright and Puppeteer responses. */
function redirectChain(response: unknown): string[] {
  if (response === null || typeof response !== 'object') return [];
  const request = (response as { request?: () => unknown }).request?.();
  if (request === null || typeof request !== 'object') return [];
  const last = (request as { url(): string }).url();
  const puppeteerChain = (request as { redirectChain?: () => { url(): string }[] }).redirectChain;
  if (typeof puppeteerChain === 'function') {
    return [...puppeteerChain.call(request).map((hop) => hop.url()), last];
  }
  const chain: string[] = [];
  type Hop = { url(): string; redirectedFrom?: () => Hop | null };
  for (let hop: Hop | null | undefined = request as Hop; hop; hop = hop.redirectedFrom?.()) {
    chain.unshift(hop.url());
  }
  return chain;
}
