/**
 * A crawl fed by a RequestList alone, as Crawlee runs it (3.15 and later): straight from the list
 * (its `RequestListAdapter`), so a failed request is reclaimed to the list, the list is marked as its
 * requests are handled, and `maxRequestsPerCrawl`, `requestList.isFinished()` and the sessions a task
 * takes count as without the plugin. Given to the crawler beside our manager, the list would be
 * drained into a queue first (Crawlee's tandem) and tell another story. Only once requests are added
 * (addRequests, enqueueLinks) does the default queue open and the list feed it, as Crawlee's
 * `getRequestQueue()` switches to its `RequestManagerTandem` then; a request already taken from the
 * list is still marked handled in the list. A failed request of the list is retried next, as the list
 * serves its reclaimed requests first: the manager keeps it (`retriesFirst`) rather than leave it
 * behind the requests it parked meanwhile.
 */

import type { Request, RequestQueueOperationOptions, Source } from '@crawlee/core';
import * as crawleeCore from '@crawlee/core';
import type { InnerQueue } from './polite-request-manager.js';

/**
 * Crawlee 3.15's readers of a list, `RequestListAdapter` and `RequestManagerTandem`; absent before
 * (the version matrix runs 3.13), so read by shape: their types are not in the older packages either.
 */
export const listReaders = crawleeCore as unknown as {
  readonly RequestListAdapter?: new (list: unknown) => unknown;
  readonly RequestManagerTandem?: new (list: unknown, queue: unknown) => unknown;
};

/**
 * The list-first inner manager, or undefined on a Crawlee without `RequestListAdapter` (before 3.15),
 * whose crawler drains a list into its queue anyway.
 */
export function listFirst(list: unknown, openQueue: () => Promise<InnerQueue>): InnerQueue | undefined {
  const { RequestListAdapter, RequestManagerTandem } = listReaders;
  if (!RequestListAdapter || !RequestManagerTandem) return undefined;
  const fromList = new RequestListAdapter(list) as InnerQueue;
  persistOnMigration(list);
  /** Requests taken from the list before the queue opened: handled and reclaimed there. */
  const listed = new WeakSet<Request>();
  let tandem: Promise<InnerQueue> | undefined;
  let current: InnerQueue = fromList;
  const withQueue = (): Promise<InnerQueue> => {
    tandem ??= openQueue().then((queue) => {
      current = new RequestManagerTandem(list, queue) as InnerQueue;
      return current;
    });
    return tandem;
  };
  const sourceOf = (request: Request): InnerQueue => (listed.has(request) ? fromList : current);
  return {
    isFinished: () => current.isFinished(),
    isEmpty: () => current.isEmpty(),
    handledCount: () => current.handledCount(),
    getTotalCount: () => current.getTotalCount(),
    getPendingCount: () => current.getPendingCount(),
    async fetchNextRequest() {
      const source = current;
      const request = await source.fetchNextRequest();
      if (request && source === fromList) listed.add(request);
      return request as never;
    },
    markRequestHandled: (request: Request) => sourceOf(request).markRequestHandled(request),
    reclaimRequest: (request: Request, options?: RequestQueueOperationOptions) =>
      sourceOf(request).reclaimRequest(request, options),
    // Still the list's (in progress there, as Crawlee's own reclaimed one is until served again).
    retriesFirst: (request: Request) => listed.has(request),
    // In progress in the list while parked here: given back unhandled when the crawl stops.
    takesBack: (request: Request) => listed.has(request),
    addRequest: async (source: Source, options?: RequestQueueOperationOptions) =>
      (await withQueue()).addRequest(source, options),
    addRequestsBatched: async (...args: Parameters<InnerQueue['addRequestsBatched']>) =>
      (await withQueue()).addRequestsBatched(...args),
    async addRequests(...args: Parameters<NonNullable<InnerQueue['addRequests']>>) {
      const queue = await withQueue();
      return queue.addRequests ? queue.addRequests(...args) : queue.addRequestsBatched(...args);
    },
    [Symbol.asyncIterator]: () => current[Symbol.asyncIterator](),
  } as InnerQueue;
}

/**
 * The list's state is persisted when the platform migrates or aborts the run, as the crawler does for
 * the list it holds (`_pauseOnMigration`); it holds none here. On the list's own event manager (its
 * Configuration's), for as long as the list is unfinished.
 */
function persistOnMigration(list: unknown): void {
  const owned = list as {
    events?: { on?(event: string, listener: () => unknown): unknown };
    isFinished?(): Promise<boolean>;
    persistState?(): Promise<void>;
  };
  if (typeof owned.events?.on !== 'function' || typeof owned.persistState !== 'function') return;
  const persist = async () => {
    if (await owned.isFinished?.()) return;
    await owned.persistState?.().catch(() => undefined);
  };
  // Crawlee's EventType.MIGRATING and ABORTING (a const enum: its values, as the events carry them).
  owned.events.on('migrating', persist);
  owned.events.on('aborting', persist);
}
