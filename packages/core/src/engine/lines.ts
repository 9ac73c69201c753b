/**
 * The lexer: robots.txt text -> one record per physical line, with Google's lexical leniency.
 *
 * Follows the line handling of Google's robotstxt parser (robots.cc, ParseRobotsTxt and
 * GetKeyAndValueFrom): lines end at LF, CR or CRLF; a UTF-8 BOM (also a partial one) is skipped at the
 * very start only; a line keeps at most 16,663 bytes; a NUL byte ends what is read of a line (Google
 * reads lines as C strings); `#` starts a comment; the key/value separator is `:` or, when the line
 * holds exactly two whitespace-separated tokens, the whitespace between them.
 *
 * It works on a JS string so that native `indexOf` finds line breaks. A valid UTF-8 body is its decoded
 * text; an invalid one is a "binary" string, one char per byte (see body.ts), so that rule values are
 * still escaped from their exact octets.
 */

import { Cursor } from './cursor.js';
import { classifyKey, type LineKind } from './keys.js';
import { utf8Length } from './utf8.js';

export type { LineKind } from './keys.js';

/** Longest line kept, in bytes: Google's kMaxLineLen (2083 * 8) minus its terminating NUL. */
export const MAX_LINE_BYTES = 2083 * 8 - 1;

/** The text to lex. */
export interface Source {
  readonly text: string;
  /** One char per byte (the body was not valid UTF-8). */
  readonly binary: boolean;
  /** Every char is one byte (binary, or all ASCII): char counts are byte counts. */
  readonly ascii: boolean;
}

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

/** GetKeyAndValueFrom of Google's parser, on text[start, end). */
function readKeyValue(record: LineRecord, cursor: Cursor, start: number, end: number): void {
  const text = cursor.text;
  record.kind = 'none';
  record.typo = false;
  record.missingColon = false;
  record.isComment = false;
  record.isEmpty = false;
  record.hasDirective = false;

  const hash = cursor.hash(start);
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

  let separator = cursor.colon(first);
  if (separator >= last) {
    // Google-only: a forgotten colon is accepted when the line is exactly two tokens.
    const gap = cursor.blank(first);
    if (gap >= last) {
      record.kind = 'unknown';
      return;
    }
    let valueAt = gap;
    while (valueAt < last && isBlank(text.charCodeAt(valueAt))) valueAt++;
    if (cursor.blank(valueAt) < last) {
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

/** The first NUL in text[start, end), or `length` of the text when there is none. */
export function firstNul(text: string, start: number, end: number): number {
  for (let at = start; at < end; at++) if (text.charCodeAt(at) === 0) return at;
  return text.length;
}

/** Number of leading chars that are (part of) a UTF-8 BOM. */
export function bomLength(source: Source): number {
  const { text } = source;
  if (!source.binary) return text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // Bytes EF BB BF, skipped up to the first byte that breaks the sequence (Google).
  if (text.charCodeAt(0) !== 0xef) return 0;
  if (text.charCodeAt(1) !== 0xbb) return 1;
  return text.charCodeAt(2) === 0xbf ? 3 : 2;
}

const encoder = new TextEncoder();

/** The first MAX_LINE_BYTES bytes of a long text line, as a binary string (one char per byte). */
function headBytes(text: string): string {
  const bytes = encoder.encode(text).subarray(0, MAX_LINE_BYTES);
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  }
  return out;
}

/** Reads physical lines of one text into a single reused record: copy what you keep. */
export class LineLexer {
  readonly #source: Source;
  readonly #record: LineRecord;
  readonly #cursor: Cursor;
  /** ASCII text: whether it holds a NUL at all (searched once, natively). */
  readonly #hasNul: boolean;

  constructor(source: Source) {
    const { text, binary, ascii } = source;
    this.#source = source;
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
    this.#cursor = new Cursor(text);
    // NUL bytes are rare (binary junk). An ASCII text is searched for them once (natively, fast on
    // one-byte strings); any other text line by line, on the lines that are read only: V8 searches
    // two-byte strings for NUL one char at a time, and most lines of such bodies are markup.
    this.#hasNul = ascii && text.indexOf('\0') !== -1;
  }

  /** Line number `line`, text[lineStart, lineEnd) with its terminator excluded. Lines come in order. */
  read(line: number, lineStart: number, lineEnd: number): LineRecord {
    const { text, binary, ascii } = this.#source;
    const record = this.#record;
    const cursor = this.#cursor;
    record.text = text;
    record.binary = binary;
    record.ascii = ascii;
    const nul = ascii
      ? this.#hasNul
        ? cursor.nul(lineStart)
        : text.length
      : firstNul(text, lineStart, lineEnd);
    const kept = Math.min(nul, lineEnd);

    // "Too long" is about the physical line, NUL or not (Google counts bytes until the terminator).
    const physical = lineEnd - lineStart;
    const tooLong = ascii
      ? physical > MAX_LINE_BYTES
      : physical > MAX_LINE_BYTES / 3 && utf8Length(text, lineStart, lineEnd) > MAX_LINE_BYTES;
    record.line = line;
    record.tooLong = tooLong;
    if (!tooLong || (!ascii && utf8Length(text, lineStart, kept) <= MAX_LINE_BYTES)) {
      record.start = lineStart;
      record.end = kept;
      readKeyValue(record, cursor, lineStart, kept);
    } else if (ascii) {
      const cut = Math.min(kept, lineStart + MAX_LINE_BYTES);
      record.start = lineStart;
      record.end = cut;
      readKeyValue(record, cursor, lineStart, cut);
    } else {
      // Cut at a byte count, possibly inside a character: that line alone is read as bytes.
      const head = headBytes(text.slice(lineStart, kept));
      record.text = head;
      record.binary = true;
      record.ascii = true;
      record.start = 0;
      record.end = head.length;
      readKeyValue(record, new Cursor(head), 0, head.length);
    }
    return record;
  }
}

/**
 * Calls `onLine` for every physical line, including blank lines and the empty line after a final line
 * break (as Google's reporting parser does). The record passed is reused between calls.
 */
export function scanLines(source: Source, onLine: (record: LineRecord) => void): void {
  const { text } = source;
  const lexer = new LineLexer(source);
  const length = text.length;
  // Next LF / CR at or after the current position (length: none), searched again only once passed.
  let nextLf = -1;
  let nextCr = -1;
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
    const lineEnd = Math.min(nextLf, nextCr);
    onLine(lexer.read(++line, lineStart, lineEnd));
    if (lineEnd >= length) return;
    lineStart = lineEnd + 1;
    if (text.charCodeAt(lineEnd) === 0x0d && text.charCodeAt(lineStart) === 0x0a) lineStart++;
  }
}
