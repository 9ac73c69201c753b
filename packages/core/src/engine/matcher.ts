/**
 * The compiled matcher of one agent: which rule decides a path.
 *
 * Longest match (RFC 9309 2.2.2): the matching rule with the longest (escaped) pattern wins, allow wins
 * ties, and among equals the first in the file is reported. Rules are sorted once into that order, so
 * the first rule that matches decides.
 *
 * Matching never builds a RegExp. A pattern is split at its `*` runs into literal segments; a path
 * matches when the first segment is its prefix and each later segment is found, leftmost, after the
 * previous one (the last one at the very end when the pattern ends in `$`). Greedy leftmost placement
 * is exact for `*`-only globs and gives the same answers as the position-set algorithm of Google's
 * robotstxt (RobotsMatchStrategy::Matches) in O(pattern x path) at worst.
 *
 * Large rule sets are indexed by literal prefix (the text before the first `*`) in a path-compressed
 * trie walked once along the path: only rules whose prefix the path starts with are examined, so the
 * cost of a check follows the path's length, not the number of rules. Very large sets are compiled into
 * flat arrays instead (compact-matcher.ts): objects and a trie cost ~580 bytes a rule, 25 times a
 * hostile 500 KB file, and anyone with wildcard subdomains can serve one per origin (issue 10).
 */
import { COMPACT_BYTES_PER_RULE, CompactMatcher } from './compact-matcher.js';
import type { RuleList } from './rules.js';
import type { MatchedRule, Verdict } from './types.js';

export interface MatchOptions {
  readonly wildcards: boolean;
  readonly precedence: 'longest' | 'first';
}

/** How a compiled rule matches once its prefix is known to match. */
const PREFIX = 0;
const EXACT = 1;
const GLOB = 2;

export const ALLOWED_BY_DEFAULT: Verdict = Object.freeze({ allowed: true });

const NO_SEGMENTS: readonly string[] = Object.freeze([]);

/** One rule, ready to match. A class (one hidden shape) because large files compile tens of thousands. */
class CompiledRule {
  readonly kind: typeof PREFIX | typeof EXACT | typeof GLOB;
  /** Literal text the path must start with. */
  readonly prefix: string;
  /** GLOB: literal segments after the prefix, the last one possibly empty. */
  readonly segments: readonly string[];
  /** GLOB: the last segment must end the path. */
  readonly anchored: boolean;
  /** Position in decision order (0 decides first). */
  order = 0;
  /** Decision rank: pattern length, doubled, plus one for an Allow (longer first, Allow wins ties). */
  readonly rank: number;
  readonly allow: boolean;
  readonly line: number;
  readonly pattern: string;
  #verdict: Verdict | undefined;

  constructor(signedLine: number, pattern: string, wildcards: boolean) {
    this.pattern = pattern;
    this.allow = signedLine > 0;
    this.rank = pattern.length * 2 + (this.allow ? 1 : 0);
    this.line = Math.abs(signedLine);
    // `$` is special only as the last character (Google); elsewhere it is a literal `$`.
    const anchored = wildcards && pattern.charCodeAt(pattern.length - 1) === 0x24;
    const end = anchored ? pattern.length - 1 : pattern.length;
    const star = wildcards ? pattern.indexOf('*') : -1;
    this.anchored = anchored;
    if (star === -1 || star >= end) {
      this.kind = anchored ? EXACT : PREFIX;
      this.prefix = anchored ? pattern.slice(0, end) : pattern;
      this.segments = NO_SEGMENTS;
    } else {
      // Runs of `*` mean the same as one: empty segments between them are dropped, except the last.
      this.kind = GLOB;
      this.prefix = pattern.slice(0, star);
      const segments: string[] = [];
      let from = star + 1;
      for (;;) {
        const next = pattern.indexOf('*', from);
        if (next === -1 || next >= end) break;
        if (next > from) segments.push(pattern.slice(from, next));
        from = next + 1;
      }
      segments.push(pattern.slice(from, end));
      this.segments = segments;
    }
  }

  /** The verdict this rule gives, built once on first use so that checks do not allocate. */
  get verdict(): Verdict {
    if (this.#verdict === undefined) {
      const rule: MatchedRule = Object.freeze({
        directive: this.allow ? 'allow' : 'disallow',
        pattern: this.pattern,
        line: this.line,
      });
      this.#verdict = Object.freeze({ allowed: this.allow, rule });
    }
    return this.#verdict;
  }
}

