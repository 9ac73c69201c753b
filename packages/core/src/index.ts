// @politely/core: the reviewed list of what this package exports.

export { createMemoryStore, type MemoryStore } from './cache/memory-store.js';
export type { StoreRecordRejection } from './cache/stored-record.js';
export type { KeyvLike, RobotsEntry } from './cache/types.js';
export type { Outage, UnreachablePhase, UnreachablePolicy } from './cache/unreachable-timeline.js';
export {
  diffRobotsTxt,
  escapePattern,
  getPathParamsQuery,
  isValidProductToken,
  LINT_CODES,
  type LineKind,
  type LintCode,
  type LintDiagnostic,
  type LintOptions,
  type LintSeverity,
  lintRobotsTxt,
  MAX_CRAWL_DELAY_SECONDS,
  MAX_LINE_BYTES,
  parseRobotsTxt,
  productTokenOf,
  RobotsTxt,
  type RobotsTxtDiff,
  type RobotsTxtLine,
  readRobotsTxtLines,
  type SerializedGroup,
  type SerializedRobotsTxt,
} from './engine/index.js';
export type { AgentRules, Directive, MatchedRule, ParseOptions, Verdict } from './engine/types.js';
export { type FetchRobotsOptions, fetchRobotsTxt, nodeFetch } from './fetch/fetcher.js';
export { type RobotsPolicy, robotsPolicy } from './fetch/policy.js';
export { isRobotsTxtUrl, type RobotsLocation, robotsLocation } from './fetch/robots-url.js';
export type { FetchLike, FetchLikeResponse, FetchOutcome, RobotsFetchResult } from './fetch/types.js';
export type { HostKeyOption, LookupFunction } from './host-key.js';
export { systemClock } from './kernel/clock.js';
export {
  DeadlineExceededError,
  getDisallowedDecision,
  getWaitTooLongError,
  isDeadlineExceededError,
  isRobotsDisallowedError,
  isWaitTooLongError,
  PolitelyError,
  type PolitelyErrorCode,
  RobotsDisallowedError,
  WaitTooLongError,
} from './kernel/errors.js';
export { retryAfterMs } from './kernel/retry-after.js';
export {
  DEFAULT_OPTIONS,
  type PolitenessOptions,
  type RedisClientLike,
  type ResolvedOptions,
  resolveOptions,
} from './options.js';
export { createPoliteness, isPoliteness } from './politeness.js';
export type { InFlightLease, InFlightOptions } from './schedule/in-flight.js';
export {
  createMemoryScheduler,
  type MemoryScheduler,
  type MemorySchedulerOptions,
} from './schedule/memory-scheduler.js';
export { isRedisClient, redisClientFromStore } from './schedule/redis-client.js';
export {
  createRedisScheduler,
  DEFAULT_REDIS_PREFIX,
  type RedisScheduler,
  type RedisSchedulerOptions,
} from './schedule/redis-scheduler.js';
export type { Clock, Reservation, ReserveOptions, Scheduler, TryReservation } from './schedule/types.js';
export { isServerTroubleError } from './signals/host-signal.js';
export type {
  AdmitOptions,
  CheckOptions,
  Decision,
  DecisionReason,
  Logger,
  PolitelyEvent,
  Politeness,
  PolitenessStats,
  ResponseDetails,
  RulesSource,
} from './types.js';
