/**
 * What lint's checks are written against: the codes, the file state and the line as the checks see
 * them. Its own file so that lint-checks.ts and usage-lint.ts both read it without needing each other.
 */
import type { Body } from './body.js';
import type { LineRecord } from './lexer.js';

/** Every diagnostic code; stable across versions (new codes may be added). */
export const LINT_CODES = [
  'unknown-directive',
  'ignored-directive',
  'accepted-typo',
  'missing-colon',
  'unparsable-line',
  'rule-outside-group',
  'invalid-pattern-start',
  'invalid-crawl-delay',
  'sitemap-not-absolute',
  'invalid-user-agent',
  'user-agent-shortened',
  'line-too-long',
  'file-truncated',
  'html-body',
  'invalid-encoding',
  'unknown-charset',
  'invalid-usage-preference',
  'usage-outside-group',
  'signal-outside-group',
] as const;

export type LintCode = (typeof LINT_CODES)[number];
export type LintSeverity = 'error' | 'warning' | 'info';

/** The file being linted, and what the lines read so far leave (Google's grouping, groups.ts). */
export interface FileState {
  readonly body: Body;
  /** The charset option as given. */
  readonly charset: string | undefined;
  /** A User-agent line came before: rules now belong to a group. */
  inGroup: boolean;
  /** The last directive read was a User-agent line: the next one joins its group. */
  inAgentRun: boolean;
  lastLine: number;
}

/** One line as the checks see it. */
export interface LintLine {
  readonly record: LineRecord;
  /** Key and value as shown in messages (empty when the line holds no directive). */
  readonly key: string;
  readonly value: string;
}

export interface Check<Input extends unknown[]> {
  readonly code: LintCode;
  readonly severity: LintSeverity;
  readonly check: (...input: Input) => string | undefined;
}

export type FileCheck = Check<[file: FileState]>;
export type LineCheck = Check<[line: LintLine, file: FileState]>;
