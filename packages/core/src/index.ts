// @politely/core: the reviewed list of what the root entry point exports. A crawler needs the facade
// (createPoliteness and its types), the rules engine's entry points and the errors. What adapter
// authors need beyond that is `@politely/core/adapter` (the adapter kit of a Politeness, the send pass,
// hops, the redirect rule, option tables). Building blocks live on documented subpaths: `@politely/core/engine` (the whole engine, for tools),
// `@politely/core/fetch` (the robots.txt fetch policy), `@politely/core/scheduler` (the schedulers on
// their own), `@politely/core/cache` (the store contract and the in-memory store) and
// `@politely/core/browser` (robots.txt and pacing for Playwright and Puppeteer pages).

export type { KeyvLike } from './cache/types.js';
export type { Outage, UnreachablePhase, UnreachablePolicy } from './cache/unreachable-timeline.js';
export {
  diffRobotsTxt,
  LINT_CODES,
  type LintCode,
  type LintDiagnostic,
  type LintOptions,
  type LintSeverity,
  lintRobotsTxt,
  parseRobotsTxt,
  RobotsTxt,
  type RobotsTxtDiff,
} from './engine/index.js';
export type { AgentRules, Directive, MatchedRule, ParseOptions, Verdict } from './engine/types.js';
export type { UsagePreferences, UsagePurpose, UsageRefusal } from './engine/usage.js';
export type { HostKeyOption, LookupFunction } from './facade/host-key.js';
export type { PolitenessOptions, RedisClientLike } from './facade/options.js';
export { createPoliteness, isPoliteness } from './facade/politeness.js';
export {
  createSitemapFollower,
  type SitemapEntry,
  type SitemapFollower,
  type SitemapFollowerOptions,
  type SitemapPages,
} from './facade/sitemap-follower.js';
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
  ResponseHeaders,
  RulesSource,
  SkipStage,
} from './facade/types.js';
export type { FetchLike, FetchLikeResponse } from './fetch/types.js';
export type { Clock } from './kernel/clock.js';
export {
  ClosedError,
  DeadlineExceededError,
  getDisallowedDecision,
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
export type { MetaTag } from './page-directives/html-head.js';
export {
  type DirectivesAgent,
  type HeadersInput,
  type PageDirectivesSource,
  readPageDirectives,
} from './page-directives/read.js';
export type { PageDirectives, PageRule } from './page-directives/rules.js';
