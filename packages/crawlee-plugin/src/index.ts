export type { InnerQueue, PoliteRequestManagerOptions } from './polite-request-manager.js';
export { PoliteRequestManager } from './polite-request-manager.js';
export { findRobotsRedirectError, RobotsRedirectError } from './redirect-error.js';
export type {
  CrawleePoliteness,
  CrawleePolitenessOptions,
  CrawleePolitenessStats,
  HostCounters,
  SkipEvent,
  SkipReason,
  SkipStage,
} from './types.js';
export { politenessOf, withPoliteness } from './with-politeness.js';
