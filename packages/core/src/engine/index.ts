/**
 * The rules engine of @politely/core: pure (no I/O, no clock, no node:*), RFC 9309 with Google's
 * documented leniency.
 */
export { isValidProductToken, productTokenOf } from './agent.js';
export { diffRobotsTxt, type RobotsTxtDiff } from './diff.js';
export { escapePattern } from './escape.js';
export { MAX_CRAWL_DELAY_SECONDS } from './groups.js';
export { type LineKind, MAX_LINE_BYTES } from './lexer.js';
export {
  LINT_CODES,
  type LintCode,
  type LintDiagnostic,
  type LintOptions,
  type LintSeverity,
  lintRobotsTxt,
} from './lint.js';
export { parseRobotsTxt } from './parse.js';
export { type RobotsTxtLine, readRobotsTxtLines } from './records.js';
export { RobotsTxt } from './robots-txt.js';
export type { SerializedGroup, SerializedRobotsTxt } from './serialize.js';
export type { AgentRules, Directive, MatchedRule, ParseOptions, Verdict } from './types.js';
export { getPathParamsQuery } from './url.js';
export {
  parseContentUsageHeader,
  type UsageLine,
  type UsageLineKind,
  type UsagePreferences,
  type UsagePurpose,
  type UsageRefusal,
} from './usage.js';
