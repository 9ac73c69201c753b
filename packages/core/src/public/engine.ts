/**
 * `@politely/core/engine`: the whole rules engine, for tools (linters, editors, analysers). Pure: no
 * I/O, no clock. The root entry point carries what crawlers need of it (parse, lint and their types).
 */
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
  parseContentUsageHeader,
  parseRobotsTxt,
  productTokenOf,
  RobotsTxt,
  type RobotsTxtDiff,
  type RobotsTxtLine,
  readRobotsTxtLines,
  type SerializedGroup,
  type SerializedRobotsTxt,
  type UsageLine,
  type UsageLineKind,
  type UsagePreferences,
  type UsagePurpose,
  type UsageRefusal,
} from '../engine/index.js';
export type { AgentRules, Directive, MatchedRule, ParseOptions, Verdict } from '../engine/types.js';
