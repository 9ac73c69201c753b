/**
 * One crawler process of the soak: @politely/fetch over Node's fetch, robots.txt cache and pacing on
 * the soak's Redis (a Keyv on @keyv/redis, so `scheduler: 'auto'` paces there too). It crawls the
 * items the coordinator hands it, several at once, and acknowledges each with the page's links. It
 * knows nothing of the faults: it must ride through them as any crawler would.
 */
import { createKeyv } from '@keyv/redis';
import { isRobotsDisallowedError, isWaitTooLongError, politeFetch, politenessOf } from '@politely/fetch';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.js';

const send = (message: FromWorker) => process.send?.(message);
const MEMORY_EVERY_MS = 5000;
/** A page that does not answer in this long is handed out again (the request counts as sent). */
const PAGE_TIMEOUT_MS = 30_000;

function links(html: string): string[] {
  return [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1] ?? '').filter(Boolean);
}

async function run(setup: WorkerSetup): Promise<void> {
  const store = createKeyv(setup.redisUrl, { namespace: setup.namespace });
  // Keyv reports a lost connection as an 'error' event; unheard, Node would end the process for it.
  store.on('error', () => {});
  const fetch = politeFetch({
    userAgent: 'politely-soak/1.0',
    store,
    pacing: { minDelayMs: setup.minDelayMs, maxWaitMs: setup.maxWaitMs },
    logger: false,
  });
  const politeness = politenessOf(fetch);
  politeness?.subscribe((event) => {
    if (event.type === 'scheduler-fallback' || event.type === 'scheduler-recovered')
      send({ t: 'event', type: event.type, at: Date.now() });
    // Which process fetched a robots.txt, so an origin fetched twice can be traced to its cause.
    else if (event.type === 'robots-fetch')
      send({ t: 'event', type: event.type, at: Date.now(), origin: event.origin });
  });

  const sampleMemory = () => {
    // A heap figure after a full collection is comparable between samples; without one it is noise.
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    send({ t: 'memory', rss, heapUsed });
  };
  const sampler = setInterval(sampleMemory, MEMORY_EVERY_MS);
  sampleMemory();

  let inFlight = 0;
  let stopping = false;
  let idle: (() => void) | undefined;

  const crawl = async (id: number, url: string) => {
    inFlight++;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(setup.maxWaitMs + PAGE_TIMEOUT_MS) });
      const body = await response.text();
      if (response.status === 200) send({ t: 'done', id, outcome: 'fetched', links: links(body) });
      else send({ t: 'done', id, outcome: 'retry', links: [], detail: `status ${response.status}` });
    } catch (error) {
      if (isRobotsDisallowedError(error)) send({ t: 'done', id, outcome: 'refused', links: [] });
      else
        send({
          t: 'done',
          id,
          outcome: 'retry',
          links: [],
          detail: isWaitTooLongError(error)
            ? 'wait over maxWaitMs'
            : String((error as Error)?.message ?? error),
        });
    } finally {
      inFlight--;
      if (stopping && inFlight === 0) idle?.();
    }
  };

  process.on('message', (message: ToWorker) => {
    if (message.t === 'item' && !stopping) void crawl(message.id, message.url);
    else if (message.t === 'stop' && !stopping) {
      stopping = true;
      const drained = inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve));
      void drained.then(async () => {
        sampleMemory();
        clearInterval(sampler);
        await politeness?.close();
        await store.disconnect().catch(() => {});
        send({ t: 'stopped' });
        process.disconnect?.();
      });
    }
  });
  send({ t: 'ready' });
}

process.once('message', (message: ToWorker) => {
  if (message.t === 'setup') void run(message.setup);
});
// The coordinator gone: never a crawler left running on its own.
process.on('disconnect', () => process.exit(0));
