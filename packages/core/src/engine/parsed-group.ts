/**
 * Groups as a parse leaves them: rule values are kept as offsets into the lexed text and escaped into
 * patterns on first use. Most files are asked about one agent, so most groups are never escaped, and a
 * parse allocates no string and no object per rule.
 */
import { escapeValue } from './escape.js';
import { patternLength, type RuleList } from './rules.js';
import type { UsageLine } from './usage.js';

export interface Group {
  /** Lower-cased product tokens named by the group's user-agent lines (`Googlebot/2.1` gives `googlebot`). */
  readonly agents: string[];
  /** A `User-agent: *` line is in the group. */
  global: boolean;
  /** In file order (rules.ts). */
  readonly rules: RuleList;
  /** The group's first valid Crawl-delay, in seconds. */
  crawlDelay: number | undefined;
  /** Its Content-Usage / Content-Signal lines (usage.ts), when it has any. */
  usage?: UsageLine[] | undefined;
}

/** Google-only: an Allow ending in `/index.htm` or `/index.html` also allows its directory (`<dir>/$`). */
function indexDirectoryPattern(pattern: string): string | undefined {
  // Most patterns name no index page: one native forward search rules them out.
  if (pattern.indexOf('/index.htm') === -1) return undefined;
  const slash = pattern.lastIndexOf('/');
  if (!pattern.startsWith('/index.htm', slash)) return undefined;
  return `${pattern.slice(0, slash + 1)}$`;
}

/** Rules a parse makes room for at its first rule; the room doubles as needed. */
const INITIAL_RULES = 64;
/** Where a parse's rules are until its first: a parse that finds none allocates nothing. */
const NO_OFFSETS = new Int32Array(0);

/**
 * Room for the offsets of the parse under way, kept between parses: seal() copies out the part used, so
 * a parse allocates one typed array of its exact size instead of growing a fresh one (off-heap
 * allocations, about 4% of an ASCII parse of the corpus). Parses are synchronous, so one RuleValues at a
 * time builds in it (`scratchTaken`); any other, or one after a parse that threw, grows its own.
 */
let scratch = new Int32Array(3 * INITIAL_RULES);
let scratchTaken = false;
/** Larger room is not kept after the parse that needed it (a 500 KB body of rules needs 1.5 MB). */
const SCRATCH_KEPT_SLOTS = 3 * 16_384;

/**
 * The rule values of one parse, in file order: `[line, valueStart, valueEnd]` per rule, the line
 * negated for a Disallow. A value the lexer read from a copy of its line (a long line cut inside a
 * character) is escaped at once and kept in `cut`; its start is then `-1 - index` into `cut`.
 */
export class RuleValues {
  readonly text: string;
  readonly binary: boolean;
  readonly ascii: boolean;
  readonly wildcards: boolean;
  /** RFC 9309 percent-encoding: unreserved `%XX` decoded in patterns (percent.ts). */
  readonly decodeUnreserved: boolean;
  #count = 0;
  /** Three slots per rule, `count` of them used. */
  #offsets = NO_OFFSETS;
  /** `#offsets` is the shared scratch (until seal). */
  #inScratch = false;
  #cut: string[] | undefined;

  constructor(
    source: { text: string; binary: boolean; ascii: boolean },
    wildcards: boolean,
    decodeUnreserved = false,
  ) {
    this.decodeUnreserved = decodeUnreserved;
    this.text = source.text;
    this.binary = source.binary;
    this.ascii = source.ascii;
    this.wildcards = wildcards;
  }

  /** Rules added so far. */
  get count(): number {
    return this.#count;
  }

