// The guards look through got's RequestError (code, cause, and error.options.context.politely).
// What a page says to crawlers (X-Robots-Tag, robots meta tags): pass it the response and its text.
export {
  ClosedError,
  type Decision,
  getDisallowedDecision,
  isClosedError,
  isRobotsDisallowedError,
  isUsageRefusedError,
  isWaitTooLongError,
  type PageDirectives,
  type Politeness,
  type PolitenessOptions,
  RobotsDisallowedError,
  readPageDirectives,
  WaitTooLongError,
} from '@politely/core';
export type {
  GotRequestOptionsLike,
  GotResponseLike,
  PoliteAfterResponseHook,
  PoliteBeforeRequestHook,
  PoliteGotOptions,
  PoliteHandler,
} from './got-shapes.js';
export { getRetryAfterMs, type PolitelyGotContext, politeGot, politenessOf } from './polite-got.js';
export type { GotPacingOptions, Spacing } from './spacing.js';
