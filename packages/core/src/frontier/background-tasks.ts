/**
 * Work the frontier starts and does not await (robots.txt checks of parked items, `markSent` of an item
 * finished unsent) and the caller's own (`Frontier.track`): a crawler stops only when none is under
 * way (`idle`, `settled`), and a failure in one is logged, never thrown into a worker that did not
 * start it.
 */
import type { Logger } from '../facade/types.js';

export class BackgroundTasks {
  private readonly tasks = new Set<Promise<unknown>>();

  constructor(private readonly logger: Logger | undefined) {}

  /** Tasks under way. */
  get size(): number {
    return this.tasks.size;
  }

  track(task: Promise<unknown>): void {
    const tracked = task
      .catch((error: unknown) => this.logger?.warn('background task failed', { error: String(error) }))
      .finally(() => this.tasks.delete(tracked));
    this.tasks.add(tracked);
  }

  /** Waits until none is under way, counting those started while it waits. */
  async settled(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }
}
