/**
 * The one lexer of the engine: robots.txt text -> physical lines -> `key: value` records, with Google's
 * lexical leniency (robots.cc: ParseRobotsTxt, GetKeyAndValueFrom, Key::Parse).
 *
 * - Lines end at LF, CR or CRLF; a UTF-8 BOM (also a partial one, in a binary text) is skipped at the
 *   very start only; the empty line after a final line break is a line too.
 * - A line keeps at most 16,663 bytes; a NUL ends what is read of it (Google reads lines as C strings);
 *   `#` starts a comment; the separator is `:` or, when the line holds exactly two whitespace-separated
 *   tokens, the whitespace between them.
 * - Keys are recognised by case-insensitive prefix, with the misspellings Google accepts (KEYS below).
 *
 * The parser (scanDirectives) and the tools (scanLines: lint, readRobotsTxtLines) read lines the same
 * way; the parser only skips lines whose first two letters start no key of the table.
 *
 * Searches that may run far (line ends, `#`, blanks, NUL) are native indexOf, and each answer is
 * remembered until the position passes it; the colon is read to char by char, within one line. Lines
 * are read left to right, so the total work stays linear in the text however its lines are shaped
 * (100,000 `#` lines or a single 500 KB line alike).
 *
 * A valid UTF-8 body is its decoded text; an invalid one is a "binary" string, one char per byte (see
 * bytes.ts), so that rule values are still escaped from their exact octets.
 */
import { utf8Head, utf8Length } from './bytes.js';

/**
 * The keys the lexer recognises, after Key::Parse: within one first letter, entries are tried in table
 * order, spelling before typos, each as a case-insensitive prefix of the key (`exact`: the whole key).
 * A new line type is one entry here (and its case where the parser or a tool acts on it).
 */
const KEYS = [
  { kind: 'user-agent', spelling: 'user-agent', typos: ['useragent', 'user agent'] },
  { kind: 'allow', spelling: 'allow', typos: [] },
  {
    kind: 'disallow',
    spelling: 'disallow',
    typos: ['dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'],
  },
  { kind: 'sitemap', spelling: 'sitemap', typos: ['site-map'] },
  // Not a Google key: exact, so that no longer key is read as it.
  { kind: 'crawl-delay', spelling: 'crawl-delay', typos: [], exact: true },
  // AI usage preferences (usage.ts, draft-ietf-aipref-attach; Content-Signal as found in the wild):
  // exact keys, no misspellings.
  { kind: 'content-usage', spelling: 'content-usage', typos: [], exact: true },
  { kind: 'content-signal', spelling: 'content-signal', typos: [], exact: true },
] as const satisfies readonly KeyEntry[];

interface KeyEntry {
  readonly kind: string;
  readonly spelling: string;
  readonly typos: readonly string[];
  readonly exact?: boolean;
}

