// @politely/fetch: the reviewed list of what this package exports.
// What every adapter re-exports from core, the same list in each: the facade's entry and types, and
// core's own error classes and guards (the same codes whichever adapter threw).
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
export type { AnyFetch, ResponseLike } from './fetch-shapes.js';
export {
  type PoliteFetchOptions,
  type PoliteFetchWrapOptions,
  politeFetch,
  politenessOf,
} from './polite-fetch.js';
export type { FetchInput, RequestLike } from './request.js';
