/**
 * got extend-options that make every request polite: `politeGot` builds the Politeness (robots.txt
 * sent through the got options of the request that needs it) and hands got the hooks and the handler
 * of got-hooks.ts.
 */

import { createPoliteness, type Politeness, type PolitenessOptions } from '@politely/core';
import { attachPoliteness, isPoliteness } from '@politely/core/adapter';
import { PoliteGotHooks } from './got-hooks.js';
import type { PoliteGotOptions } from './got-shapes.js';
import { createRobotsRoute } from './robots-route.js';
import { type GotPacingOptions, resolvePacingOptions } from './spacing.js';

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
    routed
      ? { ...options, robots: { ...options.robots, fetch: robotsRoute.fetch, route: robotsRoute.route } }
      : options,
  );
  const hooks = new PoliteGotHooks(politeness, robotsRoute, resolvePacingOptions(pacing).spacing);
  const extendOptions: PoliteGotOptions = {
    handlers: [hooks.handler.bind(hooks)],
    hooks: {
      beforeRequest: [hooks.beforeRequest],
      afterResponse: [hooks.afterResponse.bind(hooks)],
      beforeError: [hooks.beforeError.bind(hooks)],
      beforeRetry: [hooks.beforeRetry.bind(hooks)],
      beforeRedirect: [hooks.beforeRedirect.bind(hooks)],
    },
  };
  // Found by core's `politenessOf` on these options, and on a got instance extended with them: got
  // keeps the handlers of the options it was extended with (`instance.defaults.handlers`).
  attachPoliteness(extendOptions, politeness);
  for (const handler of extendOptions.handlers) attachPoliteness(handler, politeness);
  return extendOptions;
}
