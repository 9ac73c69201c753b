// @politely/got: the reviewed list of what this package exports (at most 12 names): the factory, its
// options types, and what its callers catch and read, re-exported from core so that no second
// dependency is needed. The same names of core in every adapter, the same objects: `politenessOf`
// (core's one, for any adapter's object: these options, a got instance extended with them), the
// guards that find a politely error inside got's RequestError (by code, through `cause`, and
// `error.options.context.politely`), and the Decision a refusal carries. The error classes, the
// engine and the rest are on `@politely/core` and its subpaths.
export {
  type Decision,
  getDisallowedDecision,
  getRetryAfterMs,
  isClosedError,
  isRobotsDisallowedError,
  isWaitTooLongError,
  type PolitenessOptions,
  politenessOf,
} from '@politely/core';
export type { PoliteGotOptions } from './got-shapes.js';
export { politeGot } from './polite-got.js';
export type { GotPacingOptions } from './spacing.js';
