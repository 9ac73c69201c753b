/**
 * The compiled matcher of one agent: which rule decides a path.
 *
 * Longest match (RFC 9309 2.2.2): the matching rule with the longest (escaped) pattern wins, allow wins
 * ties, and among equals the first in the file is reported. Rules are stored once in that order
 * (`first` precedence: file order), so the first rule that matches decides.
 *
 * Matching never builds a RegExp. A pattern is its literal prefix (the text before the first `*`) and
 * literal segments between `*` runs; a path matches when it starts with the prefix and each segment is
 * found, leftmost, after the previous one (the last one at the very end when the pattern ends in `$`).
 * Greedy leftmost placement is exact for `*`-only globs and gives the same answers as the position-set
 * algorithm of Google's robotstxt (RobotsMatchStrategy::Matches) in O(pattern x path) at worst.
 *
 * Rules live in flat typed arrays, shared by the two matchers: a hostile 500 KB robots.txt holds some
 * 20,000 rules, and an object per rule plus a trie node per prefix cost ~580 bytes a rule (25 times the
 * file); here a rule costs 13 bytes, 42 with the index (measured on that file), beside its group's
 * pattern and line, which are read in place, not copied.
 * - ScanMatcher: every rule in order; small sets and `first` precedence.
 * - IndexedMatcher: larger sets. The distinct literal prefixes sorted as strings, each with its parent,
 *   the longest other prefix that is a prefix of it. The prefixes of a path that are in the set are the
 *   ancestors of the last prefix that sorts at or before the path (whatever sorts between a prefix of
 *   the path and the path starts with that prefix), so a check is one binary search, which skips the
 *   chars its bounds share with the path, and a walk up the parents: only rules whose prefix the path
 *   starts with are examined, and the cost follows the path's length, not the number of rules.
 */
import type { RuleList } from './rules.js';
import type { MatchedRule, Verdict } from './types.js';

export interface MatchOptions {
  readonly wildcards: boolean;
  readonly precedence: 'longest' | 'first';
}

export interface PathMatcher {
  /** The verdict for the path text[start, end) (already located in the URL). */
  decide(text: string, start: number, end: number): Verdict;
  /**
   * Every rule of the highest rank that matches the path text[start, end), as indices into the
   * compiled lists' patterns (joined in order), in decision order; empty when none matches. For sets
   * compiled with `longest` precedence, where the rank is the pattern's length (then allow before
   * disallow): the tie set the aipref rules combine (usage.ts), found through the same index.
   */
  longestMatches(text: string, start: number, end: number): number[];
  readonly ruleCount: number;
  /** What the compiled form holds beyond the pattern strings, in bytes (see RobotsTxt#estimateBytes). */
  readonly estimatedBytes: number;
}

export const ALLOWED_BY_DEFAULT: Verdict = Object.freeze({ allowed: true });

/** How a rule matches once its prefix is known to match (the low two bits of its flags). */
const PREFIX = 0;
const EXACT = 1;
const GLOB = 2;
/** Flag: a GLOB whose last segment must end the path (a final `$`). */
const ANCHORED = 4;

/**
 * Bytes a rule costs in this structure (typed arrays, the pattern slot, the index with the chars of its
 * distinct prefixes), for memory budgets. Measured on hostile 500 KB files (test/memory, bench memory):
 * 13 bytes, 42 once indexed, +12 when several groups' arrays are joined. Kept above that: the memory
 * tier is full of such files when they are what a crawl meets, and the heap they then take is the
 * budget times measured/estimate.
 */
const BYTES_PER_RULE = 88;
/** A matcher's fixed part: its object and the headers of its arrays. */
const MATCHER_BYTES = 400;
/** The first level of a built index (IndexedMatcher#bySecond): 129 slots of 2 or 4 bytes and a header. */
const FIRST_LEVEL_BYTES = 129 * 4 + 80;
/** A cached verdict with its rule object. */
const VERDICT_BYTES = 160;
/** Verdicts kept per matcher; beyond this the cache starts over (each is rebuilt on demand). */
const VERDICT_CACHE_SIZE = 256;

/** From this many rules a set is indexed (below, a scan in decision order is as fast: measured on the corpus). */
export const INDEX_FROM_RULES = 16;
/**
 * Checks an indexed set answers by scanning before its index is built: building costs as much as a few
 * dozen scans, and many parsed files are asked a question or two only.
 */