/** Keys Google's reporting parser tags as known-but-unused (crawl-delay is ours, so it is not here). */
const UNUSED_KEYS = new Set([
  'clean-param',
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
 * What a line's key was recognised as. `unused`: a key Google knows and ignores (Host, Noindex, ...);
 * `none`: no key/value on the line (blank, comment only, or unparsable).
 */
export type LineKind = (typeof KEYS)[number]['kind'] | 'unused' | 'unknown' | 'none';

/** A key's kind, and whether it was an accepted misspelling. */
export interface KeyClass {
  readonly kind: LineKind;
  readonly typo: boolean;
}

interface CompiledKey {
  readonly word: Uint16Array;
  readonly exact: boolean;
  readonly key: KeyClass;
}

function codes(word: string): Uint16Array {
  return Uint16Array.from(word, (char) => char.charCodeAt(0));
}

/** The table by (lower-case ASCII) first letter, in table order. */
const BY_FIRST_LETTER: CompiledKey[][] = Array.from({ length: 128 }, () => []);
/** Set for every lower-cased pair of first two letters a key of the table starts with. */
const FIRST_TWO = new Uint8Array(128 * 128);
for (const entry of KEYS as readonly KeyEntry[]) {
  const kind = entry.kind as LineKind;
  const exact = entry.exact === true;
  for (const [word, typo] of [
    [entry.spelling, false] as const,
    ...entry.typos.map((t) => [t, true] as const),
  ]) {
    BY_FIRST_LETTER[word.charCodeAt(0)]?.push({
      word: codes(word),
      exact,
      key: Object.freeze({ kind, typo }),
    });
    FIRST_TWO[word.charCodeAt(0) * 128 + word.charCodeAt(1)] = 1;
  }
}
const UNUSED_KEY: KeyClass = Object.freeze({ kind: 'unused', typo: false });
const UNKNOWN_KEY: KeyClass = Object.freeze({ kind: 'unknown', typo: false });

/**
 * Case-insensitive ASCII prefix test of a word whose first letter already matched. `| 0x20` folds upper
 * to lower case; the only other char it could fold onto `-` is CR, which never occurs inside a line.
 */
function startsWithWord(text: string, start: number, word: Uint16Array): boolean {
  // The caller checked the length; the first letter picked the word (BY_FIRST_LETTER).
  for (let i = 1; i < word.length; i++) {
    if ((text.charCodeAt(start + i) | 0x20) !== word[i]) return false;
  }
  return true;
}

/** Key::Parse of Google's parser on text[start, end): recognition by case-insensitive prefix, typos included. */
export function classifyKey(text: string, start: number, end: number): KeyClass {
  const first = text.charCodeAt(start) | 0x20;
  if (first < 128) {
    // An indexed loop: for-of with destructuring cost a tenth of an ASCII parse (profile of the corpus).
    const entries = BY_FIRST_LETTER[first] as CompiledKey[];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as CompiledKey;
      const word = entry.word;
      const length = word.length;
      if (end - start < length || (entry.exact && end - start !== length)) continue;
      if (startsWithWord(text, start, word)) return entry.key;
    }
  }
  if (end - start > 16) return UNKNOWN_KEY;
  return UNUSED_KEYS.has(text.slice(start, end).toLowerCase()) ? UNUSED_KEY : UNKNOWN_KEY;
}

/**
 * The first word of the table (in table order) that text[start, limit) starts with, as Key::Parse would
 * try it, before the key's end is known: a word holds no colon, so the colon is then looked for after
 * it, and the key's chars are read once. The caller still checks that the word fits the key
 * (`fitsKey`): a key shorter than the word, or an `exact` word with more key after it, is not it.
 */
function wordAt(text: string, start: number, limit: number): CompiledKey | undefined {
  const first = text.charCodeAt(start) | 0x20;
  if (first >= 128) return undefined;
  const entries = BY_FIRST_LETTER[first] as CompiledKey[];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as CompiledKey;
    if (limit - start >= entry.word.length && startsWithWord(text, start, entry.word)) return entry;
  }
  return undefined;
}

/** Whether the key text[start, end) is `entry`'s word (exact) or starts with it. */
function fitsKey(entry: CompiledKey, start: number, end: number): boolean {
  const length = entry.word.length;
  return entry.exact ? end - start === length : end - start >= length;
}

/** Whether a key starting with these two chars can be one of the table (markup and script lines rarely are). */
function mayStartKey(first: number, second: number): boolean {
  const a = first | 0x20;
  const b = second | 0x20;
  return a < 128 && b < 128 && FIRST_TWO[a * 128 + b] === 1;
}

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

/** Number of leading chars that are (part of) a UTF-8 BOM. */
function bomLength(source: Source): number {
  const { text } = source;
  if (!source.binary) return text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // Bytes EF BB BF, skipped up to the first byte that breaks the sequence (Google).
  if (text.charCodeAt(0) !== 0xef) return 0;
  if (text.charCodeAt(1) !== 0xbb) return 1;
  return text.charCodeAt(2) === 0xbf ? 3 : 2;
}

/** Position of `char` at or after `from`, or the text's length when there is none. */
function search(text: string, char: string, from: number): number {
  const at = text.indexOf(char, from);
  return at === -1 ? text.length : at;
}

/** C isspace() minus the line terminators, which never occur inside a line. */
export function isSpace(char: number): boolean {
  return char === 0x20 || char === 0x09 || char === 0x0b || char === 0x0c;
}

function isBlank(char: number): boolean {
  return char === 0x20 || char === 0x09;
}

/**
 * `while (lines.next())` visits every physical line: text[start, end) is line number `line`, its
 * terminator excluded. The searches (hash, blank, nul) answer for positions at or after `from`;
 * callers never move back past anything but blanks, so a remembered answer at or after `from` is the
 * first one after `from`.
 */
class LineIterator {
  readonly text: string;
  readonly binary: boolean;
  readonly ascii: boolean;
  line = 0;
  start = 0;
  end = 0;
  /** Where the next line starts; past the text's length when the last line was visited. */
  #next: number;
  #lf = -1;
  #cr = -1;
  #hash = -1;
  #space = -1;
  #tab = -1;
  #nul = -1;
  /**
   * The text holds no NUL: known for an ASCII text, searched once (natively); any other text is
   * searched line by line on the lines that are read only (V8 searches two-byte strings for NUL one
   * char at a time, and most lines of such bodies are markup).
   */
  readonly nulFree: boolean;

