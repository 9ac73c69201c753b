/**
 * readRobotsTxtLines: one plain record per physical line, for tools (linters, editors, reports) that
 * want what the parser saw, line by line, in the shape of Google's reporting parser.
 */
import { textOfOctets } from './bytes.js';
import { type LineKind, scanLines } from './lexer.js';
import { readInput } from './options.js';
import type { ParseOptions } from './types.js';

export interface RobotsTxtLine {
  readonly line: number;
  /** What the key was read as (`none`: blank, comment-only or unparsable line). */
  readonly kind: LineKind;
  /** The key as written, when the line has one. */
  readonly key?: string;
  /** The value as written (trimmed, comment removed), when the line has one. */
  readonly value?: string;
  readonly isEmpty: boolean;
  readonly isComment: boolean;
  readonly hasComment: boolean;
  readonly hasDirective: boolean;
  readonly isAcceptableTypo: boolean;
  readonly isLineTooLong: boolean;
  readonly isMissingColonSeparator: boolean;
}

function asText(value: string, binary: boolean): string {
  return binary ? textOfOctets(value) : value;
}

export function readRobotsTxtLines(
  body: string | Uint8Array,
  options?: Pick<ParseOptions, 'maxBytes' | 'charset'>,
): RobotsTxtLine[] {
  const { source } = readInput(body, options, 'readRobotsTxtLines');
  const lines: RobotsTxtLine[] = [];
  scanLines(source, (record) => {
    const base = {
      line: record.line,
      kind: record.kind,
      isEmpty: record.isEmpty,
      isComment: record.isComment,
      hasComment: record.hasComment,
      hasDirective: record.hasDirective,
      isAcceptableTypo: record.typo,
      isLineTooLong: record.tooLong,
      isMissingColonSeparator: record.missingColon,
    };
    lines.push(
      record.hasDirective
        ? {
            ...base,
            key: asText(record.text.slice(record.keyStart, record.keyEnd), record.binary),
            value: asText(record.text.slice(record.valueStart, record.valueEnd), record.binary),
          }
        : base,
    );
  });
  return lines;
}