const SCANS_BEFORE_INDEX = 16;

const EMPTY = new Int32Array(0);

/**
 * A 32-bit summary of which chars a text holds, for ruling a wildcard rule out before searching the
 * path for its segments: a rule whose segments hold a char the path lacks cannot match. Letters fold
 * case (a false "maybe" costs only the search the filter would have saved); digits share a bit, as do
 * the common punctuation marks; every non-ASCII char sets the top bit; other chars set none.
 */
const CHAR_BITS = new Int32Array(128);
for (let code = 0x61; code <= 0x7a; code++) {
  CHAR_BITS[code] = 1 << (code - 0x61);
  CHAR_BITS[code - 0x20] = 1 << (code - 0x61);
}
for (let code = 0x30; code <= 0x39; code++) CHAR_BITS[code] = 1 << 26;
CHAR_BITS[0x2e /* . */] = 1 << 27;
CHAR_BITS[0x3f /* ? */] = 1 << 28;
CHAR_BITS[0x3d /* = */] = 1 << 29;
for (const char of '-_&%,;') CHAR_BITS[char.charCodeAt(0)] = 1 << 30;
const NON_ASCII_BIT = 1 << 31;

function charMask(text: string, from: number, to: number): number {
  let mask = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    mask |= code < 128 ? (CHAR_BITS[code] as number) : NON_ASCII_BIT;
  }
  return mask;
}

/** The rules of one agent in flat arrays, in decision order; decides by scanning them all. */
class ScanMatcher implements PathMatcher {
  /**
   * The patterns and signed lines (negative: Disallow) of the rule lists, in file order: the list's own
   * arrays when the agent has one group, so a compiled agent holds no second array of its patterns.
   */
  protected readonly patterns: readonly string[];
  protected readonly lines: ArrayLike<number>;
  /** Rule r, in decision order, is patterns[order[r]]: 4 bytes a rule where a sorted copy took 8 and its lines 4. */
  protected readonly order: Int32Array;
  /** Length of the literal prefix; for EXACT the pattern without its `$`. */
  protected readonly prefixLength: Int32Array;
  protected readonly flags: Uint8Array;
  /**
   * A quick test before the rule's own. Of a GLOB: charMask of its chars after the prefix (`*` and the
   * final `$` aside), which the path's must cover. Of any other rule: its second char + 1 when its
   * prefix has one (the first is nearly always `/`), which the path's second char must be; else 0.
   * One slot for both, so the filter costs no memory beyond four bytes a rule.
   */
  protected readonly masks: Int32Array;
  #verdicts: Verdict[] = [];
  #cached = 0;