/** Does text[start, end) (known to start with rule.prefix) match the rest of the rule? */
function matchesRest(rule: CompiledRule, text: string, start: number, end: number): boolean {
  if (rule.kind === PREFIX) return true;
  if (rule.kind === EXACT) return end - start === rule.prefix.length;
  const segments = rule.segments;
  let position = start + rule.prefix.length;
  const last = segments.length - 1;
  for (let i = 0; i < last; i++) {
    const segment = segments[i] as string;
    const at = text.indexOf(segment, position);
    if (at === -1 || at + segment.length > end) return false;
    position = at + segment.length;
  }
  const tail = segments[last] as string;
  if (rule.anchored) return end - tail.length >= position && text.startsWith(tail, end - tail.length);
  if (tail.length === 0) return true;
  const at = text.indexOf(tail, position);
  return at !== -1 && at + tail.length <= end;
}

/** Does text[start, end) match the rule? */
function matches(rule: CompiledRule, text: string, start: number, end: number): boolean {
  return (
    rule.prefix.length <= end - start &&
    text.startsWith(rule.prefix, start) &&
    matchesRest(rule, text, start, end)
  );
}

/** Decision order: longer pattern first, allow before disallow on a tie, then file order. */
function byDecisionOrder(a: CompiledRule, b: CompiledRule): number {
  return b.rank - a.rank || a.line - b.line;
}

/** Decision order for rules already in file order: sort is stable, so equal ranks keep file order. */
function byRank(a: CompiledRule, b: CompiledRule): number {
  return b.rank - a.rank;
}

/**
 * Rules in file order into decision order: a stable counting sort on rank, for sets large enough that a
 * comparison sort shows (ranks are bounded by twice the longest pattern).
 */
function sortFromLineOrder(rules: CompiledRule[]): CompiledRule[] {
  let top = 0;
  for (const rule of rules) if (rule.rank > top) top = rule.rank;
  if (rules.length < 32 || top > 8 * rules.length + 1024) return rules.sort(byRank);
  // Key k = top - rank (highest rank first); next[k] is where the next rule of key k goes.
  const next = new Int32Array(top + 2);
  for (const rule of rules) {
    const after = top - rule.rank + 1;
    next[after] = (next[after] as number) + 1;
  }
  for (let k = 1; k < next.length; k++) next[k] = (next[k] as number) + (next[k - 1] as number);
  const sorted = new Array<CompiledRule>(rules.length);
  for (const rule of rules) {
    const key = top - rule.rank;
    const at = next[key] as number;
    sorted[at] = rule;
    next[key] = at + 1;
  }
  return sorted;
}

function inLineOrder(rules: readonly CompiledRule[]): boolean {
  for (let i = 1; i < rules.length; i++)
    if ((rules[i] as CompiledRule).line < (rules[i - 1] as CompiledRule).line) return false;
  return true;
}

/**
 * Below this many rules a straight scan in decision order beats walking the prefix trie (measured on the
 * corpus: 16 gives ~300 ns per check, a trie for every set ~317 ns).
 */
const INDEX_THRESHOLD = 16;

export interface PathMatcher {
  /** The verdict for the path text[start, end) (already located in the URL). */
  decide(text: string, start: number, end: number): Verdict;
  readonly ruleCount: number;
  /** What the compiled form holds beyond the pattern strings, in bytes (see RobotsTxt#estimateBytes). */
  readonly estimatedBytes: number;
}

/**
 * Bytes of one compiled rule object with its prefix and segment strings, and of the trie per rule,
 * measured on the hostile 500 KB file of test/helpers/hostile-robots.ts (341 and 200), rounded up.
 */
const OBJECT_BYTES_PER_RULE = 360;
const TRIE_BYTES_PER_RULE = 220;

/**
 * From this many rules on, a set is compiled into flat arrays (compact-matcher.ts, ~61 bytes a rule)
 * rather than objects and a trie (~580 bytes a rule). Below it the trie stays: it checks 2-4 times
 * faster (measured), and a set this small costs at most ~600 KB compiled, counted in the budget.
 */
export const COMPACT_FROM_RULES = 1024;

