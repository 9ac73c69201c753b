/**
 * The robots.txt fetches the frontier starts, bounded, so a crawl's first `next` does not open a
 * connection to every host of its queue at once.
 *
 * - Checks of parked items (`started`/`ended`): counted by origin, as the politeness's fetch is
 *   single-flight per origin. While `limit` origins are under way the frontier is `full`: `next` pulls
 *   nothing more until one ends (its end wakes the naps).
 * - Prefetches of `screen` (`prefetchOnce`): `Frontier.screen` looks at every URL a crawler is about to
 *   queue, and a page links many URLs of one origin, so an origin not yet in memory is prefetched once,
 *   not once per URL. One starts only while fewer than `limit` origins are being fetched, counting
 *   both kinds; past it the URL is not prefetched (its `admit` fetches it, within the bound). The
 *   politeness does not say when a prefetch ends: one is counted until its rules are in memory, or for
 *   PREFETCH_COUNTED_MS at most (a fetch that failed, or rules evicted at once). The origins
 *   prefetched are remembered up to PREFETCH_MEMORY; past it they are all forgotten at once and at
 *   worst prefetched again (the fetch is single-flight and cached: a repeat costs a lookup).
 */
import type { AdapterKit } from '../adapter/kit.js';

/** Origins remembered as prefetched at most. */
const PREFETCH_MEMORY = 10_000;
/** How long a prefetch whose rules are not in memory counts as under way (the frontier's clock, ms). */
const PREFETCH_COUNTED_MS = 30_000;

export class OriginChecks {
  /** Origin → parked items whose check is under way. */
  private readonly checking = new Map<string, number>();
  /** Origin → a URL of it and when its prefetch started. */
  private readonly prefetching = new Map<string, { readonly url: string; readonly since: number }>();
  private readonly prefetched = new Set<string>();

  constructor(
    private readonly limit: number,
    private readonly kit: Pick<AdapterKit, 'prefetch' | 'checkCached'>,
    private readonly now: () => number,
  ) {}

  /**
   * `limit` origins' checks are under way for parked items, counting `pulling` items about to be
   * admitted (each may start one): pull nothing more for now.
   */
  busy(pulling = 0): boolean {
    return this.checking.size + pulling >= this.limit;
  }

  /** A check for a parked item starts; the origin to pass to `ended`. */
  started(url: string): string {
    const origin = originOf(url) ?? url;
    this.checking.set(origin, (this.checking.get(origin) ?? 0) + 1);
    return origin;
  }

  ended(origin: string): void {
    const left = (this.checking.get(origin) ?? 1) - 1;
    if (left > 0) this.checking.set(origin, left);
    else this.checking.delete(origin);
  }

  /** Prefetches the robots.txt of the URL's origin, unless it did for that origin already or is at the bound. */
  prefetchOnce(url: string): void {
    const origin = originOf(url);
    if (origin === undefined || this.prefetched.has(origin)) return;
    if (this.checking.has(origin) || this.underWay() >= this.limit) return;
    if (this.prefetched.size >= PREFETCH_MEMORY) this.prefetched.clear();
    this.prefetched.add(origin);
    // With no bound there is nothing to count (and the map would only grow).
    if (Number.isFinite(this.limit)) this.prefetching.set(origin, { url, since: this.now() });
    this.kit.prefetch(url);
  }

  /** Origins being fetched: checks, and prefetches not yet in memory (looked at only near the bound). */
  private underWay(): number {
    if (this.checking.size + this.prefetching.size < this.limit)
      return this.checking.size + this.prefetching.size;
    const now = this.now();
    for (const [origin, { url, since }] of this.prefetching) {
      if (now - since >= PREFETCH_COUNTED_MS || this.inMemory(url)) this.prefetching.delete(origin);
    }
    return this.checking.size + this.prefetching.size;
  }

  private inMemory(url: string): boolean {
    try {
      return this.kit.checkCached(url) !== undefined;
    } catch {
      return true;
    }
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
