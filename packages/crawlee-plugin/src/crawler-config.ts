/**
 * Which Crawlee `Configuration` the crawler holding our request manager was given as its second
 * argument. Crawlee hands that argument to nobody else, so the default queue the manager opens would
 * otherwise use the global one: another storage than the crawler's (Crawlee 3.13 crashes on it, 3.18
 * silently runs a second queue on disk). The crawler's constructor gives it away once: right after it
 * sets `requestLockSecs` on its queue (ours), it builds its Statistics with that configuration, which
 * calls `config.getEventManager()` synchronously (BasicCrawler 3.13 to 3.18). For that synchronous
 * stretch only, `Configuration.prototype.getEventManager` notes the instance it is called on; it is
 * restored at its first call, or at the next microtask when nothing called it.
 */
import { Configuration } from '@crawlee/core';

/**
 * Arms the capture; `found` gets the configuration, or undefined when the crawler's constructor did
 * not reveal it (a Crawlee that builds itself otherwise).
 */
export function captureCrawlerConfig(found: (config: Configuration | undefined) => void): void {
  const prototype = Configuration.prototype as { getEventManager: (this: Configuration) => unknown };
  const original = prototype.getEventManager;
  let settled = false;
  const settle = (config: Configuration | undefined) => {
    if (settled) return;
    settled = true;
    if (prototype.getEventManager === noting) prototype.getEventManager = original;
    found(config);
  };
  const noting = function (this: Configuration) {
    settle(this);
    return original.call(this);
  };
  prototype.getEventManager = noting;
  queueMicrotask(() => settle(undefined));
}
