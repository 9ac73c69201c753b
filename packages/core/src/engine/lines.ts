/**
 * The lexer: UTF-8 bytes -> one record per physical line, with Google's lexical leniency.
 *
 * Follows the line handling of Google's robotstxt parser (robots.cc, ParseRobotsTxt and
 * GetKeyAndValueFrom): lines end at LF, CR or CRLF; a UTF-8 BOM (also a partial one) is skipped at the
 * very start only; a line keeps at most 16,663 bytes; `#` starts a comment; the key/value separator is
 * `:` or, when the line holds exactly two whitespace-separated tokens, the whitespace between them.
 * Works on bytes so that rule values can be percent-escaped from their exact octets.
 */

/** Longest line kept, in bytes: Google's kMaxLineLen (2083 * 8) minus its terminating NUL. */
export const MAX_LINE_BYTES = 2083 * 8 - 1;

/**
 * What a line's key was recognised as. `unused`: a key Google knows and ignores (Host, Noindex, ...);
 * `none`: no key/value on the line (blank, comment only, or unparsable).
 */
export type LineKind =
  | 'user-agent'
  | 'allow'
  | 'disallow'
  | 'sitemap'
  | 'crawl-delay'
  | 'unused'
  | 'unknown'
  | 'none';

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
  /** Byte range of the whole physical line (terminator excluded). */
  start: number;
  end: number;
  /** Byte offsets into the scanned array; meaningful when hasDirective. */
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

const LF = 0x0a;
const CR = 0x0d;
const HASH = 0x23;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;

/** C isspace() minus the line terminators, which never occur inside a line. */
function isSpace(byte: number): boolean {
  return byte === SPACE || byte === TAB || byte === 0x0b || byte === 0x0c;
}

function codes(word: string): Uint8Array {
  return Uint8Array.from(word, (char) => char.charCodeAt(0));
}

const USER_AGENT = codes('user-agent');
const USER_AGENT_TYPOS = [codes('useragent'), codes('user agent')];
const ALLOW = codes('allow');
const DISALLOW = codes('disallow');
const DISALLOW_TYPOS = ['dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'].map(codes);
const SITEMAP = codes('sitemap');
const SITEMAP_TYPOS = [codes('site-map')];
const CRAWL_DELAY = 'crawl-delay';
/** Keys Google's reporting parser tags as known-but-unused (crawl-delay is ours, so it is not here). */
const UNUSED_KEYS = new Set([
  'clean-param',
  'content-signal',
  'content-usage',
  'domain',
  'host',
  'noarchive',
  'nofollow',
  'noindex',
  'request-rate',
  'revisit-after',
  'visit-time',
]);

/**
 * Case-insensitive prefix test on bytes. `| 0x20` folds ASCII upper to lower case; the only other byte
 * it could fold onto `-` is CR, which never occurs inside a line.
 */
function startsWithWord(bytes: Uint8Array, start: number, end: number, word: Uint8Array): boolean {
  if (end - start < word.length) return false;
  for (let i = 0; i < word.length; i++) {
    if (((bytes[start + i] as number) | 0x20) !== word[i]) return false;
  }
  return true;
}

function startsWithAny(bytes: Uint8Array, start: number, end: number, words: readonly Uint8Array[]): boolean {
  for (const word of words) if (startsWithWord(bytes, start, end, word)) return true;
  return false;
}

function lowerAscii(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    text += String.fromCharCode(byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte);
  }
  return text;
}

/** Key::Parse of Google's parser: recognition by case-insensitive prefix, typos included. */
function classifyKey(record: LineRecord, bytes: Uint8Array, start: number, end: number): void {
  record.typo = false;
  if (startsWithWord(bytes, start, end, USER_AGENT)) record.kind = 'user-agent';
  else if (startsWithAny(bytes, start, end, USER_AGENT_TYPOS)) {
    record.kind = 'user-agent';
    record.typo = true;
  } else if (startsWithWord(bytes, start, end, ALLOW)) record.kind = 'allow';
  else if (startsWithWord(bytes, start, end, DISALLOW)) record.kind = 'disallow';
  else if (startsWithAny(bytes, start, end, DISALLOW_TYPOS)) {
    record.kind = 'disallow';
    record.typo = true;
  } else if (startsWithWord(bytes, start, end, SITEMAP)) record.kind = 'sitemap';
  else if (startsWithAny(bytes, start, end, SITEMAP_TYPOS)) {
    record.kind = 'sitemap';
    record.typo = true;
  } else if (end - start > 32) record.kind = 'unknown';
  else {
    const key = lowerAscii(bytes, start, end);
    record.kind = key === CRAWL_DELAY ? 'crawl-delay' : UNUSED_KEYS.has(key) ? 'unused' : 'unknown';
  }
}