  constructor(source: Source, start = bomLength(source)) {
    this.text = source.text;
    this.binary = source.binary;
    this.ascii = source.ascii;
    this.#next = start;
    this.nulFree = source.ascii && source.text.indexOf('\0') === -1;
  }

  next(): boolean {
    const text = this.text;
    const length = text.length;
    const start = this.#next;
    if (start > length) return false;
    if (this.#lf < start) this.#lf = search(text, '\n', start);
    if (this.#cr < start) this.#cr = search(text, '\r', start);
    const end = this.#lf < this.#cr ? this.#lf : this.#cr;
    this.line++;
    this.start = start;
    this.end = end;
    // After the last line, #next points past the end; a CRLF is one terminator.
    if (end < length && text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a)
      this.#next = end + 2;
    else this.#next = end + 1;
    return true;
  }

  hash(from: number): number {
    if (this.#hash < from) this.#hash = search(this.text, '#', from);
    return this.#hash;
  }

  /** First space or tab at or after `from`. */
  blank(from: number): number {
    if (this.#space < from) this.#space = search(this.text, ' ', from);
    if (this.#tab < from) this.#tab = search(this.text, '\t', from);
    return this.#space < this.#tab ? this.#space : this.#tab;
  }

  /** First NUL in text[from, end), or a position >= end when there is none. */
  nul(from: number, end: number): number {
    if (this.nulFree) return this.text.length;
    if (this.ascii) {
      if (this.#nul < from) this.#nul = search(this.text, '\0', from);
      return this.#nul;
    }
    const text = this.text;
    for (let at = from; at < end; at++) if (text.charCodeAt(at) === 0) return at;
    return text.length;
  }
}

/** One physical line. The lexer reuses a single instance: copy what you keep. */
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
  let last = hash < end ? hash : end;
  while (first < last && isSpace(text.charCodeAt(first))) first++;
  while (last > first && isSpace(text.charCodeAt(last - 1))) last--;
  if (first === last) {
    if (record.hasComment) record.isComment = true;
    else record.isEmpty = true;
    return;
  }

  // The colon is a few chars in, after the key: read to it (from the end of a word of the table the
  // line starts with) rather than call a native search.
  const word = wordAt(text, first, last);
  let separator = word === undefined ? first : first + word.word.length;
  while (separator < last && text.charCodeAt(separator) !== 0x3a) separator++;
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
  // The earliest word the line starts with, when it fits the key, is the one the table order gives.
  const key =
    word !== undefined && fitsKey(word, first, keyEnd) ? word.key : classifyKey(text, first, keyEnd);
  record.kind = key.kind;
  record.typo = key.typo;
}

/** Reads the current line of a LineIterator into a single reused record: copy what you keep. */
class LineReader {
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
    record.line = line;
    const kept = Math.min(lines.nul(start, end), end);
    // "Too long" is about the physical line, NUL or not (Google counts bytes until the terminator).
    const physical = end - start;
    const tooLong = ascii
      ? physical > MAX_LINE_BYTES
      : physical > MAX_LINE_BYTES / 3 && utf8Length(text, start, end) > MAX_LINE_BYTES;
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
      const head = utf8Head(text.slice(start, kept), MAX_LINE_BYTES);
      record.text = head;
      record.binary = true;
      record.ascii = true;
      record.start = 0;
      record.end = head.length;
      readKeyValue(record, new LineIterator({ text: head, binary: true, ascii: true }, 0), 0, head.length);
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

/**
 * The parser's reading: `onDirective` for every line with a key and a value, in order. A line whose
 * first two non-blank chars start no key of the table cannot be one the parser acts on, and is only
 * counted.
 */
export function scanDirectives(source: Source, onDirective: (record: LineRecord) => void): void {
  const text = source.text;
  const lines = new LineIterator(source);
  let reader: LineReader | undefined;
  while (lines.next()) {
    const end = lines.end;
    let first = lines.start;
    while (first < end && isSpace(text.charCodeAt(first))) first++;
    if (first + 1 < end && mayStartKey(text.charCodeAt(first), text.charCodeAt(first + 1))) {
      reader ??= new LineReader(source);
      const record = reader.read(lines);
      if (record.hasDirective) onDirective(record);
    }
  }
}
