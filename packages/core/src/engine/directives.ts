/**
 * The parser's reading: only the lines a parse acts on, read straight off the text.
 *
 * Same lines as scanLines (lines.ts), from the same LineIterator, with no record per line: a line that
 * cannot hold a key the parser uses (see mayStartDirective) is only counted, and an ordinary
 * `key: value` line is read inline (the fast path). Anything unusual on a line (a NUL, a line long
 * enough to be cut, no colon) sends that line through LineReader, the full reading, so the rules live
 * in one place.
 */
import { classifyKey, type LineKind } from './keys.js';
import { LineIterator, type Source } from './line-iterator.js';
import { isSpace, LineReader, type LineRecord, MAX_LINE_BYTES } from './lines.js';

/** Receives the recognised directives of a text, in order. */
export interface DirectiveSink {
  /** A directive of the lexed text itself: its value is text[valueStart, valueEnd). */
  directive(kind: LineKind, line: number, valueStart: number, valueEnd: number): void;
  /** A directive read by the full lexer (its value may live in a copy of the line: see LineRecord.text). */
  record(record: LineRecord): void;
}

/**
 * Whether a key starting with these two chars (lower-cased) can be one the parser acts on: user-agent,
 * allow, disallow, sitemap, crawl-delay, content-usage, content-signal and the misspellings Google
 * accepts (keys.ts) start with us, al, di, si, cr or co. Markup and script lines rarely do.
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
      // crawl-delay; content-usage and content-signal (usage.ts)
      return second === 0x72 || second === 0x6f;
    default:
      return false;
  }
}

/**
 * GetKeyAndValueFrom (readKeyValue in lines.ts) for the common line: no NUL, too short to be cut, its
 * key ending at a colon. `first` is the line's first non-blank char, a letter. False, having read
 * nothing, for any other line.
 */
function readOrdinaryLine(lines: LineIterator, first: number, uncut: number, sink: DirectiveSink): boolean {
  const { text, start, end } = lines;
  if (end - start > uncut || (!lines.nulFree && lines.nul(start, end) < end)) return false;
  let last = lines.hash(first);
  if (last > end) last = end;
  while (last > first && isSpace(text.charCodeAt(last - 1))) last--;
  const colon = lines.colon(first);
  if (colon >= last) return false;
  // The first char is a letter, so a colon before `last` ends a key of at least one char.
  let keyEnd = colon;
  while (isSpace(text.charCodeAt(keyEnd - 1))) keyEnd--;
  let valueStart = colon + 1;
  while (valueStart < last && isSpace(text.charCodeAt(valueStart))) valueStart++;
  sink.directive(classifyKey(text, first, keyEnd).kind, lines.line, valueStart, last);
  return true;
}

export function scanDirectives(source: Source, sink: DirectiveSink): void {
  const { text, ascii } = source;
  // Lines up to this many chars are never cut (a char is at most 3 UTF-8 bytes, 1 when ASCII).
  const uncut = ascii ? MAX_LINE_BYTES : Math.floor(MAX_LINE_BYTES / 3);
  const lines = new LineIterator(source);
  let reader: LineReader | undefined;
  while (lines.next()) {
    const end = lines.end;
    let first = lines.start;
    while (first < end && isSpace(text.charCodeAt(first))) first++;
    // A key the parser acts on has at least five chars, so a line with fewer is only counted.
    if (
      first + 1 < end &&
      mayStartDirective(text.charCodeAt(first) | 0x20, text.charCodeAt(first + 1) | 0x20) &&
      !readOrdinaryLine(lines, first, uncut, sink)
    ) {
      reader ??= new LineReader(source);
      const record = reader.read(lines);
      if (record.hasDirective) sink.record(record);
    }
  }
}
