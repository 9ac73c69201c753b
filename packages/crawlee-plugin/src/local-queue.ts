/**
 * The default queue the plugin opens on local storage: Crawlee's RequestQueueV1 (no request locking;
 * why, see `withoutLocking` in with-politeness.ts) without the 3 s its `reclaimRequest` waits before a
 * reclaimed request may be served again (`STORAGE_CONSISTENCY_DELAY_MILLIS`). That wait is for the
 * platform's eventually consistent storage; local storage reads back its writes at once, and
 * Crawlee's default queue there (RequestQueue v2) serves a retry at once, so a crawl with the plugin
 * retries as fast as one without.
 */
import * as crawleeCore from '@crawlee/core';

type QueueClass = typeof crawleeCore.RequestQueueV1;

/** What RequestQueueV1's delayed callback does, done at once (its fields are private in the types). */
interface V1Internals {
  inProgress: Set<string>;
  _maybeAddRequestToQueueHead(requestId: string, forefront: boolean): void;
}

let localQueue: QueueClass | undefined;

/** RequestQueueV1 that puts a reclaimed request back at once; RequestQueueV1 itself where it cannot. */
export function localRequestQueue(): QueueClass | undefined {
  const { RequestQueueV1, RequestProvider } = crawleeCore;
  if (!RequestQueueV1 || typeof RequestProvider?.prototype.reclaimRequest !== 'function')
    return RequestQueueV1;
  // Named as RequestQueueV1's class is: Crawlee's StorageManager picks the storage client by it.
  localQueue ??= class RequestQueue extends RequestQueueV1 {
    override async reclaimRequest(
      ...[request, options]: Parameters<InstanceType<QueueClass>['reclaimRequest']>
    ): ReturnType<InstanceType<QueueClass>['reclaimRequest']> {
      // The storage write of RequestQueueV1's own reclaim (its parent's), without the timer after it.
      const info = await RequestProvider.prototype.reclaimRequest.call(this, request, options);
      const internals = this as unknown as V1Internals;
      if (request.id !== undefined) {
        internals.inProgress.delete(request.id);
        internals._maybeAddRequestToQueueHead(request.id, options?.forefront ?? false);
      }
      return info;
    }
  };
  return localQueue;
}