/** The first rule, in decision order, that text[start, end) matches. */
function scan(rules: readonly CompiledRule[], text: string, start: number, end: number): Verdict {
  for (const rule of rules) if (matches(rule, text, start, end)) return rule.verdict;
  return ALLOWED_BY_DEFAULT;
}

class ScanMatcher implements PathMatcher {
  readonly #rules: readonly CompiledRule[];
  constructor(rules: readonly CompiledRule[]) {
    this.#rules = rules;
  }
  get ruleCount(): number {
    return this.#rules.length;
  }
  get estimatedBytes(): number {
    return 100 + this.#rules.length * OBJECT_BYTES_PER_RULE;
  }
  decide(text: string, start: number, end: number): Verdict {
    return scan(this.#rules, text, start, end);
  }
}

/**
 * Checks a large rule set answers by scanning before its prefix trie is built. Building costs a hundred
 * scans or more (allocation mostly; measured on the corpus's largest files), and many parsed files are
 * asked a question or two only; a set that keeps being asked gets its trie after this many scans.
 */
const SCANS_BEFORE_INDEX = 16;
/**
 * Sets smaller than this build their trie at once: it takes well under a millisecond, so deferring it
 * gains little, and most files then take one path only.
 */
const LAZY_INDEX_RULES = 256;

/** A node of the prefix trie: the rules whose literal prefix ends here, in decision order. */
class TrieNode {
  /** The edge from the parent: the chars this node adds to its parent's prefix. */
  label: string;
  children: Map<number, TrieNode> | undefined;
  rules: CompiledRule[] | undefined;

  constructor(label: string) {
    this.label = label;
  }
}

/**
 * Rules indexed by literal prefix in a path-compressed trie. A check walks the trie once along the path
 * (one map lookup and one native startsWith per branching point) and examines only the rules whose
 * prefix the path starts with.
 */
class TrieMatcher implements PathMatcher {
  #root: TrieNode | undefined;
  #scansLeft = SCANS_BEFORE_INDEX;
  readonly #rules: readonly CompiledRule[];

  constructor(rules: readonly CompiledRule[]) {
    this.#rules = rules;
    if (rules.length < LAZY_INDEX_RULES) this.#root = this.#build();
  }

  get ruleCount(): number {
    return this.#rules.length;
  }

  /** Counts the trie whether built yet or not: any later check may build it. */
  get estimatedBytes(): number {
    return 200 + this.#rules.length * (OBJECT_BYTES_PER_RULE + TRIE_BYTES_PER_RULE);
  }

  #build(): TrieNode {
    const root = new TrieNode('');
    for (const rule of this.#rules) this.#insert(root, rule);
    return root;
  }

  #insert(root: TrieNode, rule: CompiledRule): void {
    const prefix = rule.prefix;
    let node = root;
    let position = 0;
    while (position < prefix.length) {
      const first = prefix.charCodeAt(position);
      node.children ??= new Map();
      const child = node.children.get(first);
      if (child === undefined) {
        const leaf = new TrieNode(prefix.slice(position));
        node.children.set(first, leaf);
        node = leaf;
        break;
      }
      const label = child.label;
      let common = 1;
      while (common < label.length && label.charCodeAt(common) === prefix.charCodeAt(position + common))
        common++;
      if (common < label.length) {
        // Split the edge so that this prefix ends on a node.
        const middle = new TrieNode(label.slice(0, common));
        child.label = label.slice(common);
        middle.children = new Map([[child.label.charCodeAt(0), child]]);
        node.children.set(first, middle);
        node = middle;
      } else {
        node = child;
      }
      position += common;
    }
    // Rules arrive in decision order, so each node's list stays in decision order.
    if (node.rules === undefined) node.rules = [rule];
    else node.rules.push(rule);
  }

