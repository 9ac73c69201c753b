/**
 * The matcher of large rule sets, in flat typed arrays: a hostile robots.txt of 500 KB holds some
 * 20,000 rules, and one object per rule plus a trie node per prefix cost ~540 bytes a rule (25 times
 * the file, measured). Here a rule costs ~61-70 bytes on top of the pattern string it came from, which
 * is shared, not copied.
 *
 * Same answers as the object matcher (matcher.ts): longest match, allow wins ties, first in file order
 * among equals; `*` runs and a final `$` as there. Rules are stored in decision order (index = order).
 *
 * Index: the distinct literal prefixes (text before the first `*`) sorted as strings, each with its
 * parent, the longest other prefix that is a prefix of it. The prefixes of a path that are in the set
 * are the ancestors of the largest prefix that sorts at or before the path (whatever sorts between a
 * prefix of the path and the path starts with that prefix), so a check is one binary search and a walk
 * up the parents, examining only rules whose prefix the path starts with.
 */
import type { MatchedRule, Verdict } from './types.js';

const PREFIX = 0;
const EXACT = 1;
const GLOB = 2;

/**
 * Bytes per rule of this structure (typed arrays, the pattern slot, the distinct prefix strings), for
 * memory budgets: measured 61 on hostile 500 KB files with short prefixes (copied strings) and up to
 * ~70 with prefixes of 13 chars or more (sliced strings, 32 bytes each); rounded up.
 */
export const COMPACT_BYTES_PER_RULE = 80;

/** Verdicts kept per matcher; beyond this the cache starts over (each is rebuilt on demand). */
const VERDICT_CACHE_SIZE = 256;

const ALLOWED_BY_DEFAULT: Verdict = Object.freeze({ allowed: true });
const EMPTY = new Int32Array(0);
const SCANS_BEFORE_INDEX = 16;

export interface CompactRuleInput {
  readonly signedLine: number;
  readonly pattern: string;
}

export class CompactMatcher {
  /** Patterns in decision order (the strings of the rule lists, shared). */
  readonly #patterns: string[];
  /** Signed line of each rule (negative: Disallow). */
  readonly #lines: Int32Array;
  /** Length of the literal prefix; for EXACT the pattern without its `$`. */
  readonly #prefixLength: Int32Array;
  /** kind | anchored << 2 */
  readonly #flags: Uint8Array;
  /** Rule indices grouped by distinct prefix (sorted as strings), each group in decision order. */
  #byPrefix: Int32Array = EMPTY;
  /** Distinct prefix d owns byPrefix[groupStart[d], groupStart[d + 1]). */
  #groupStart: Int32Array = EMPTY;
  /** Longest other distinct prefix that is a prefix of d, or -1. */
  #parent: Int32Array = EMPTY;
  /** The distinct prefixes, sorted (slices of the patterns: native comparisons beat char loops 3x). */
  #prefixes: string[] | undefined;
  /**
   * Checks answered by a scan before the index is built: building costs as much as a few dozen scans,
   * and many parsed files are asked a question or two only (as the trie did before, matcher.ts).
   */
  #scansLeft = SCANS_BEFORE_INDEX;
  #verdicts = new Map<number, Verdict>();

