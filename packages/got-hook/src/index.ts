// The guards look through got's RequestError (code, cause, and error.options.context.politely).
export {
  ClosedError,
  type Decision,
  getDisallowedDecision,
  isClosedError,
  isRobotsDisallowedError,
  isUsageRefusedError,
  isWaitTooLongError,
  type Politeness,
  type PolitenessOptions,
  RobotsDisallowedError,
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
