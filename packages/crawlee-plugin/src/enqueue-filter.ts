/**
 * The cheap half of the robots.txt check, while requests are being enqueued: a URL whose rules are
 * already in memory and say no is dropped (and reported); a URL of an unknown origin is let through
 * and its robots.txt is fetched in the background, so the dequeue check usually finds it ready.
 * Never blocks on I/O, unlike Crawlee's serial check in addRequests.
 */
import type { RequestsLike, Source } from '@crawlee/core';
import { isHttpUrl, type Politeness } from '@politely/core';
import type { Reporter } from './reporter.js';

/** Origins remembered as "robots.txt prefetch started", to avoid one prefetch call per enqueued URL. */
const PREFETCH_MEMORY = 10_000;

export class EnqueueFilter {
  private readonly prefetched = new Set<string>();

  constructor(
    private readonly politeness: Politeness,
    private readonly reporter: Reporter,
    /** Runs a background task that the manager waits for before reporting itself finished. */
    private readonly track: (task: Promise<unknown>) => void,
  ) {}

  async *filter(requests: RequestsLike): AsyncGenerator<Source | string> {
    for await (const source of requests) {
      if (this.keep(source)) yield source;
    }
  }

  private keep(source: Source | string): boolean {
    const url = typeof source === 'string' ? source : source.url;
    if (typeof url !== 'string' || !isHttpUrl(url)) return true;
    const decision = this.politeness.checkCached(url);
    if (!decision) {
      this.prefetchOnce(url);
      return true;
    }
    if (decision.allowed) return true;
    this.track(this.reporter.skipped({ url, stage: 'enqueue', decision }));
    return false;
  }

  private prefetchOnce(url: string): void {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return;
    }
    if (this.prefetched.has(origin)) return;
    if (this.prefetched.size >= PREFETCH_MEMORY) this.prefetched.clear();
    this.prefetched.add(origin);
    this.politeness.prefetch(url);
  }
}
