/**
 * Where the request manager sees a crawl end. Crawlee asks it nothing then: a crawl stopped at
 * `maxRequestsPerCrawl` or by `stop()` ends without asking the manager `isEmpty()` or `isFinished()`,
 * and the crawler's `teardown()` only aborts its pool. What the crawler does at its end is save its
 * state: `teardown()` closes the event manager it started (whose `close()` marks itself stopped, then
 * emits the last PERSIST_STATE and waits for its listeners), or emits PERSIST_STATE on one it was
 * given (BasicCrawler 3.13 to 3.18). So the manager listens to PERSIST_STATE while a crawl reads
 * through it, and is told whether the save is the event manager's last.
 */

/** A Crawlee EventManager, by shape (3.13 and 3.18 alike). */
export interface CrawlEvents {
  on(event: 'persistState', listener: () => unknown): unknown;
  off(event: 'persistState', listener: () => unknown): unknown;
  isInitialized?(): boolean;
}

export class CrawlEnd {
  private armedOn: CrawlEvents | undefined;

  /**
   * @param events the crawl's event manager, once known.
   * @param saved called at each PERSIST_STATE while armed; `last` when the event manager is closing
   *   (the crawl is over). The event manager's `close()` waits for what it returns.
   */
  constructor(
    private readonly events: () => CrawlEvents | undefined,
    private readonly saved: (last: boolean) => Promise<void> | undefined,
  ) {}

  /**
   * Listens, unless listening already or the event manager is stopped (a call of a crawl that ended,
   * whose event manager the next run starts again).
   */
  arm(): void {
    if (this.armedOn) return;
    const events = this.events();
    if (!events || events.isInitialized?.() === false) return;
    events.on('persistState', this.listener);
    this.armedOn = events;
  }

  /** Stops listening: Crawlee leaves no PERSIST_STATE listener of a crawl behind once it ran. */
  disarm(): void {
    this.armedOn?.off('persistState', this.listener);
    this.armedOn = undefined;
  }

  private readonly listener = (): Promise<void> | undefined => {
    const events = this.armedOn;
    if (!events) return undefined;
    // `close()` marks the event manager stopped before its last PERSIST_STATE.
    return this.saved(events.isInitialized?.() === false);
  };
}
