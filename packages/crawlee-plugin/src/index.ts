// @politely/crawlee: the reviewed list of what this package exports.
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
export { pageDirectives } from './page-directives.js';
export {
  type InnerQueue,
  PoliteRequestManager,
  type PoliteRequestManagerOptions,
} from './polite-request-manager.js';
export { findRobotsRedirectError, RobotsRedirectError } from './redirect-error.js';
export type {
  CrawleePoliteness,
  CrawleePolitenessOptions,
  CrawleePolitenessStats,
  HostCounters,
  SkipReason,
} from './types.js';
export { politenessOf, withPoliteness } from './with-politeness.js';
