/**
 * A group's rules as the engine keeps them between a parse and a compile, and as JSON stores them.
 */

/**
 * The rules of one group in file order, as two parallel arrays: rule `i` is `patterns[i]`, from line
 * `|lines[i]|`, a Disallow when `lines[i]` is negative. Arrays of numbers and strings rather than an
 * object (or a tuple) per rule: a hostile 500 KB file holds 20,000 rules, and an object each would
 * double what a cached file costs.
 */
export interface RuleList {
  /**
   * The line of each rule, 1-based, negated for a Disallow. An Int32Array from a parse or JSON (4 bytes
   * a rule against an array's 8-byte slot); any array of numbers is read the same.
   */
  readonly lines: ArrayLike<number>;
  /** The pattern of each rule, escaped (escape.ts), otherwise as written: `*` runs and a final `$` kept. */
  readonly patterns: readonly string[];
}

/** Chars of all patterns of a list. */
export function patternLength(rules: RuleList): number {
  let length = 0;
  for (const pattern of rules.patterns) length += pattern.length;
  return length;
}