  constructor(patterns: readonly string[], lines: ArrayLike<number>, order: Int32Array, wildcards: boolean) {
    const count = order.length;
    this.patterns = patterns;
    this.lines = lines;
    this.order = order;
    this.prefixLength = new Int32Array(count);
    this.flags = new Uint8Array(count);
    this.masks = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      const pattern = patterns[order[i] as number] as string;
      // `$` is special only as the last character (Google); elsewhere it is a literal `$`.
      const anchored = wildcards && pattern.charCodeAt(pattern.length - 1) === 0x24;
      const end = anchored ? pattern.length - 1 : pattern.length;
      const star = wildcards ? pattern.indexOf('*') : -1;
      if (star === -1 || star >= end) {
        this.flags[i] = anchored ? EXACT : PREFIX;
        this.prefixLength[i] = end;
        if (end >= 2) this.masks[i] = pattern.charCodeAt(1) + 1;
      } else {
        this.flags[i] = GLOB | (anchored ? ANCHORED : 0);
        this.prefixLength[i] = star;
        // `*` sets no bit.
        this.masks[i] = charMask(pattern, star + 1, end);
      }
    }
  }

  get ruleCount(): number {
    return this.order.length;
  }

  get estimatedBytes(): number {
    return compiledBytesOf(this.order.length) + this.#cached * VERDICT_BYTES;
  }

  decide(text: string, start: number, end: number): Verdict {
    return this.scan(text, start, end);
  }

  longestMatches(text: string, start: number, end: number): number[] {
    const found: number[] = [];
    const pathMask = charMask(text, start, end);
    let top = -1;
    for (let rule = 0; rule < this.order.length; rule++) {
      // Decision order is by rank: past the first match's rank nothing can tie it.
      if (top !== -1 && this.rank(rule) < top) break;
      if (!this.ruleMatches(rule, text, start, end, pathMask)) continue;
      if (top === -1) top = this.rank(rule);
      found.push(this.order[rule] as number);
    }
    return found;
  }

  /** Rule r's place in decision order: its pattern's length, then allow (1) before disallow (0). */
  protected rank(rule: number): number {
    const index = this.order[rule] as number;
    return (this.patterns[index] as string).length * 2 + ((this.lines[index] ?? 0) > 0 ? 1 : 0);
  }

  /** Does text[start, end) match rule r? `pathMask` is the path's charMask. */
  protected ruleMatches(rule: number, text: string, start: number, end: number, pathMask: number): boolean {
    const prefix = this.prefixLength[rule] as number;
    if (prefix > end - start) return false;
    const kind = (this.flags[rule] as number) & 3;
    const pattern = this.patterns[this.order[rule] as number] as string;
    if (kind === PREFIX) return text.startsWith(pattern, start);
    if (kind === EXACT) return end - start === prefix && regionEquals(text, start, pattern, 0, prefix);
    return (
      ((this.masks[rule] as number) & ~pathMask) === 0 &&
      regionEquals(text, start, pattern, 0, prefix) &&
      this.matchesGlob(rule, text, start, end)
    );
  }

  /** The first rule in order that text[start, end) matches. */
  protected scan(text: string, start: number, end: number): Verdict {
    const { patterns, order, prefixLength, flags, masks } = this;
    const length = end - start;
    // The path's charMask, computed when a wildcard rule first needs it.
    let pathMask = 0;
    let masked = false;
    // Compared with a PREFIX or EXACT rule's second char + 1 before reading the rule's pattern.
    const second = length >= 2 ? text.charCodeAt(start + 1) + 1 : -1;
    for (let rule = 0; rule < order.length; rule++) {
      const prefix = prefixLength[rule] as number;
      if (prefix > length) continue;
      const kind = (flags[rule] as number) & 3;
      if (kind !== GLOB) {
        const filter = masks[rule] as number;
        if (filter !== 0 && filter !== second) continue;
      }
      const pattern = patterns[order[rule] as number] as string;
      // A PREFIX rule is its whole pattern: native startsWith, which reads a sliced string (a pattern
      // cut from the body) as fast as any.
      if (kind === PREFIX) {
        if (text.startsWith(pattern, start)) return this.verdict(rule);
      } else if (kind === EXACT) {
        if (length === prefix && regionEquals(text, start, pattern, 0, prefix)) return this.verdict(rule);
      } else {
        if (!masked) {
          pathMask = charMask(text, start, end);
          masked = true;
        }
        if (
          ((masks[rule] as number) & ~pathMask) === 0 &&
          regionEquals(text, start, pattern, 0, prefix) &&
          this.matchesGlob(rule, text, start, end)
        )
          return this.verdict(rule);
      }
    }
    return ALLOWED_BY_DEFAULT;
  }

  /** Does text[start, end), known to start with the GLOB rule's prefix, match the rest of it? */
  protected matchesGlob(rule: number, text: string, start: number, end: number): boolean {
    const flags = this.flags[rule] as number;
    const prefixLength = this.prefixLength[rule] as number;
    const pattern = this.patterns[this.order[rule] as number] as string;
    const anchored = (flags & ANCHORED) !== 0;
    const patternEnd = anchored ? pattern.length - 1 : pattern.length;
    // Anchored on a char: the path must end with it (checked before any search).
    if (anchored) {
      const last = pattern.charCodeAt(patternEnd - 1);
      if (last !== 0x2a && text.charCodeAt(end - 1) !== last) return false;
    }
    let position = start + prefixLength;
    let from = prefixLength + 1;
    for (;;) {
      // Runs of `*` mean the same as one.
      while (from < patternEnd && pattern.charCodeAt(from) === 0x2a) from++;
      let next = pattern.indexOf('*', from);
      if (next >= patternEnd) next = -1;
      if (next === -1) {
        // The last segment: at the very end when anchored, anywhere after `position` otherwise.
        const length = patternEnd - from;
        if (anchored)
          return end - length >= position && regionEquals(text, end - length, pattern, from, length);
        return length === 0 || find(text, position, end, pattern, from, patternEnd) !== -1;
      }
      const at = find(text, position, end, pattern, from, next);
      if (at === -1) return false;
      position = at + (next - from);
      from = next + 1;
    }
  }

  /** The verdict of a rule, built once (while cached): a check allocates only a wildcard's segments. */
  protected verdict(rule: number): Verdict {
    let verdict = this.#verdicts[rule];
    if (verdict === undefined) {
      const index = this.order[rule] as number;
      const signedLine = this.lines[index] ?? 0;
      const matched: MatchedRule = Object.freeze({
        directive: signedLine > 0 ? 'allow' : 'disallow',
        pattern: this.patterns[index] as string,
        line: Math.abs(signedLine),
      });
      verdict = Object.freeze({ allowed: signedLine > 0, rule: matched });
      if (this.#cached >= VERDICT_CACHE_SIZE) {
        this.#verdicts = [];
        this.#cached = 0;
      }
      this.#verdicts[rule] = verdict;
      this.#cached++;
    }
    return verdict;
  }
}

