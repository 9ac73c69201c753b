/**
 * The parser's lexer: only the lines a parse acts on, read straight off the text.
 *
 * Same reading as scanLines (lines.ts), with no record per line: a line that cannot hold a key the
 * parser uses (see mayStartDirective) is only counted, and an ordinary `key: value` line is read inline.
 * Anything unusual on a line (a NUL, a line long enough to be cut, no colon) sends that line through
 * LineLexer, the full reading, so the rules live in one place.
 */
import { classifyKey, type LineKind } from './keys.js';
import {
  bomLength,
  firstNul,
  isSpace,
  LineLexer,
  type LineRecord,
  MAX_LINE_BYTES,
  type Source,
} from './lines.js';

/** Receives the recognised directives of a text, in order. */
export interface DirectiveSink {
  /** A directive of the lexed text itself: its value is text[valueStart, valueEnd). */
  directive(kind: LineKind, line: number, valueStart: number, valueEnd: number): void;
  /** A directive read by the full lexer (its value may live in a copy of the line: see LineRecord.text). */
  record(record: LineRecord): void;
}

/**
 * Whether a key starting with these two chars (lower-cased) can be one the parser acts on: user-agent,
 * allow, disallow, sitemap, crawl-delay and the misspellings Google accepts (keys.ts) start with us,
 * al, di, si or cr. Markup and script lines rarely do.
 */
function mayStartDirective(first: number, second: number): boolean {
  switch (first) {
    case 0x75 /* u */:
      return second === 0x73;
    case 0x61 /* a */:
      return second === 0x6c;
    case 0x64 /* d */:
    case 0x73 /* s */:
      return second === 0x69;
    case 0x63 /* c */:
      return second === 0x72;
    default:
      return false;
  }
}

export function scanDirectives(source: Source, sink: DirectiveSink): void {
  const { text, ascii } = source;
  const length = text.length;
  // Lines up to this many chars are never cut (a char is at most 3 UTF-8 bytes, 1 when ASCII).
  const uncut = ascii ? MAX_LINE_BYTES : Math.floor(MAX_LINE_BYTES / 3);
  // An ASCII text is searched for NUL once; any other text on the lines that are read (see LineLexer).
  const nulInText = ascii && text.indexOf('\0') !== -1;
  let lexer: LineLexer | undefined;
  // Next LF, CR, `#`, `:` at or after a position (length: none), searched again only once passed.
  let nextLf = -1;
  let nextCr = -1;
  let nextHash = -1;
  let nextColon = -1;
  let lineStart = bomLength(source);
  let line = 0;
  for (;;) {
    if (nextLf < lineStart) {
      nextLf = text.indexOf('\n', lineStart);
      if (nextLf === -1) nextLf = length;
    }
    if (nextCr < lineStart) {
      nextCr = text.indexOf('\r', lineStart);
      if (nextCr === -1) nextCr = length;
    }
    const lineEnd = nextLf < nextCr ? nextLf : nextCr;
    line++;
    let first = lineStart;
    while (first < lineEnd && isSpace(text.charCodeAt(first))) first++;
    // A key the parser acts on has at least five chars, so a line with fewer is only counted.
    if (
      first + 1 < lineEnd &&
      mayStartDirective(text.charCodeAt(first) | 0x20, text.charCodeAt(first + 1) | 0x20)
    ) {
      // GetKeyAndValueFrom (readKeyValue in lines.ts), inline for a line with no NUL and no cut whose
      // key ends at a colon; `read` stays false for any other line, which the full lexer then reads.
      let read = false;
      if (
        !nulInText &&
        lineEnd - lineStart <= uncut &&
        (ascii || firstNul(text, lineStart, lineEnd) >= lineEnd)
      ) {
        if (nextHash < first) {
          nextHash = text.indexOf('#', first);
          if (nextHash === -1) nextHash = length;
        }
        let last = nextHash < lineEnd ? nextHash : lineEnd;
        while (last > first && isSpace(text.charCodeAt(last - 1))) last--;
        if (nextColon < first) {
          nextColon = text.indexOf(':', first);
          if (nextColon === -1) nextColon = length;
        }
        // The first char is a letter, so a colon before `last` ends a key of at least one char.
        if (nextColon < last) {
          let keyEnd = nextColon;
          while (isSpace(text.charCodeAt(keyEnd - 1))) keyEnd--;
          let valueStart = nextColon + 1;
          while (valueStart < last && isSpace(text.charCodeAt(valueStart))) valueStart++;
          sink.directive(classifyKey(text, first, keyEnd).kind, line, valueStart, last);
          read = true;
        }
      }
      if (!read) {
        lexer ??= new LineLexer(source);
        const record = lexer.read(line, lineStart, lineEnd);
        if (record.hasDirective) sink.record(record);
      }
    }
    if (lineEnd >= length) return;
    lineStart = lineEnd + 1;
    if (text.charCodeAt(lineEnd) === 0x0d && text.charCodeAt(lineStart) === 0x0a) lineStart++;
  }
}