  /** `rules` in decision order. */
  constructor(rules: readonly CompactRuleInput[], wildcards: boolean) {
    const count = rules.length;
    this.#patterns = new Array<string>(count);
    this.#lines = new Int32Array(count);
    this.#prefixLength = new Int32Array(count);
    this.#flags = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      const { signedLine, pattern } = rules[i] as CompactRuleInput;
      this.#patterns[i] = pattern;
      this.#lines[i] = signedLine;
      const anchored = wildcards && pattern.charCodeAt(pattern.length - 1) === 0x24;
      const end = anchored ? pattern.length - 1 : pattern.length;
      const star = wildcards ? pattern.indexOf('*') : -1;
      if (star === -1 || star >= end) {
        this.#flags[i] = anchored ? EXACT : PREFIX;
        this.#prefixLength[i] = end;
      } else {
        this.#flags[i] = GLOB | (anchored ? 4 : 0);
        this.#prefixLength[i] = star;
      }
    }
  }

  /** The prefix index (see the file comment), built on the first check after the scans. */
  #buildIndex(): string[] {
    const count = this.#patterns.length;
    const prefixes = this.#patterns.map((pattern, i) => pattern.slice(0, this.#prefixLength[i]));
    const order = Array.from({ length: count }, (_, i) => i);
    order.sort((a, b) => {
      const pa = prefixes[a] as string;
      const pb = prefixes[b] as string;
      return pa < pb ? -1 : pa > pb ? 1 : a - b;
    });
    this.#byPrefix = Int32Array.from(order);
    const starts: number[] = [];
    const parents: number[] = [];
    const distinctPrefixes: string[] = [];
    const stack: number[] = [];
    let previous: string | undefined;
    for (let at = 0; at < count; at++) {
      const prefix = prefixes[order[at] as number] as string;
      if (prefix === previous) continue;
      previous = prefix;
      const distinct = starts.length;
      while (stack.length > 0 && !prefix.startsWith(distinctPrefixes[stack.at(-1) as number] as string))
        stack.pop();
      distinctPrefixes.push(prefix);
      parents.push(stack.length > 0 ? (stack.at(-1) as number) : -1);
      stack.push(distinct);
      starts.push(at);
    }
    starts.push(count);
    this.#groupStart = Int32Array.from(starts);
    this.#parent = Int32Array.from(parents);
    this.#prefixes = distinctPrefixes;
    return distinctPrefixes;
  }

  get ruleCount(): number {
    return this.#lines.length;
  }

  /** Bytes this structure holds beyond the pattern strings (which belong to the rule lists). */
  get estimatedBytes(): number {
    return 200 + this.#lines.length * COMPACT_BYTES_PER_RULE + this.#verdicts.size * 160;
  }

  decide(text: string, start: number, end: number): Verdict {
    if (this.#prefixes === undefined && this.#scansLeft > 0) {
      this.#scansLeft--;
      return this.#scan(text, start, end);
    }
    const prefixes = this.#prefixes ?? this.#buildIndex();
    // One slice per check (the path), so that every comparison below is native.
    const path = start === 0 && end === text.length ? text : text.slice(start, end);
    let node = this.#lastAtOrBefore(path);
    // Up to the first ancestor that is a prefix of the path: the longest such prefix.
    while (node !== -1 && !path.startsWith(prefixes[node] as string)) node = this.#parent[node] as number;
    let winner = -1;
    for (; node !== -1; node = this.#parent[node] as number) {
      const from = this.#groupStart[node] as number;
      const to = this.#groupStart[node + 1] as number;
      for (let at = from; at < to; at++) {
        const rule = this.#byPrefix[at] as number;
        if (winner !== -1 && rule > winner) break;
        if (this.#matchesRest(rule, text, start, end)) {
          winner = rule;
          break;
        }
      }
    }
    return winner === -1 ? ALLOWED_BY_DEFAULT : this.#verdict(winner);
  }

  /** The first rule in decision order that text[start, end) matches. */
  #scan(text: string, start: number, end: number): Verdict {
    const patterns = this.#patterns;
    const prefixLength = this.#prefixLength;
    for (let rule = 0; rule < patterns.length; rule++) {
      const length = prefixLength[rule] as number;
      if (length > end - start) continue;
      if (!regionEquals(text, start, patterns[rule] as string, 0, length)) continue;
      if (this.#matchesRest(rule, text, start, end)) return this.#verdict(rule);
    }
    return ALLOWED_BY_DEFAULT;
  }

  /** The last distinct prefix that sorts at or before `path`, or -1. */
  #lastAtOrBefore(path: string): number {
    const prefixes = this.#prefixes as string[];
    let low = 0;
    let high = prefixes.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if ((prefixes[middle] as string) <= path) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }

  /** Does text[start, end), known to start with the rule's prefix, match the rest of the rule? */
  #matchesRest(rule: number, text: string, start: number, end: number): boolean {
    const flags = this.#flags[rule] as number;
    const kind = flags & 3;
    const prefixLength = this.#prefixLength[rule] as number;
    if (kind === PREFIX) return true;
    if (kind === EXACT) return end - start === prefixLength;
    const pattern = this.#patterns[rule] as string;
    const anchored = (flags & 4) !== 0;
    const patternEnd = anchored ? pattern.length - 1 : pattern.length;
    let position = start + prefixLength;
    let from = prefixLength + 1;
    for (;;) {
      // Runs of `*` mean the same as one.
      while (from < patternEnd && pattern.charCodeAt(from) === 0x2a) from++;
      let next = pattern.indexOf('*', from);
      if (next === -1 || next >= patternEnd) next = -1;
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

  #verdict(rule: number): Verdict {
    let verdict = this.#verdicts.get(rule);
    if (verdict === undefined) {
      const signedLine = this.#lines[rule] as number;
      const matched: MatchedRule = Object.freeze({
        directive: signedLine > 0 ? 'allow' : 'disallow',
        pattern: this.#patterns[rule] as string,
        line: Math.abs(signedLine),
      });
      verdict = Object.freeze({ allowed: signedLine > 0, rule: matched });
      if (this.#verdicts.size >= VERDICT_CACHE_SIZE) this.#verdicts = new Map();
      this.#verdicts.set(rule, verdict);
    }
    return verdict;
  }
}

function regionEquals(text: string, at: number, pattern: string, from: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(at + i) !== pattern.charCodeAt(from + i)) return false;
  return true;
}

/** Leftmost position >= `position` where pattern[from, to) occurs inside text[position, end), or -1. */
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
  const first = pattern.charCodeAt(from);
  for (let at = position; at + length <= end; at++) {
    if (text.charCodeAt(at) === first && regionEquals(text, at + 1, pattern, from + 1, length - 1)) return at;
  }
  return -1;
}
