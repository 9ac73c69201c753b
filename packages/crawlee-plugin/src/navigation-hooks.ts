/**
 * Navigation hooks for the browser crawlers (Playwright, Puppeteer), which navigate with the browser
 * rather than the HTTP client: pace from the moment navigation starts, and back off on 429/503 with
 * Retry-After. The HTTP crawlers get both through the HTTP-client decorator and need none of this.
 */
import type { Politeness } from '@politely/core';
import { markStarted, observeStatus } from './pacing-feedback.js';

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

export function navigationHooks(politeness: Politeness): {
  preNavigationHook: NavigationHook;
  postNavigationHook: NavigationHook;
} {
  return {
    preNavigationHook: async ({ request }) => markStarted(politeness, request.url),
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
      await observeStatus(politeness, url, status, headers['retry-after']);
    },
  };
}
