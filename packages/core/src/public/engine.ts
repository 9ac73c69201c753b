/**
 * `@politely/core/engine`: the whole rules engine, for tools (linters, editors, analysers). Pure: no
 * I/O, no clock. Also what a fetched page says to crawlers (X-Robots-Tag, robots meta tags), read
 * into one parsed form; the root entry point carries `readPageDirectives` for crawlers.
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
export {
  MAX_TDMREP_RULES,
  matchTdmRep,
  parseTdmRep,
  type TdmRepParse,
  type TdmRepRule,
} from '../engine/tdmrep.js';
export type { AgentRules, Directive, MatchedRule, ParseOptions, Verdict } from '../engine/types.js';
export type { MetaTag } from '../page-directives/html-head.js';
export {
  type DirectivesAgent,
  type HeadersInput,
  type PageDirectivesSource,
  readPageDirectives,
  readTdmDeclarations,
  type TdmDeclarationText,
} from '../page-directives/read.js';
export type { PageDirectives, PageRule } from '../page-directives/rules.js';