/** The rules, in decision order, with the prefix index of the file comment, built on first use. */
class IndexedMatcher extends ScanMatcher {
  /** Rule indices grouped by distinct prefix (sorted as strings), each group in decision order. */
  #byPrefix: Int32Array = EMPTY;
  /** Distinct prefix d owns byPrefix[groupStart[d], groupStart[d + 1]). */
  #groupStart: Int32Array = EMPTY;
  /** Longest other distinct prefix that is a prefix of d, or -1. */
  #parent: Int32Array = EMPTY;
  /**
   * The chars of the distinct prefixes, sorted, end to end: prefix d is chars[at[d], at[d + 1]). Chars
   * in a typed array rather than strings: the patterns are slices of the body, and reading a sliced
   * string char by char costs several times a typed array's load. One byte a char when every char is
   * below 256, as escaped patterns (ASCII) always are: the values, and so the comparisons with the
   * path's UTF-16 units, are the same; two otherwise (patterns from JSON may hold any char).
   */
  #chars: Uint8Array | Uint16Array | undefined;
  #at: Int32Array = EMPTY;
  /**
   * The first level of the search, by a path's second char (its first is `/`): the prefixes that
   * start with `/` and a char c below 128 are the distinct prefixes [bySecond[c], bySecond[c + 1]), as
   * sorting puts them together. A path's prefixes of two chars or more lie in its block, so the
   * search starts there with two chars known to be shared: 5.5 steps a check on the corpus became 2.5.
   */
  #bySecond: Int32Array | Uint16Array = EMPTY;
  /** The longest distinct prefix that is a prefix of `/` (`/` itself or the empty prefix of a `*` rule), or -1. */
  #root = -1;
  #scansLeft = SCANS_BEFORE_INDEX;

