/**
 * got extend-options that make every request polite: `politeGot` builds the Politeness (robots.txt
 * sent through the got options of the request that needs it) and hands got the hooks and the handler
 * of got-hooks.ts.
 */

import {
  createPoliteness,
  isPoliteness,
  isWaitTooLongError,
  type Politeness,
  type PolitenessOptions,
} from '@politely/core';
import { PoliteGotHooks } from './got-hooks.js';
import type { PoliteGotOptions } from './got-shapes.js';
import type { PolitelyGotContext } from './request-context.js';
import { createRobotsRoute } from './robots-route.js';
import { type GotPacingOptions, resolvePacingOptions } from './spacing.js';

export type { PolitelyGotContext } from './request-context.js';

const POLITENESS = Symbol.for('politely.got.politeness');

/**
 * Returns got extend-options: `got.extend(politeGot({ userAgent: 'MyBot/1.0' }))`.
 * robots.txt goes out through the got options of the request that needs it (agents, proxy,
 * `dnsLookup`, `https`, timeouts, headers), unless a `robots.fetch` is given.
 * Pass an existing Politeness instead of options to share its cache, pacing and stats with other
 * clients; it fetches robots.txt with its own `robots.fetch`.
 */
export function politeGot(
  options: PolitenessOptions | Politeness,
  pacing: GotPacingOptions = {},
): PoliteGotOptions {
  const robotsRoute = createRobotsRoute();
  // An explicit `robots.fetch` wins; a Politeness handed in is used as it is.
  const robots = (options as { robots?: unknown } | null)?.robots;
  const routed =
    typeof options === 'object' &&
    options !== null &&
    !isPoliteness(options) &&
    (robots === undefined ||
      (typeof robots === 'object' && robots !== null && (robots as { fetch?: unknown }).fetch === undefined));
  // Anything else (a Politeness, a fetch of the user's, invalid options) goes to createPoliteness as it is.
  const politeness = createPoliteness(
    routed ? { ...options, robots: { ...options.robots, fetch: robotsRoute.fetch } } : options,
  );
  const hooks = new PoliteGotHooks(politeness, robotsRoute, resolvePacingOptions(pacing).spacing);
  const extendOptions: PoliteGotOptions = {
    handlers: [hooks.handler.bind(hooks)],
    hooks: {
      beforeRequest: [hooks.beforeRequest.bind(hooks)],
      afterResponse: [hooks.afterResponse.bind(hooks)],
      beforeError: [hooks.beforeError.bind(hooks)],
      beforeRetry: [hooks.beforeRetry.bind(hooks)],
      beforeRedirect: [hooks.beforeRedirect.bind(hooks)],
    },
  };
  // Symbol-keyed and non-enumerable, so got's option validation never sees it.
  Object.defineProperty(extendOptions, POLITENESS, { value: politeness, enumerable: false });
  return extendOptions;
}

/** The Politeness behind options returned by `politeGot`: for `stats()`, `subscribe()`, `close()`. */
export function politenessOf(extendOptions: PoliteGotOptions): Politeness {
  const politeness = (extendOptions as { [POLITENESS]?: Politeness })[POLITENESS];
  if (politeness === undefined) {
    throw new TypeError('politenessOf() expects the options object returned by politeGot()');
  }
  return politeness;
}

/**
 * Milliseconds after which a request rejected for waiting too long can be retried, whether got wrapped
 * the WaitTooLongError or not (got 14.0.x keeps no `cause`); undefined for other errors.
 */
export function getRetryAfterMs(error: unknown): number | undefined {
  if (!isWaitTooLongError(error)) return undefined;
  const wrapped = error as { retryAfterMs?: unknown; cause?: { retryAfterMs?: unknown } };
  for (const candidate of [wrapped.retryAfterMs, wrapped.cause?.retryAfterMs]) {
    if (typeof candidate === 'number') return candidate;
  }
  const context = (error as { options?: { context?: { politely?: PolitelyGotContext } } }).options?.context;
  return context?.politely?.retryAfterMs;
}
