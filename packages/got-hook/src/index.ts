// @politely/got: the reviewed list of what this package exports.
// What every adapter re-exports from core, the same list in each: the facade's entry and types, and
// core's own error classes and guards (the same codes whichever adapter threw).
// The guards look through got's RequestError (code, cause, and error.options.context.politely).
export {
  ClosedError,
  createPoliteness,
  type Decision,
  type DisallowedDecision,
  getDisallowedDecision,
  getWaitTooLongError,
  isClosedError,
  isRobotsDisallowedError,
  isWaitTooLongError,
  type PolitelyEvent,
  type Politeness,
  type PolitenessOptions,
  RobotsDisallowedError,
  type SkipStage,
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
