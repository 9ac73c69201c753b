/**
 * Which Crawlee `Configuration` the crawler holding our request manager was given as its second
 * argument. Crawlee hands that argument to nobody else, so the default queue the manager opens would
 * otherwise use the global one: another storage than the crawler's (Crawlee 3.13 crashes on it, 3.18
 * silently runs a second queue on disk). The crawler's constructor gives it away once: right after it
 * sets `requestLockSecs` on its queue (ours), it builds its Statistics with that configuration, which
 * calls `config.getEventManager()` synchronously (BasicCrawler 3.13 to 3.18). For that synchronous
 * stretch only, `getEventManager` on the Configuration prototypes we know of notes the instance it is
 * called on; each is restored at the first call, or at the next microtask when nothing called it.
 *
 * A Configuration is recognised by its shape, not by `instanceof`: an app (or a test) can hold two
 * copies of @crawlee/core, say its own and a crawler package's, and a Configuration of the other copy
 * is no instance of this one's class though it is as much the crawl's.
 */
import { Configuration } from '@crawlee/core';

/** True for a Crawlee Configuration of any copy of @crawlee/core: it reads settings and gives the storage. */
export function isConfiguration(value: unknown): value is Configuration {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as { get?: unknown; getStorageClient?: unknown; getEventManager?: unknown };
  return (
    typeof candidate.get === 'function' &&
    typeof candidate.getStorageClient === 'function' &&
    typeof candidate.getEventManager === 'function'
  );
}

type EventManagerOwner = { getEventManager: (this: Configuration) => unknown };

/**
 * Arms the capture; `found` gets the configuration, or undefined when the crawler's constructor did
 * not reveal it (a Crawlee that builds itself otherwise, or a Configuration of a copy of
 * @crawlee/core none of `alsoOf` comes from). `alsoOf`: Configurations seen elsewhere (the queue's,
 * the plugin's `config`), whose classes are watched as well as this copy's.
 */
export function captureCrawlerConfig(
  found: (config: Configuration | undefined) => void,
  alsoOf: readonly unknown[] = [],
): void {
  const prototypes = new Set<EventManagerOwner>([Configuration.prototype as EventManagerOwner]);
  for (const config of alsoOf) {
    const prototype = isConfiguration(config) ? (Object.getPrototypeOf(config) as unknown) : undefined;
    if (prototype && typeof (prototype as Partial<EventManagerOwner>).getEventManager === 'function') {
      prototypes.add(prototype as EventManagerOwner);
    }
  }
  const armed = [...prototypes].map((prototype) => {
    // A subclass's prototype (Apify's Configuration) may only inherit the method: put back as found.
    const own = Object.hasOwn(prototype, 'getEventManager');
    const original = prototype.getEventManager;
    const noting = function (this: Configuration) {
      settle(this);
      return original.call(this);
    };
    prototype.getEventManager = noting;
    return { prototype, own, original, noting };
  });
  let settled = false;
  function settle(config: Configuration | undefined) {
    if (settled) return;
    settled = true;
    for (const { prototype, own, original, noting } of armed) {
      if (prototype.getEventManager !== noting) continue;
      if (own) prototype.getEventManager = original;
      else delete (prototype as Partial<EventManagerOwner>).getEventManager;
    }
    found(config);
  }
  queueMicrotask(() => settle(undefined));
}
