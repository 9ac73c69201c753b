/**
 * Navigation hooks for the browser crawlers (Playwright, Puppeteer), which navigate with the browser
 * rather than the HTTP client: pace from the moment navigation starts, and back off on 429/503 with
 * Retry-After. The HTTP crawlers get both through the HTTP-client decorator and need none of this.
 * With pacing `dequeue` (their default) the slot was reserved at dequeue and navigation only pushes
 * the next one out; with `reserveAt: 'send'` the hook takes the binding slot itself, waiting for it
 * with the page open.
 */
import { type Decision, getDisallowedDecision, type Politeness } from '@politely/core';
import { isHttpUrl } from './enqueue-filter.js';
import { RobotsRedirectError } from './redirect-error.js';
import type { Reporter } from './reporter.js';
import type { SkipReason } from './types.js';

/** The navigation response as the crawlers hand it over: a browser Response or a Node IncomingMessage. */
interface ResponseLike {
  status?: number | (() => number);
  statusCode?: number;
  url?: string | (() => string);
  headers?: Record<string, string | string[] | undefined> | (() => Record<string, string>);
}

interface NavigationContext {
  readonly request: { readonly url: string; readonly loadedUrl?: string | undefined };
  readonly response?: ResponseLike | null | undefined;
}

export type NavigationHook = (context: NavigationContext) => Promise<void>;

export interface NavigationPacing {
  /** True: the hook takes the binding slot (reserveAt 'send'); false: the queue took it. */
  readonly reserveAtSend: boolean;
  readonly onSent: (decision: Decision, at?: number) => void;
  readonly reporter: Reporter;
}

export function navigationHooks(
  politeness: Politeness,
  pacing?: NavigationPacing,
): {
  preNavigationHook: NavigationHook;
  postNavigationHook: NavigationHook;
} {
  return {
    preNavigationHook: async ({ request }) => {
      if (!isHttpUrl(request.url)) return;
      if (!pacing?.reserveAtSend) return politeness.markSent(request.url);
      try {
        pacing.onSent(await politeness.admit(request.url));
      } catch (error) {
        const decision = getDisallowedDecision(error);
        if (!decision) throw error;
        // robots.txt changed after the request was handed out: fail it once, as a redirect refusal does.
        await pacing.reporter.skipped({
          url: request.url,
          reason: decision.reason as SkipReason,
          stage: 'send',
          decision,
          host: decision.hostKey,
        });
        throw new RobotsRedirectError(decision, 'send');
      }
    },
    postNavigationHook: async ({ request, response }) => {
      if (!response) return;
      const status =
        typeof response.status === 'function' ? response.status() : (response.status ?? response.statusCode);
      if (status === undefined) return;
      const url =
        (typeof response.url === 'function' ? response.url() : response.url) ??
        request.loadedUrl ??
        request.url;
      const headers = typeof response.headers === 'function' ? response.headers() : (response.headers ?? {});
      if ((status !== 429 && status !== 503) || !isHttpUrl(url)) return;
      const retryAfter = headers['retry-after'];
      await politeness
        .observeResponse(url, status, (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null)
        .catch(() => undefined);
    },
  };
}
