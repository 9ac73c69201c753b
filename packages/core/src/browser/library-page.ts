/**
 * What Playwright and Puppeteer pages have in common, by shape (neither library is imported): the
 * request, response and page methods the guard reads, which request is the main frame's navigation,
 * and the page events that tell the guard how a navigation ended (its response and latency, or its
 * network failure). Both libraries report these the same way, whichever way requests are paused.
 */
import type { BrowserGuard } from './browser-guard.js';

export interface LibraryRequest {
  url(): string;
  isNavigationRequest(): boolean;
  frame(): unknown;
  headers(): Record<string, string>;
  /** Why the request failed, once it has (`requestfailed`), as the browser names it. */
  failure?(): { readonly errorText: string } | null;
}

export interface LibraryResponse<R extends LibraryRequest> {
  url(): string;
  status(): number;
  headers(): Record<string, string>;
  request(): R;
}

export interface LibraryPage {
  mainFrame(): unknown;
  on(event: 'response' | 'requestfailed' | 'close', listener: (response: never) => void): unknown;
}

export function isMainFrameNavigation(page: LibraryPage, request: LibraryRequest): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === page.mainFrame();
  } catch {
    return false; // a service worker's request has no frame
  }
}

/**
 * A navigation's timing as the browser took it: [request sent, response headers in] in ms from one
 * origin, and, when the library can place that origin on the wall clock, the origin as epoch ms.
 */
export type BrowserTiming = readonly [
  sent: number | undefined,
  answered: number | undefined,
  originEpochMs?: number | undefined,
];

/**
 * Each main-frame navigation response reaches the guard with its latency, read from the browser's
 * own timing by `timing`, and the moment its headers reached the browser when the timing places it
 * on the wall clock (our event loop may see the response well after: 4-150 ms, load 16-37); each
 * network failure of one reaches it with the browser's error text.
 */
export function watchOutcomes<R extends LibraryRequest, S extends LibraryResponse<R>>(
  page: LibraryPage,
  guard: BrowserGuard,
  timing: (response: S) => BrowserTiming | undefined,
): void {
  page.on('response', ((response: S) => {
    if (!isMainFrameNavigation(page, response.request())) return;
    let latencyMs: number | undefined;
    let arrivedAt: number | undefined;
    try {
      const [sent, answered, origin] = timing(response) ?? [];
      if (typeof sent === 'number' && typeof answered === 'number' && sent >= 0 && answered >= sent) {
        latencyMs = answered - sent;
        if (typeof origin === 'number' && Number.isFinite(origin)) arrivedAt = origin + answered;
      }
    } catch {
      // No timing: the guard counts from letting the request go.
    }
    const headers = response.headers();
    void guard.navigationResponse(
      page,
      response.url(),
      response.status(),
      headers['retry-after'],
      latencyMs,
      headers,
      arrivedAt,
    );
  }) as (response: never) => void);
  // Both libraries report a request's network failure here; the guard judges whose it was.
  page.on('requestfailed', ((request: R) => {
    if (!isMainFrameNavigation(page, request)) return;
    void guard.navigationFailed(page, request.url(), request.failure?.()?.errorText ?? '');
  }) as (request: never) => void);
}