  decide(text: string, start: number, end: number): Verdict {
    if (this.#root === undefined) {
      if (this.#scansLeft > 0) {
        this.#scansLeft--;
        return scan(this.#rules, text, start, end);
      }
      this.#root = this.#build();
    }
    let winner: CompiledRule | undefined;
    let node: TrieNode | undefined = this.#root;
    let position = start;
    for (;;) {
      const rules = node.rules;
      if (rules !== undefined) {
        for (const rule of rules) {
          if (winner !== undefined && rule.order > winner.order) break;
          if (matchesRest(rule, text, start, end)) {
            winner = rule;
            break;
          }
        }
      }
      if (position >= end || node.children === undefined) break;
      node = node.children.get(text.charCodeAt(position));
      if (node === undefined || node.label.length > end - position || !text.startsWith(node.label, position))
        break;
      position += node.label.length;
    }
    return winner === undefined ? ALLOWED_BY_DEFAULT : winner.verdict;
  }
}

/** The estimatedBytes of the matcher compileMatcher would build from `rules` rules (an upper bound). */
export function compiledBytesOf(rules: number, options: MatchOptions): number {
  if (options.precedence === 'first' || rules < INDEX_THRESHOLD) return 100 + rules * OBJECT_BYTES_PER_RULE;
  if (rules < COMPACT_FROM_RULES) return 200 + rules * (OBJECT_BYTES_PER_RULE + TRIE_BYTES_PER_RULE);
  return 200 + rules * COMPACT_BYTES_PER_RULE;
}

/**
 * Compiles the rules of one agent: its groups' rule lists, in file order. Empty patterns are dropped:
 * they match everything with priority 0 and so never decide anything (RFC 9309 2.2.2, Google).
 */
export function compileMatcher(lists: readonly RuleList[], options: MatchOptions): PathMatcher {
  if (options.precedence !== 'first') {
    let count = 0;
    for (const list of lists) count += list.patterns.length;
    if (count >= COMPACT_FROM_RULES) return compileCompact(lists, options.wildcards);
  }
  const rules: CompiledRule[] = [];
  for (const { lines, patterns } of lists) {
    patterns.forEach((pattern, i) => {
      if (pattern.length > 0) rules.push(new CompiledRule(lines[i] ?? 0, pattern, options.wildcards));
    });
  }
  if (options.precedence === 'first') return new ScanMatcher(rules);
  // Rules from a parse come in file order; JSON from elsewhere might not.
  const sorted = inLineOrder(rules) ? sortFromLineOrder(rules) : rules.sort(byDecisionOrder);
  sorted.forEach((rule, order) => {
    rule.order = order;
  });
  return sorted.length < INDEX_THRESHOLD ? new ScanMatcher(sorted) : new TrieMatcher(sorted);
}

/**
 * A large set straight into the compact matcher, in decision order, without a CompiledRule per rule
 * (building and sorting 20,000 objects took most of a compile).
 */
function compileCompact(lists: readonly RuleList[], wildcards: boolean): PathMatcher {
  const patterns: string[] = [];
  const lines: number[] = [];
  for (const list of lists) {
    list.patterns.forEach((pattern, i) => {
      if (pattern.length === 0) return;
      patterns.push(pattern);
      lines.push(list.lines[i] ?? 0);
    });
  }
  // Decision order: longer pattern first, allow before disallow on a tie, then file order. Rules from a
  // parse come in file order: a stable counting sort on rank is O(n); JSON from elsewhere is sorted.
  const ranks = patterns.map((pattern, i) => pattern.length * 2 + ((lines[i] as number) > 0 ? 1 : 0));
  let order: number[];
  let inOrder = true;
  for (let i = 1; i < lines.length && inOrder; i++)
    inOrder = Math.abs(lines[i] as number) >= Math.abs(lines[i - 1] as number);
  let top = 0;
  for (const rank of ranks) if (rank > top) top = rank;
  if (inOrder && top <= 8 * ranks.length + 1024) {
    const next = new Int32Array(top + 2);
    for (const rank of ranks) next[top - rank + 1] = (next[top - rank + 1] as number) + 1;
    for (let k = 1; k < next.length; k++) next[k] = (next[k] as number) + (next[k - 1] as number);
    order = new Array<number>(ranks.length);
    for (let i = 0; i < ranks.length; i++) {
      const key = top - (ranks[i] as number);
      order[next[key] as number] = i;
      next[key] = (next[key] as number) + 1;
    }
  } else {
    order = Array.from({ length: patterns.length }, (_, i) => i);
    order.sort(
      (a, b) =>
        (ranks[b] as number) - (ranks[a] as number) ||
        Math.abs(lines[a] as number) - Math.abs(lines[b] as number),
    );
  }
  return new CompactMatcher(
    order.map((i) => ({ signedLine: lines[i] as number, pattern: patterns[i] as string })),
    wildcards,
  );
}
