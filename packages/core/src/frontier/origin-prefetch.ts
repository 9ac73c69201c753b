/**
 * `Frontier.screen` looks at every URL a crawler is about to queue, and a page links many URLs of one
 * origin: the robots.txt of an origin not yet in memory is prefetched in the background once, not once
 * per URL, so `admit` usually finds it in. The memory is bounded, as a crawl may meet any number of
 * origins: past the bound it forgets them all at once and at worst prefetches some again (the
 * politeness's own fetch is single-flight and cached, so a repeat costs a lookup, not a request).
 */

/** Origins remembered as prefetched at most. */
const PREFETCH_MEMORY = 10_000;

export class OriginPrefetch {
  private readonly prefetched = new Set<string>();

  constructor(private readonly prefetch: (url: string) => void) {}

  /** Prefetches the robots.txt of the URL's origin, unless it did for that origin already. */
  once(url: string): void {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return;
    }
    if (this.prefetched.has(origin)) return;
    if (this.prefetched.size >= PREFETCH_MEMORY) this.prefetched.clear();
    this.prefetched.add(origin);
    this.prefetch(url);
  }
}