/** GetKeyAndValueFrom of Google's parser, on the byte range [start, end) of one line. */
function readKeyValue(record: LineRecord, bytes: Uint8Array, start: number, end: number, hash: number): void {
  record.kind = 'none';
  record.typo = false;
  record.missingColon = false;
  record.hasComment = false;
  record.isComment = false;
  record.isEmpty = false;
  record.hasDirective = false;

  let contentEnd = end;
  if (hash !== -1 && hash < end) {
    record.hasComment = true;
    contentEnd = hash;
  }
  let first = start;
  let last = contentEnd;
  while (first < last && isSpace(bytes[first] as number)) first++;
  while (last > first && isSpace(bytes[last - 1] as number)) last--;
  if (first === last) {
    if (record.hasComment) record.isComment = true;
    else record.isEmpty = true;
    return;
  }

  let separator = -1;
  for (let i = first; i < last; i++) {
    if (bytes[i] === COLON) {
      separator = i;
      break;
    }
  }
  if (separator === -1) {
    // Google-only: a forgotten colon is accepted when the line is exactly two tokens.
    let gap = -1;
    for (let i = first; i < last; i++) {
      const byte = bytes[i];
      if (byte === SPACE || byte === TAB) {
        gap = i;
        break;
      }
    }
    if (gap === -1) {
      record.kind = 'unknown';
      return;
    }
    let valueAt = gap;
    while (valueAt < last && (bytes[valueAt] === SPACE || bytes[valueAt] === TAB)) valueAt++;
    for (let i = valueAt; i < last; i++) {
      const byte = bytes[i];
      if (byte === SPACE || byte === TAB) {
        record.kind = 'unknown';
        return;
      }
    }
    record.missingColon = true;
    separator = gap;
  }

  let keyEnd = separator;
  while (keyEnd > first && isSpace(bytes[keyEnd - 1] as number)) keyEnd--;
  if (keyEnd === first) {
    record.kind = 'unknown';
    record.missingColon = false;
    return;
  }
  let valueStart = separator + 1;
  while (valueStart < last && isSpace(bytes[valueStart] as number)) valueStart++;

  record.hasDirective = true;
  record.keyStart = first;
  record.keyEnd = keyEnd;
  record.valueStart = valueStart;
  record.valueEnd = last;
  classifyKey(record, bytes, first, keyEnd);
}

/** Number of leading bytes that are (part of) a UTF-8 BOM: EF BB BF, stopping at the first mismatch. */
export function bomLength(bytes: Uint8Array): number {
  if (bytes[0] !== 0xef) return 0;
  if (bytes[1] !== 0xbb) return 1;
  return bytes[2] === 0xbf ? 3 : 2;
}

/**
 * Calls `onLine` for every physical line of `bytes`, including blank lines and the empty line after a
 * final line break (as Google's reporting parser does). The record passed is reused between calls.
 */
export function scanLines(bytes: Uint8Array, onLine: (record: LineRecord) => void): void {
  const record: LineRecord = {
    line: 0,
    kind: 'none',
    typo: false,
    missingColon: false,
    tooLong: false,
    hasComment: false,
    isComment: false,
    isEmpty: false,
    hasDirective: false,
    start: 0,
    end: 0,
    keyStart: 0,
    keyEnd: 0,
    valueStart: 0,
    valueEnd: 0,
  };
  const length = bytes.length;
  let lineStart = bomLength(bytes);
  let line = 0;
  for (;;) {
    let lineEnd = lineStart;
    let hash = -1;
    let nul = -1;
    while (lineEnd < length) {
      const byte = bytes[lineEnd];
      if (byte === LF || byte === CR) break;
      if (byte === HASH) {
        if (hash === -1) hash = lineEnd;
      } else if (byte === 0 && nul === -1) nul = lineEnd;
      lineEnd++;
    }
    let kept = lineEnd;
    record.tooLong = lineEnd - lineStart > MAX_LINE_BYTES;
    if (record.tooLong) kept = lineStart + MAX_LINE_BYTES;
    // Google reads each line as a C string, so a NUL byte ends what the parser sees of it.
    if (nul !== -1 && nul < kept) kept = nul;
    record.line = ++line;
    record.start = lineStart;
    record.end = lineEnd;
    readKeyValue(record, bytes, lineStart, kept, hash);
    onLine(record);
    if (lineEnd >= length) return;
    lineStart = lineEnd + 1;
    if (bytes[lineEnd] === CR && bytes[lineStart] === LF) lineStart++;
  }
}