  override get estimatedBytes(): number {
    return super.estimatedBytes + (this.#chars === undefined ? 0 : FIRST_LEVEL_BYTES);
  }

  override decide(text: string, start: number, end: number): Verdict {
    if (this.#chars === undefined) {
      if (this.#scansLeft > 0) {
        this.#scansLeft--;
        return this.scan(text, start, end);
      }
      this.#buildIndex();
    }
    const length = end - start;
    const parent = this.#parent;
    let winner = -1;
    const { flags, masks } = this;
    let pathMask = 0;
    let masked = false;
    for (let node = this.#deepest(text, start, end); node !== -1; node = parent[node] as number) {
      const to = this.#groupStart[node + 1] as number;
      for (let at = this.#groupStart[node] as number; at < to; at++) {
        const rule = this.#byPrefix[at] as number;
        if (winner !== -1 && rule > winner) break;
        const kind = (flags[rule] as number) & 3;
        let matches: boolean;
        if (kind === PREFIX) matches = true;
        else if (kind === EXACT) matches = length === (this.prefixLength[rule] as number);
        else {
          if (!masked) {
            pathMask = charMask(text, start, end);
            masked = true;
          }
          matches = ((masks[rule] as number) & ~pathMask) === 0 && this.matchesGlob(rule, text, start, end);
        }
        if (matches) {
          winner = rule;
          break;
        }
      }
    }
    return winner === -1 ? ALLOWED_BY_DEFAULT : this.verdict(winner);
  }

  override longestMatches(text: string, start: number, end: number): number[] {
    if (this.#chars === undefined) {
      if (this.#scansLeft > 0) {
        this.#scansLeft--;
        return super.longestMatches(text, start, end);
      }
      this.#buildIndex();
    }
    const parent = this.#parent;
    const pathMask = charMask(text, start, end);
    // Decision indices of the matches of rank `top` so far. A shorter prefix may hold a longer
    // pattern (a wildcard's), so every prefix of the path is visited, each only down to `top`.
    let found: number[] = [];
    let top = -1;
    for (let node = this.#deepest(text, start, end); node !== -1; node = parent[node] as number) {
      const to = this.#groupStart[node + 1] as number;
      for (let at = this.#groupStart[node] as number; at < to; at++) {
        const rule = this.#byPrefix[at] as number;
        const rank = this.rank(rule);
        if (rank < top) break;
        // The prefix is known to match: ruleMatches checks it again, a few chars.
        if (!this.ruleMatches(rule, text, start, end, pathMask)) continue;
        if (rank > top) {
          top = rank;
          found = [];
        }
        found.push(rule);
      }
    }
    if (found.length > 1) found.sort((a, b) => a - b);
    for (let i = 0; i < found.length; i++) found[i] = this.order[found[i] as number] as number;
    return found;
  }

  /**
   * The distinct prefix of the path text[start, end) that is longest, or -1: its ancestors (`parent`)
   * are the path's other prefixes. The index is built.
   */
  #deepest(text: string, start: number, end: number): number {
    const chars = this.#chars as Uint8Array | Uint16Array;
    const at = this.#at;
    const length = end - start;
    // The last prefix at or before the path: a binary search whose comparisons start after the chars
    // both bounds share with the path (all between them share those too). A path `/c...` with c below
    // 128 is searched for in its block of the first level only: what sorts before the block and is a
    // prefix of the path is a prefix of `/`, the root.
    let low = -1;
    let high = at.length - 1;
    let lcpLow = 0;
    let lcpHigh = 0;
    const second = length >= 2 && text.charCodeAt(start) === 0x2f ? text.charCodeAt(start + 1) : 128;
    if (second < 128) {
      const bySecond = this.#bySecond;
      low = (bySecond[second] as number) - 1;
      high = bySecond[second + 1] as number;
      lcpLow = 2;
      lcpHigh = 2;
    }
    const blockStart = low;
    while (high - low > 1) {
      const middle = (low + high) >>> 1;
      const from = at[middle] as number;
      const prefixLength = (at[middle + 1] as number) - from;
      let k = lcpLow < lcpHigh ? lcpLow : lcpHigh;
      const stop = prefixLength < length ? prefixLength : length;
      while (k < stop && chars[from + k] === text.charCodeAt(start + k)) k++;
      if (k === prefixLength || (k < length && (chars[from + k] as number) < text.charCodeAt(start + k))) {
        low = middle;
        lcpLow = k;
      } else {
        high = middle;
        lcpHigh = k;
      }
    }
    // Its ancestors are prefixes of it; those no longer than its common part with the path are the
    // path's, the first of them the longest.
    if (second < 128 && low === blockStart) return this.#root;
    const parent = this.#parent;
    let node = low;
    while (node !== -1 && (at[node + 1] as number) - (at[node] as number) > lcpLow)
      node = parent[node] as number;
    return node;
  }

