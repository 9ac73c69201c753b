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
 * Large rule sets are indexed by literal prefix (the text before the first `*`): a map from prefix to
 * its rules, probed with the path's own prefixes of each indexed length, longest first. Only rules whose
 * prefix the path starts with are examined, so the cost of a check follows the path's length and the
 * number of distinct prefix lengths, not the number of rules.
 */
import type { MatchedRule, Verdict } from './types.js';

export interface RuleSource {
  readonly allow: boolean;
  /** Escaped pattern, as written otherwise (`*` runs and a final `$` included). */
  readonly pattern: string;
  readonly line: number;
}

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
  readonly priority: number;
  readonly allow: boolean;
  readonly line: number;
  readonly pattern: string;
  #verdict: Verdict | undefined;

  constructor(source: RuleSource, wildcards: boolean) {
    const { pattern } = source;
    this.pattern = pattern;
    this.priority = pattern.length;
    this.allow = source.allow;
    this.line = source.line;
    // `$` is special only as the last character (Google); elsewhere it is a literal `$`.
    const anchored = wildcards && pattern.endsWith('$');
    const body = anchored ? pattern.slice(0, -1) : pattern;
    const star = wildcards ? body.indexOf('*') : -1;
    this.anchored = anchored;
    if (star === -1) {
      this.kind = anchored ? EXACT : PREFIX;
      this.prefix = body;
      this.segments = NO_SEGMENTS;
    } else {
      // Runs of `*` mean the same as one; empty segments between them are dropped.
      const parts = body.split('*');
      const tail = parts[parts.length - 1] as string;
      const segments = parts.slice(1, -1).filter((part) => part.length > 0);
      segments.push(tail);
      this.kind = GLOB;
      this.prefix = parts[0] as string;
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

/** Does `path` (known to start with rule.prefix) match the rest of the rule? */
function matchesRest(rule: CompiledRule, path: string): boolean {
  if (rule.kind === PREFIX) return true;
  if (rule.kind === EXACT) return path.length === rule.prefix.length;
  const segments = rule.segments;
  let position = rule.prefix.length;
  const last = segments.length - 1;
  for (let i = 0; i < last; i++) {
    const segment = segments[i] as string;
    const at = path.indexOf(segment, position);
    if (at === -1) return false;
    position = at + segment.length;
  }
  const tail = segments[last] as string;
  if (rule.anchored) return path.length - tail.length >= position && path.endsWith(tail);
  return tail.length === 0 || path.indexOf(tail, position) !== -1;
}

function matches(rule: CompiledRule, path: string): boolean {
  return path.startsWith(rule.prefix) && matchesRest(rule, path);
}

/** Decision order: longer pattern first, allow before disallow on a tie, then file order. */
function byDecisionOrder(a: CompiledRule, b: CompiledRule): number {
  return b.priority - a.priority || Number(b.allow) - Number(a.allow) || a.line - b.line;
}

/** Below this many rules a straight scan in decision order beats probing the prefix index. */
const INDEX_THRESHOLD = 16;

export interface PathMatcher {
  /** The verdict for a path (already extracted from the URL). */
  decide(path: string): Verdict;
  readonly ruleCount: number;
}

class ScanMatcher implements PathMatcher {
  readonly #rules: readonly CompiledRule[];
  constructor(rules: readonly CompiledRule[]) {
    this.#rules = rules;
  }
  get ruleCount(): number {
    return this.#rules.length;
  }
  decide(path: string): Verdict {
    for (const rule of this.#rules) if (matches(rule, path)) return rule.verdict;
    return ALLOWED_BY_DEFAULT;
  }
}

class IndexedMatcher implements PathMatcher {
  /** Rules by literal prefix, each list in decision order. */
  readonly #byPrefix = new Map<string, CompiledRule[]>();
  /** Distinct prefix lengths, longest first. */
  readonly #lengths: number[];
  /** Best (smallest) decision order among rules whose prefix length is lengths[k] or shorter. */
  readonly #bestOrderFrom: number[];
  readonly ruleCount: number;

  constructor(rules: readonly CompiledRule[]) {
    this.ruleCount = rules.length;
    const bestByLength = new Map<number, number>();
    for (const rule of rules) {
      const list = this.#byPrefix.get(rule.prefix);
      if (list) list.push(rule);
      else this.#byPrefix.set(rule.prefix, [rule]);
      const length = rule.prefix.length;
      bestByLength.set(length, Math.min(bestByLength.get(length) ?? rule.order, rule.order));
    }
    this.#lengths = [...bestByLength.keys()].sort((a, b) => b - a);
    this.#bestOrderFrom = new Array<number>(this.#lengths.length);
    let best = Number.POSITIVE_INFINITY;
    for (let k = this.#lengths.length - 1; k >= 0; k--) {
      best = Math.min(best, bestByLength.get(this.#lengths[k] as number) as number);
      this.#bestOrderFrom[k] = best;
    }
  }

  decide(path: string): Verdict {
    let winner: CompiledRule | undefined;
    const lengths = this.#lengths;
    for (let k = 0; k < lengths.length; k++) {
      const length = lengths[k] as number;
      if (length > path.length) continue;
      if (winner !== undefined && (this.#bestOrderFrom[k] as number) > winner.order) break;
      const bucket = this.#byPrefix.get(length === path.length ? path : path.slice(0, length));
      if (bucket === undefined) continue;
      for (const rule of bucket) {
        if (winner !== undefined && rule.order > winner.order) break;
        if (matchesRest(rule, path)) {
          winner = rule;
          break;
        }
      }
    }
    return winner === undefined ? ALLOWED_BY_DEFAULT : winner.verdict;
  }
}

/**
 * Compiles the rules of one agent (in file order). Empty patterns are dropped: they match everything
 * with priority 0 and so never decide anything (RFC 9309 2.2.2, Google).
 */
export function compileMatcher(sources: readonly RuleSource[], options: MatchOptions): PathMatcher {
  const rules = sources
    .filter((source) => source.pattern.length > 0)
    .map((s) => new CompiledRule(s, options.wildcards));
  if (options.precedence === 'first') return new ScanMatcher(rules);
  rules.sort(byDecisionOrder);
  rules.forEach((rule, order) => {
    rule.order = order;
  });
  return rules.length < INDEX_THRESHOLD ? new ScanMatcher(rules) : new IndexedMatcher(rules);
}
