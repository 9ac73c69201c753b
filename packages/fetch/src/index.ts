// @politely/fetch: the reviewed list of what this package exports.
// What every adapter re-exports from core, the same list in each: the facade's entry and types, and
// core's own error classes and guards (the same codes whichever adapter threw).
// What a page says to crawlers (X-Robots-Tag, robots meta tags): pass it the response and its text.
export {
  ClosedError,
  createPoliteness,
  type Decision,
  type DisallowedDecision,
  getDisallowedDecision,
  getWaitTooLongError,
  isClosedError,
  isRobotsDisallowedError,
  isUsageRefusedError,
  isWaitTooLongError,
  type PageDirectives,
  type PolitelyEvent,
  type Politeness,
  type PolitenessOptions,
  RobotsDisallowedError,
  readPageDirectives,
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
