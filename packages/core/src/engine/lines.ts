/**
 * The full reading of a line: robots.txt text -> one record per physical line, with Google's lexical
 * leniency.
 *
 * Follows the line handling of Google's robotstxt parser (robots.cc, ParseRobotsTxt and
 * GetKeyAndValueFrom): a line keeps at most 16,663 bytes; a NUL byte ends what is read of a line
 * (Google reads lines as C strings); `#` starts a comment; the key/value separator is `:` or, when the
 * line holds exactly two whitespace-separated tokens, the whitespace between them. Lines themselves
 * come from the one line loop, LineIterator (line-iterator.ts).
 *
 * A valid UTF-8 body is its decoded text; an invalid one is a "binary" string, one char per byte (see
 * bytes.ts), so that rule values are still escaped from their exact octets.
 */

import { utf8Head, utf8Length } from './bytes.js';
import { classifyKey, type LineKind } from './keys.js';
import { LineIterator, type Source } from './line-iterator.js';

export type { LineKind } from './keys.js';

/** Longest line kept, in bytes: Google's kMaxLineLen (2083 * 8) minus its terminating NUL. */
export const MAX_LINE_BYTES = 2083 * 8 - 1;

/** One physical line. The scanner reuses a single instance: copy what you keep. */
export interface LineRecord {
  /** 1-based line number. */
  line: number;
  kind: LineKind;
  /** The key is an accepted misspelling (`useragent`, `disalow`, `site-map`, ...). */
  typo: boolean;
  /** Key and value were separated by whitespace instead of `:`. */
  missingColon: boolean;
  /** The line was longer than MAX_LINE_BYTES; only its head was read. */
  tooLong: boolean;
  hasComment: boolean;
  /** Nothing but a comment. */
  isComment: boolean;
  /** Nothing but whitespace. */
  isEmpty: boolean;
  /** A key and a value were found (recognised or not). */
  hasDirective: boolean;
  /**
   * The text the offsets below point into (usually the whole body). What was read of this line is
   * text[start, end): at most MAX_LINE_BYTES bytes, up to a NUL, terminator excluded.
   */
  text: string;
  /** `text` holds one char per byte: the body was not UTF-8, or the line was cut inside a character. */
  binary: boolean;
  /** Every char of `text` is ASCII (or a byte, when binary). */
  ascii: boolean;
  start: number;
  end: number;
  /** Offsets into `text`; meaningful when hasDirective. */
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

const SPACE = 0x20;
const TAB = 0x09;

/** C isspace() minus the line terminators, which never occur inside a line. */
export function isSpace(char: number): boolean {
  return char === SPACE || char === TAB || char === 0x0b || char === 0x0c;
}

function isBlank(char: number): boolean {
  return char === SPACE || char === TAB;
}

/** GetKeyAndValueFrom of Google's parser, on text[start, end) of the iterator's text. */
function readKeyValue(record: LineRecord, lines: LineIterator, start: number, end: number): void {
  const text = lines.text;
  record.kind = 'none';
  record.typo = false;
  record.missingColon = false;
  record.isComment = false;
  record.isEmpty = false;
  record.hasDirective = false;

  const hash = lines.hash(start);
  record.hasComment = hash < end;
  let first = start;
  let last = Math.min(hash, end);
  while (first < last && isSpace(text.charCodeAt(first))) first++;
  while (last > first && isSpace(text.charCodeAt(last - 1))) last--;
  if (first === last) {
    if (record.hasComment) record.isComment = true;
    else record.isEmpty = true;
    return;
  }

  let separator = lines.colon(first);
  if (separator >= last) {
    // Google-only: a forgotten colon is accepted when the line is exactly two tokens.
    const gap = lines.blank(first);
    if (gap >= last) {
      record.kind = 'unknown';
      return;
    }
    let valueAt = gap;
    while (valueAt < last && isBlank(text.charCodeAt(valueAt))) valueAt++;
    if (lines.blank(valueAt) < last) {
      record.kind = 'unknown';
      return;
    }
    record.missingColon = true;
    separator = gap;
  }

  let keyEnd = separator;
  while (keyEnd > first && isSpace(text.charCodeAt(keyEnd - 1))) keyEnd--;
  if (keyEnd === first) {
    record.kind = 'unknown';
    record.missingColon = false;
    return;
  }
  let valueStart = separator + 1;
  while (valueStart < last && isSpace(text.charCodeAt(valueStart))) valueStart++;

  record.hasDirective = true;
  record.keyStart = first;
  record.keyEnd = keyEnd;
  record.valueStart = valueStart;
  record.valueEnd = last;
  const key = classifyKey(text, first, keyEnd);
  record.kind = key.kind;
  record.typo = key.typo;
}

/** The first MAX_LINE_BYTES bytes of a record's line, when cut: its own text, read as bytes. */
function cutLineSource(text: string, start: number, end: number): Source {
  return { text: utf8Head(text.slice(start, end), MAX_LINE_BYTES), binary: true, ascii: true };
}

/** Reads the current line of a LineIterator into a single reused record: copy what you keep. */
export class LineReader {
  readonly #record: LineRecord;

  constructor(source: Source) {
    const { text, binary, ascii } = source;
    this.#record = {
      line: 0,
      kind: 'none',
      typo: false,
      missingColon: false,
      tooLong: false,
      hasComment: false,
      isComment: false,
      isEmpty: false,
      hasDirective: false,
      text,
      binary,
      ascii,
      start: 0,
      end: 0,
      keyStart: 0,
      keyEnd: 0,
      valueStart: 0,
      valueEnd: 0,
    };
  }

  /** The iterator's current line (lines of one iterator come in order). */
  read(lines: LineIterator): LineRecord {
    const { text, binary, ascii, line, start, end } = lines;
    const record = this.#record;
    record.text = text;
    record.binary = binary;
    record.ascii = ascii;
    const kept = Math.min(lines.nul(start, end), end);

    // "Too long" is about the physical line, NUL or not (Google counts bytes until the terminator).
    const physical = end - start;
    const tooLong = ascii
      ? physical > MAX_LINE_BYTES
      : physical > MAX_LINE_BYTES / 3 && utf8Length(text, start, end) > MAX_LINE_BYTES;
    record.line = line;
    record.tooLong = tooLong;
    if (!tooLong || (!ascii && utf8Length(text, start, kept) <= MAX_LINE_BYTES)) {
      record.start = start;
      record.end = kept;
      readKeyValue(record, lines, start, kept);
    } else if (ascii) {
      const cut = Math.min(kept, start + MAX_LINE_BYTES);
      record.start = start;
      record.end = cut;
      readKeyValue(record, lines, start, cut);
    } else {
      // Cut at a byte count, possibly inside a character: that line alone is read as bytes.
      const head = cutLineSource(text, start, kept);
      record.text = head.text;
      record.binary = true;
      record.ascii = true;
      record.start = 0;
      record.end = head.text.length;
      readKeyValue(record, new LineIterator(head, 0), 0, head.text.length);
    }
    return record;
  }
}

/**
 * Calls `onLine` for every physical line, including blank lines and the empty line after a final line
 * break (as Google's reporting parser does). The record passed is reused between calls.
 */
export function scanLines(source: Source, onLine: (record: LineRecord) => void): void {
  const lines = new LineIterator(source);
  const reader = new LineReader(source);
  while (lines.next()) onLine(reader.read(lines));
}
