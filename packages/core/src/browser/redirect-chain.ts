/**
 * The URLs a navigation went through, read from its response after the fact, for pages whose
 * interception could not see redirect hops (Playwright's `page.route` on Firefox and WebKit is not
 * called for them). Playwright links each request to the one it was redirected from; Puppeteer lists
 * the chain on the last request. Neither library is imported: responses are read by shape.
 */

interface Hop {
  url(): string;
  /** Playwright. */
  redirectedFrom?(): Hop | null;
  /** Puppeteer: every request before this one, first first. */
  redirectChain?(): Hop[];
}

/** URLs from the navigation's first request to the response's own; empty for anything else. */
export function redirectChain(response: unknown): string[] {
  if (response === null || typeof response !== 'object') return [];
  const request = (response as { request?: () => unknown }).request?.();
  if (request === null || typeof request !== 'object') return [];
  const last = request as Hop;
  if (typeof last.redirectChain === 'function') {
    return [...last.redirectChain().map((hop) => hop.url()), last.url()];
  }
  const chain: string[] = [];
  for (let hop: Hop | null | undefined = last; hop; hop = hop.redirectedFrom?.()) chain.unshift(hop.url());
  return chain;
}
