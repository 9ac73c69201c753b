// @politely/crawlee: the reviewed list of what this package exports (at most 12 names): the factory,
// its options type, what request handlers read (`pageDirectives`) and the plugin's counters
// (`crawlStats`), and what its callers catch and read, re-exported from core so that no second
// dependency is needed. The same names of core in every adapter, the same objects: `politenessOf`
// (core's one, for any adapter's object: a crawler or its options too), the error guards (they find
// the plugin's RobotsRedirectError as well: same code, same brand), and the Decision a refusal carries.
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
export { pageDirectives } from './page-directives.js';
export type { CrawleePolitenessOptions } from './types.js';
export { crawlStats, withPoliteness } from './with-politeness.js';
