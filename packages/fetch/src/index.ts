// @politely/fetch: the reviewed list of what this package exports.
// The errors are core's own classes and guards, with the same codes as @politely/got.
// What a page says to crawlers (X-Robots-Tag, robots meta tags): pass it the response and its text.
export {
  ClosedError,
  type Decision,
  getDisallowedDecision,
  getWaitTooLongError,
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
export type { AnyFetch, ResponseLike } from './fetch-shapes.js';
export {
  type PoliteFetchOptions,
  type PoliteFetchWrapOptions,
  politeFetch,
  politenessOf,
} from './polite-fetch.js';
export type { FetchInput, RequestLike } from './request.js';