  /**
   * Sorts and links the prefixes. Their chars are copied into one typed array first and compared
   * there: comparing the prefixes as strings (slices of slices of the body) went through the runtime
   * for each comparison, and building an index cost as much as hundreds of checks.
   */
  #buildIndex(): Uint8Array | Uint16Array {
    const count = this.order.length;
    const prefixLength = this.prefixLength;
    // Rule r's prefix is all[from[r], from[r + 1]).
    const from = new Int32Array(count + 1);
    for (let r = 0; r < count; r++) from[r + 1] = (from[r] as number) + (prefixLength[r] as number);
    const all = new Uint16Array(from[count] as number);
    let wide = false;
    for (let r = 0; r < count; r++) {
      const pattern = this.patterns[this.order[r] as number] as string;
      const base = from[r] as number;
      const length = prefixLength[r] as number;
      for (let i = 0; i < length; i++) {
        const char = pattern.charCodeAt(i);
        all[base + i] = char;
        if (char > 0xff) wide = true;
      }
    }
    // As strings compare: by UTF-16 unit, a prefix of another first; equal prefixes in decision order.
    const compare = (a: number, b: number): number => {
      const fa = from[a] as number;
      const fb = from[b] as number;
      const la = (from[a + 1] as number) - fa;
      const lb = (from[b + 1] as number) - fb;
      const shorter = la < lb ? la : lb;
      for (let i = 0; i < shorter; i++) {
        const difference = (all[fa + i] as number) - (all[fb + i] as number);
        if (difference !== 0) return difference;
      }
      return la - lb;
    };
    const order = Array.from({ length: count }, (_, i) => i);
    order.sort((a, b) => compare(a, b) || a - b);
    this.#byPrefix = Int32Array.from(order);
    const starts: number[] = [];
    const parents: number[] = [];
    /** The rule whose prefix stands for each distinct prefix. */
    const distinct: number[] = [];
    const stack: number[] = [];
    /** Is the prefix of rule `a` a prefix of rule b's? */
    const isPrefixOf = (a: number, b: number): boolean => {
      const fa = from[a] as number;
      const fb = from[b] as number;
      const la = (from[a + 1] as number) - fa;
      if (la > (from[b + 1] as number) - fb) return false;
      for (let i = 0; i < la; i++) if (all[fa + i] !== all[fb + i]) return false;
      return true;
    };
    let previous = -1;
    for (let at = 0; at < count; at++) {
      const rule = order[at] as number;
      if (previous !== -1 && compare(previous, rule) === 0) continue;
      previous = rule;
      while (stack.length > 0 && !isPrefixOf(distinct[stack.at(-1) as number] as number, rule)) stack.pop();
      parents.push(stack.length > 0 ? (stack.at(-1) as number) : -1);
      stack.push(distinct.length);
      distinct.push(rule);
      starts.push(at);
    }
    starts.push(count);
    this.#groupStart = Int32Array.from(starts);
    this.#parent = Int32Array.from(parents);
    const at = new Int32Array(distinct.length + 1);
    for (let d = 0; d < distinct.length; d++)
      at[d + 1] = (at[d] as number) + (prefixLength[distinct[d] as number] as number);
    const chars = wide
      ? new Uint16Array(at[distinct.length] as number)
      : new Uint8Array(at[distinct.length] as number);
    for (let d = 0; d < distinct.length; d++) {
      const rule = distinct[d] as number;
      chars.set(all.subarray(from[rule] as number, from[rule + 1] as number), at[d] as number);
    }
    this.#at = at;
    this.#chars = chars;
    // The first level: bySecond[c] is how many distinct prefixes sort before `/` + c (c = 128: before
    // `/\u0080`), so those that start with `/` + c are [bySecond[c], bySecond[c + 1]).
    const beforeSlashAnd = (d: number, c: number): boolean => {
      const from = at[d] as number;
      const length = (at[d + 1] as number) - from;
      if (length === 0) return true;
      const first = chars[from] as number;
      if (first !== 0x2f) return first < 0x2f;
      return length === 1 || (chars[from + 1] as number) < c;
    };
    const bySecond = distinct.length < 0xffff ? new Uint16Array(129) : new Int32Array(129);
    let d = 0;
    for (let c = 0; c <= 128; c++) {
      while (d < distinct.length && beforeSlashAnd(d, c)) d++;
      bySecond[c] = d;
    }
    // The root: `/` when it is a prefix (it sorts last before `/` + any char), else the empty prefix
    // (sorted first) when there is one.
    const slash = (bySecond[0] as number) - 1;
    if (
      slash >= 0 &&
      (at[slash + 1] as number) - (at[slash] as number) === 1 &&
      chars[at[slash] as number] === 0x2f
    )
      this.#root = slash;
    else if (distinct.length > 0 && at[1] === 0) this.#root = 0;
    this.#bySecond = bySecond;
    return chars;
  }
}

