/**
 * lintRobotsTxt: diagnostics for robots.txt authors, read from the same line records the parser uses.
 * What is checked is the table of named checks in lint-checks.ts; this file runs it.
 */
import { scanLines } from './lexer.js';
import {
  END_CHECKS,
  FILE_CHECKS,
  type FileState,
  followGroups,
  LINE_CHECKS,
  LINT_CODES,
  type LintCode,
  type LintLine,
  type LintSeverity,
  shown,
} from './lint-checks.js';
import { readInput } from './options.js';
import type { ParseOptions } from './types.js';

export { LINT_CODES, type LintCode, type LintSeverity };

export interface LintDiagnostic {
  /** 1-based line number (1 for whole-file findings). */
  readonly line: number;
  readonly severity: LintSeverity;
  readonly code: LintCode;
  readonly message: string;
}

export type LintOptions = Pick<ParseOptions, 'maxBytes' | 'charset'>;

/**
 * Diagnostics for a robots.txt body, in line order (whole-file findings first). Never throws on
 * content; TypeError only for arguments of the wrong type.
 */
export function lintRobotsTxt(body: string | Uint8Array, options?: LintOptions): LintDiagnostic[] {
  const { resolved, source } = readInput(body, options, 'lintRobotsTxt');
  const file: FileState = {
    body: source,
    charset: resolved.charset,
    inGroup: false,
    inAgentRun: false,
    lastLine: 0,
  };
  const found: LintDiagnostic[] = [];
  for (const { code, severity, check } of FILE_CHECKS) {
    const message = check(file);
    if (message !== undefined) found.push({ line: 1, severity, code, message });
  }
  scanLines(file.body, (record) => {
    const line: LintLine = record.hasDirective
      ? {
          record,
          key: shown(record, record.keyStart, record.keyEnd),
          value: shown(record, record.valueStart, record.valueEnd),
        }
      : { record, key: '', value: '' };
    for (const { code, severity, check } of LINE_CHECKS) {
      const message = check(line, file);
      if (message !== undefined) found.push({ line: record.line, severity, code, message });
    }
    followGroups(file, record);
    file.lastLine = record.line;
  });
  for (const { code, severity, check } of END_CHECKS) {
    const message = check(file);
    if (message !== undefined) found.push({ line: file.lastLine, severity, code, message });
  }
  return found;
}
