// @politely/crawlee: the reviewed list of what this package exports.

export {
  createPoliteness,
  type Decision,
  getDisallowedDecision,
  isRobotsDisallowedError,
  isUsageRefusedError,
  type PolitelyEvent,
  type Politeness,
  type PolitenessOptions,
  RobotsDisallowedError,
  type SkipStage,
} from '@politely/core';
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
