// @politely/fetch: the reviewed list of what this package exports (at most 12 names): the factory, its
// options types, and what its callers catch and read, re-exported from core so that no second
// dependency is needed. The same names of core in every adapter, the same objects: `politenessOf`
// (core's one, for any adapter's object: a polite fetch too), the error guards, and the Decision a
// refusal carries. The error classes, the engine and the rest are on `@politely/core` and its subpaths.
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
export { type PoliteFetchOptions, type PoliteFetchWrapOptions, politeFetch } from './polite-fetch.js';