function regionEquals(text: string, at: number, pattern: string, from: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(at + i) !== pattern.charCodeAt(from + i)) return false;
  return true;
}

/**
 * Leftmost position >= `position` where pattern[from, to) occurs inside text[position, end), or -1.
 * Native indexOf on the segment, sliced out each time (a small young-generation copy): with it the
 * corpus's checks against indexed sets took 0.91 of the time they took with a loop over chars in JS.
 */
function find(
  text: string,
  position: number,
  end: number,
  pattern: string,
  from: number,
  to: number,
): number {
  const length = to - from;
  if (length === 0) return position;
  const at = text.indexOf(pattern.slice(from, to), position);
  return at !== -1 && at + length <= end ? at : -1;
}

/** The estimatedBytes of the matcher compileMatcher builds from `rules` rules (verdicts aside). */
export function compiledBytesOf(rules: number): number {
  return MATCHER_BYTES + rules * BYTES_PER_RULE;
}

/**
 * Decision order of the rules `kept` (indices into patterns and lines, in file order): longer pattern
 * first, allow before disallow on a tie, then file order. Rules from a parse come in file order: a
 * stable counting sort on rank is O(n); rules from elsewhere (JSON) are sorted.
 */
function decisionOrder(
  patterns: readonly string[],
  lines: ArrayLike<number>,
  kept: readonly number[],
): Int32Array {
  const lineOf = (i: number) => Math.abs(lines[kept[i] as number] ?? 0);
  const ranks = kept.map(
    (index) => (patterns[index] as string).length * 2 + ((lines[index] ?? 0) > 0 ? 1 : 0),
  );
  let inFileOrder = true;
  for (let i = 1; i < kept.length && inFileOrder; i++) inFileOrder = lineOf(i) >= lineOf(i - 1);
  let top = 0;
  for (const rank of ranks) if (rank > top) top = rank;
  if (!inFileOrder || ranks.length < 32 || top > 8 * ranks.length + 1024) {
    const sorted = Array.from({ length: ranks.length }, (_, i) => i).sort(
      (a, b) => (ranks[b] as number) - (ranks[a] as number) || lineOf(a) - lineOf(b),
    );
    return Int32Array.from(sorted, (i) => kept[i] as number);
  }
  // Key k = top - rank (highest rank first); next[k] is where the next rule of key k goes.
  const order = new Int32Array(ranks.length);
  const next = new Int32Array(top + 2);
  for (const rank of ranks) next[top - rank + 1] = (next[top - rank + 1] as number) + 1;
  for (let k = 1; k < next.length; k++) next[k] = (next[k] as number) + (next[k - 1] as number);
  for (let i = 0; i < ranks.length; i++) {
    const key = top - (ranks[i] as number);
    order[next[key] as number] = kept[i] as number;
    next[key] = (next[key] as number) + 1;
  }
  return order;
}

/**
 * Compiles the rules of one agent: its groups' rule lists, in file order. Empty patterns are dropped:
 * they match everything with priority 0 and so never decide anything (RFC 9309 2.2.2, Google). One
 * list (one group, the common case) is read in place; several are joined into one.
 */
export function compileMatcher(lists: readonly RuleList[], options: MatchOptions): PathMatcher {
  let patterns: readonly string[];
  let lines: ArrayLike<number>;
  if (lists.length === 1) ({ patterns, lines } = lists[0] as RuleList);
  else {
    patterns = lists.flatMap((list) => list.patterns);
    const joined = new Int32Array(patterns.length);
    let at = 0;
    for (const list of lists)
      for (let i = 0; i < list.patterns.length; i++) joined[at++] = list.lines[i] ?? 0;
    lines = joined;
  }
  const kept: number[] = [];
  for (let i = 0; i < patterns.length; i++) if ((patterns[i] as string).length > 0) kept.push(i);
  // `first`: decision order is file order. The index finds the matching rule earliest in decision
  // order whatever that order is, so large sets of either kind are indexed (tdmrep.json's rules too).
  const order = options.precedence === 'first' ? Int32Array.from(kept) : decisionOrder(patterns, lines, kept);
  return order.length < INDEX_FROM_RULES
    ? new ScanMatcher(patterns, lines, order, options.wildcards)
    : new IndexedMatcher(patterns, lines, order, options.wildcards);
}
