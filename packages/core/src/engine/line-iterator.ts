/**
 * The one line loop of the engine: physical lines of a text, with the native searches a reading of a
 * line needs. The parser (directives.ts) and the full line reader (lines.ts) both walk a text with it.
 *
 * Lines end at LF, CR or CRLF; a UTF-8 BOM (also a partial one, in a binary text) is skipped at the
 * very start only; the empty line after a final line break is a line too (Google's robots.cc,
 * ParseRobotsTxt).
 *
 * Every search is native indexOf, and each answer is remembered until the position passes it: lines
 * are read left to right, so the total work stays linear in the text however its lines are shaped
 * (a text of 100,000 `#` lines or one of a single 500 KB line alike).
 */

/** The text to lex. */
export interface Source {
  readonly text: string;
  /** One char per byte (the body was not valid UTF-8). */
  readonly binary: boolean;
  /** Every char is one byte (binary, or all ASCII): char counts are byte counts. */
  readonly ascii: boolean;
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

/** Position of `char` at or after `from`, or the text's length when there is none. */
function search(text: string, char: string, from: number): number {
  const at = text.indexOf(char, from);
  return at === -1 ? text.length : at;
}

/**
 * `while (lines.next())` visits every physical line: text[start, end) is line number `line`, its
 * terminator excluded. The searches (hash, colon, blank, nul) answer for positions at or after `from`.
 *
 * Callers ask for positions that never move back past anything but blanks: a reading starts at a
 * line's start or at its first non-blank char, and lines come in order. A remembered answer at or
 * after `from` is then the first one after `from`.
 */
export class LineIterator {
  readonly text: string;
  readonly binary: boolean;
  readonly ascii: boolean;
  /** The current line: its number (1-based) and text[start, end), terminator excluded. */
  line = 0;
  start = 0;
  end = 0;
  /** Where the next line starts; past the text's length when the last line was visited. */
  #next: number;
  #lf = -1;
  #cr = -1;
  #hash = -1;
  #colon = -1;
  #space = -1;
  #tab = -1;
  #nul = -1;
  /**
   * The text holds no NUL: known for an ASCII text, searched once (natively), so that a reading can
   * skip asking nul() line by line.
   */
  readonly nulFree: boolean;

  constructor(source: Source, start = bomLength(source)) {
    this.text = source.text;
    this.binary = source.binary;
    this.ascii = source.ascii;
    this.#next = start;
    // NUL bytes are rare (binary junk). An ASCII text is searched for them once (natively, fast on
    // one-byte strings); any other text line by line, on the lines that are read only: V8 searches
    // two-byte strings for NUL one char at a time, and most lines of such bodies are markup.
    this.nulFree = source.ascii && source.text.indexOf('\0') === -1;
  }

  /** Moves to the next line; false when the text has no more. */
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

  /** First `#` at or after `from`. */
  hash(from: number): number {
    if (this.#hash < from) this.#hash = search(this.text, '#', from);
    return this.#hash;
  }

  /** First `:` at or after `from`. */
  colon(from: number): number {
    if (this.#colon < from) this.#colon = search(this.text, ':', from);
    return this.#colon;
  }

  /** First space or tab at or after `from`. */
  blank(from: number): number {
    if (this.#space < from) this.#space = search(this.text, ' ', from);
    if (this.#tab < from) this.#tab = search(this.text, '\t', from);
    return this.#space < this.#tab ? this.#space : this.#tab;
  }

  /**
   * First NUL in text[from, end), or a position >= end when there is none. Google reads lines as C
   * strings, so a NUL ends what is read of a line.
   */
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
