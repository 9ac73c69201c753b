// @politely/crawlee: the reviewed list of what this package exports.

export {
  createPoliteness,
  type Decision,
  getDisallowedDecision,
  isRobotsDisallowedError,
  isUsageRefusedError,
  type PageDirectives,
  type PolitelyEvent,
  type Politeness,
  type PolitenessOptions,
  RobotsDisallowedError,
  readPageDirectives,
  type SkipStage,
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
