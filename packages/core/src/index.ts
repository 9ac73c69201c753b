// @politely/core: the reviewed list of what the root entry point exports, for a crawler author:
// createPoliteness, its options and the types its calls take and return, `politenessOf` (the
// Politeness behind any adapter's object), the errors and their guards, and what a page says to
// crawlers (readPageDirectives). At most 40 names. Everything else is on a subpath by audience:
// `@politely/core/engine` (the whole rules engine and the page-directive rules, for tools),
// `@politely/core/fetch` (the robots.txt fetch policy, the sitemap follower), `@politely/core/scheduler`
// (the schedulers on their own), `@politely/core/cache` (the store contract and the in-memory store),
// `@politely/core/browser` (Playwright and Puppeteer pages), `@politely/core/frontier` (a worker pool
// of your own) and `@politely/core/adapter` (the adapter kit, for adapter authors).

export type { KeyvLike } from './cache/types.js';
export type { UnreachablePolicy } from './cache/unreachable-timeline.js';
export type { UsagePurpose } from './engine/usage.js';
export type { HostKeyOption, LookupFunction } from './facade/host-key.js';
export type { PolitenessOptions, RedisClientLike } from './facade/options.js';
export { createPoliteness } from './facade/politeness.js';
export { politenessOf } from './facade/politeness-of.js';
export type {
  AdmitOptions,
  AllowedDecision,
  CheckOptions,
  Decision,
  DecisionReason,
  DisallowedDecision,
  Logger,
  PolitelyEvent,
  Politeness,
  PolitenessStats,
  ResponseDetails,
  SkipStage,
} from './facade/types.js';
export type { FetchLike } from './fetch/types.js';
export {
  ClosedError,
  DeadlineExceededError,
  getDisallowedDecision,
  getRetryAfterMs,
  getWaitTooLongError,
  isClosedError,
  isDeadlineExceededError,
  isRobotsDisallowedError,
  isUsageRefusedError,
  isWaitTooLongError,
  PolitelyError,
  type PolitelyErrorCode,
  RobotsDisallowedError,
  WaitTooLongError,
} from './kernel/errors.js';
export { readPageDirectives } from './page-directives/read.js';
export type { PageDirectives } from './page-directives/rules.js';