  add(signedLine: number, valueStart: number, valueEnd: number): void {
    const at = this.#count * 3;
    let offsets = this.#offsets;
    if (at + 3 > offsets.length) {
      if (at === 0 && !scratchTaken) {
        scratchTaken = true;
        this.#inScratch = true;
        offsets = scratch;
      } else {
        offsets = new Int32Array(Math.max(3 * INITIAL_RULES, offsets.length * 2));
        offsets.set(this.#offsets);
        if (this.#inScratch) scratch = offsets;
      }
      this.#offsets = offsets;
    }
    offsets[at] = signedLine;
    offsets[at + 1] = valueStart;
    offsets[at + 2] = valueEnd;
    this.#count++;
  }

  addEscaped(signedLine: number, pattern: string): void {
    this.#cut ??= [];
    this.add(signedLine, -1 - this.#cut.length, 0);
    this.#cut.push(pattern);
  }

  /** Ends the parse: room left unused beyond a quarter is given back (a cached file keeps it until escaped). */
  seal(): void {
    const used = this.#count * 3;
    if (this.#inScratch) {
      this.#offsets = scratch.slice(0, used);
      this.#inScratch = false;
      scratchTaken = false;
      if (scratch.length > SCRATCH_KEPT_SLOTS) scratch = new Int32Array(3 * INITIAL_RULES);
    } else if (this.#offsets.length - used > used / 3) this.#offsets = this.#offsets.slice(0, used);
  }

  /** Chars of the text that rules [first, end) keep (before escaping, which only lengthens them). */
  length(first: number, end: number): number {
    const offsets = this.#offsets;
    let length = 0;
    for (let i = first * 3; i < end * 3; i += 3) {
      const start = offsets[i + 1] as number;
      length += start < 0 ? (this.#cut?.[-1 - start]?.length ?? 0) : (offsets[i + 2] as number) - start;
    }
    return length;
  }

  /**
   * The patterns of rules [first, end), escaped, with Google's index-page rules added. Both arrays are
   * of their exact size (arrays grown by push keep up to half again as many slots): a cached hostile
   * file keeps 20,000 rules, and every slot is 8 bytes of a pattern array or 4 of the lines.
   */
  escape(first: number, end: number): RuleList {
    const offsets = this.#offsets;
    const { text, binary, ascii, wildcards, decodeUnreserved } = this;
    const count = end - first;
    let lines = new Int32Array(count);
    const patterns: string[] = new Array(count);
    let added = 0;
    for (let rule = 0; rule < count; rule++) {
      const i = (first + rule) * 3;
      const line = offsets[i] as number;
      const start = offsets[i + 1] as number;
      const pattern =
        start < 0
          ? ((this.#cut as string[])[-1 - start] as string)
          : escapeValue(text.slice(start, offsets[i + 2]), binary, ascii, decodeUnreserved);
      const at = rule + added;
      if (at >= lines.length) lines = grown(lines);
      lines[at] = line;
      patterns[at] = pattern;
      if (line > 0 && wildcards) {
        const directory = indexDirectoryPattern(pattern);
        if (directory !== undefined) {
          added++;
          if (at + 1 >= lines.length) lines = grown(lines);
          lines[at + 1] = line;
          patterns[at + 1] = directory;
        }
      }
    }
    return { lines: added > 0 ? lines.slice(0, count + added) : lines, patterns };
  }
}

/** Room for index-page rules (a few in a file, rarely more). */
function grown(lines: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const more = new Int32Array(lines.length + 16);
  more.set(lines);
  return more;
}

/** A group from a parse: rules [first, end) of its RuleValues, escaped on first use. */
export class ParsedGroup implements Group {
  readonly agents: string[] = [];
  global = false;
  crawlDelay: number | undefined = undefined;
  usage: UsageLine[] | undefined = undefined;
  #values: RuleValues | undefined;
  readonly #first: number;
  #end: number;
  #rules: RuleList | undefined;

  constructor(values: RuleValues) {
    this.#values = values;
    this.#first = values.count;
    this.#end = values.count;
  }

  /** The group's rules end here (rules are added to the newest group only). */
  close(): void {
    this.#end = (this.#values as RuleValues).count;
  }

  /** Chars of the body its rules keep, before escaping. */
  get valueLength(): number {
    return this.#values === undefined
      ? patternLength(this.#rules as RuleList)
      : this.#values.length(this.#first, this.#end);
  }

  get rules(): RuleList {
    if (this.#rules === undefined) {
      this.#rules = (this.#values as RuleValues).escape(this.#first, this.#end);
      // The body is no longer needed by this group.
      this.#values = undefined;
    }
    return this.#rules;
  }
}
