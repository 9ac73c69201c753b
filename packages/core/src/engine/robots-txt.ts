/**
 * A parsed robots.txt: groups of rules, sitemaps, and per-agent compiled matchers built on demand.
 */
import type { Group } from './groups.js';
import { ALLOWED_BY_DEFAULT, compiledBytesOf, compileMatcher, type PathMatcher } from './matcher.js';
import type { MatchingOptions } from './options.js';
import { canonicalPath } from './percent.js';
import type { RuleList } from './rules.js';
import {
  decodeSerialized,
  encodeSerialized,
  type RobotsTxtData,
  type SerializedRobotsTxt,
} from './serialize.js';
import type { AgentRules, MatchedRule, Verdict } from './types.js';
import { locatePath, type PathRange } from './url.js';
import { AgentUsage, type UsageLine, type UsagePreferences } from './usage.js';

/** Compiled agents kept per RobotsTxt; a crawler asks for one or two tokens, so this is generous. */
const AGENT_CACHE_SIZE = 32;
/** A compiled agent's own object, its matcher aside. */
const AGENT_BYTES = 120;

function requireString(value: unknown, what: string, caller: string): asserts value is string {
  if (typeof value !== 'string')
    throw new TypeError(`${caller}: ${what} must be a string, got ${typeof value}`);
}

class CompiledAgentRules implements AgentRules {
  readonly productToken: string;
  readonly crawlDelay: number | undefined;
  readonly #matcher: PathMatcher;
  readonly #canonicalPercent: boolean;
  /** The rule lists of the agent's groups (shared with the groups). */
  readonly #lists: readonly RuleList[];
  /** Reused for every check (checks are synchronous): locating a path allocates nothing. */
  readonly #path: PathRange = { text: '', start: 0, end: 0, origin: '' };
  readonly usageLines: readonly UsageLine[];
  #usage: AgentUsage | undefined;
  readonly #wildcards: boolean;

  constructor(
    productToken: string,
    lists: readonly RuleList[],
    matcher: PathMatcher,
    crawlDelay: number | undefined,
    canonicalPercent: boolean,
    usageLines: readonly UsageLine[] = [],
    wildcards = true,
  ) {
    this.productToken = productToken;
    this.usageLines = usageLines;
    this.#wildcards = wildcards;
    this.#lists = lists;
    this.#matcher = matcher;
    this.crawlDelay = crawlDelay;
    this.#canonicalPercent = canonicalPercent;
  }

  /**
   * Built on each call (rarely asked: tools, diffs). A rule on the same line as the one before it is
   * Google's index-page rule derived from it (parsed-group.ts), not a line of the file: left out, as
   * are empty patterns, which decide nothing.
   */
  get rules(): readonly MatchedRule[] {
    const rules: MatchedRule[] = [];
    for (const { lines, patterns } of this.#lists) {
      patterns.forEach((pattern, i) => {
        const signedLine = lines[i] ?? 0;
        if (pattern.length === 0 || (i > 0 && lines[i - 1] === signedLine)) return;
        rules.push({
          directive: signedLine > 0 ? 'allow' : 'disallow',
          pattern,
          line: Math.abs(signedLine),
        });
      });
    }
    return rules;
  }

  check(url: string): Verdict {
    requireString(url, 'url', 'check');
    // No rules: every path is allowed, whatever the URL.
    if (this.#matcher.ruleCount === 0) return ALLOWED_BY_DEFAULT;
    const path = this.#path;
    locatePath(url, path);
    if (this.#canonicalPercent) {
      // RFC 9309 2.2.2: the path's %XX in the patterns' form (percent.ts); a path without `%` is as is.
      const canonical = canonicalPath(path.text, path.start, path.end);
      if (canonical !== undefined) return this.#matcher.decide(canonical, 0, canonical.length);
    }
    return this.#matcher.decide(path.text, path.start, path.end);
  }

  usage(url: string): UsagePreferences | undefined {
    requireString(url, 'url', 'usage');
    if (this.usageLines.length === 0) return undefined;
    // Preferences apply only to paths the crawler may fetch at all (draft-ietf-aipref-attach).
    if (!this.check(url).allowed) return undefined;
    const { text, start, end } = this.#path;
    const canonical = this.#canonicalPercent ? canonicalPath(text, start, end) : undefined;
    this.#usage ??= new AgentUsage(this.usageLines, this.#wildcards);
    return canonical === undefined
      ? this.#usage.preferences(text, start, end)
      : this.#usage.preferences(canonical, 0, canonical.length);
  }

  isAllowed(url: string): boolean {
    return this.check(url).allowed;
  }

  get estimatedBytes(): number {
    return AGENT_BYTES + this.#matcher.estimatedBytes;
  }
}

/**
 * Per rule of a group's list: a pattern slot (8 bytes), a line (4, Int32Array) and a string header, a
 * sliced string being the largest (32): measured 42 bytes a rule beside the text on the hostile 500 KB
 * file (52 while lines were an array grown by push). Kept above that, as matcher.ts's BYTES_PER_RULE.
 */
const LIST_BYTES_PER_RULE = 56;

export class RobotsTxt {
  /** Every Sitemap URL in the file, trimmed, in file order. */
  readonly sitemaps: readonly string[];
  /** The body was longer than maxBytes and was cut (at the last complete line before the limit). */
  readonly truncated: boolean;
  /** Bytes of the body that were read (at most maxBytes). */
  readonly byteLength: number;
  readonly #groups: readonly Group[];
  readonly #options: MatchingOptions;
  readonly #usage: readonly UsageLine[];
  /** Created on first use: many parsed files are serialised or dropped before any agent asks. */
  #agents: Map<string, CompiledAgentRules> | undefined;
  /**
   * Compiled matchers by the groups they were compiled from (their indices): crawlers' tokens mostly
   * fall to the same group (`*`), and one matcher, its index and its verdicts then serve them all.
   */
  #matchers: Map<string, PathMatcher> | undefined;
  /** The token asked last and its rules: a crawler asks with the same string every time. */
  #lastToken: string | undefined;
  #lastAgent: CompiledAgentRules | undefined;

  /** Use parseRobotsTxt or RobotsTxt.fromJSON; the constructor takes already-validated parts. */
  constructor(data: RobotsTxtData) {
    this.#groups = data.groups;
    this.sitemaps = Object.freeze([...data.sitemaps]);
    this.truncated = data.truncated;
    this.byteLength = data.byteLength;
    this.#options = data.options;
    this.#usage = data.usage ?? [];
  }

  /** The compiled rules of one product token (cached inside this object). */
  forAgent(productToken: string): AgentRules {
    if (productToken === this.#lastToken) return this.#lastAgent as CompiledAgentRules;
    const agent = this.#agentRules(productToken);
    this.#lastToken = productToken;
    this.#lastAgent = agent;
    return agent;
  }

  #agentRules(productToken: string): CompiledAgentRules {
    // Keyed by the token as given first, so repeated calls with the same string skip lower-casing.
    this.#agents ??= new Map();
    const agents = this.#agents;
    const cached = agents.get(productToken);
    if (cached !== undefined) return cached;
    requireString(productToken, 'productToken', 'forAgent');
    const key = productToken.toLowerCase();
    let agent = agents.get(key);
    if (agents.size >= AGENT_CACHE_SIZE) {
      agents.clear();
      this.#matchers?.clear();
    }
    if (agent === undefined) {
      agent = this.#compile(productToken, key);
      agents.set(key, agent);
    }
    agents.set(productToken, agent);
    return agent;
  }

  isAllowed(url: string, productToken: string): boolean {
    return this.forAgent(productToken).isAllowed(url);
  }

  check(url: string, productToken: string): Verdict {
    return this.forAgent(productToken).check(url);
  }

  /** AI usage preferences for the URL and agent (AgentRules#usage): undefined when none apply. */
  usage(url: string, productToken: string): UsagePreferences | undefined {
    return this.forAgent(productToken).usage(url);
  }

  /** Crawl-delay in seconds for the agent's group(s); undefined when absent or invalid. */
  crawlDelay(productToken: string): number | undefined {
    return this.forAgent(productToken).crawlDelay;
  }

  /**
   * What this object holds in memory, in bytes, as an estimate from the structures it builds (checked
   * against heap measurements in test/memory): the text its rules keep (the body while patterns are
   * slices of it, else the patterns; twice when escaping made copies), each rule list's slots, and the
   * compiled rules: of every agent compiled so far, or when none is yet, of one agent compiling every
   * rule (an upper bound for the agent a crawler asks about next). Escapes every group's rules.
   */
  estimateBytes(): number {
    let rules = 0;
    let chars = 0;
    let copied = 0;
    for (const group of this.#groups) {
      const { patterns } = group.rules;
      rules += patterns.length;
      for (const pattern of patterns) {
        chars += pattern.length;
        if (pattern.indexOf('%') !== -1) copied += pattern.length;
      }
    }
    let sitemaps = 0;
    for (const sitemap of this.sitemaps) sitemaps += 40 + sitemap.length;
    const text = Math.max(this.byteLength, chars) * (copied > 0 ? 2 : 1) + copied;
    let compiled = 0;
    for (const [key, agent] of this.#agents ?? [])
      if (key === agent.productToken.toLowerCase()) compiled += AGENT_BYTES;
    // Each matcher once, however many agents share it.
    for (const matcher of this.#matchers?.values() ?? []) compiled += matcher.estimatedBytes;
    if (compiled === 0) compiled = compiledBytesOf(rules);
    return 400 + this.#groups.length * 200 + rules * LIST_BYTES_PER_RULE + text + sitemaps + compiled;
  }

  toJSON(): SerializedRobotsTxt {
    return encodeSerialized(
      this.#groups,
      this.sitemaps,
      this.truncated,
      this.byteLength,
      this.#options,
      this.#usage,
    );
  }

  /** Rebuilds a RobotsTxt from toJSON() output; TypeError naming the problem for anything else. */
  static fromJSON(value: unknown): RobotsTxt {
    return new RobotsTxt(decodeSerialized(value));
  }

  /** Groups of the agent (RFC 9309 2.2.1): its own groups merged, else the `*` groups merged. */
  #select(key: string): readonly Group[] {
    const substring = this.#options.agentMatching === 'substring';
    const own = this.#groups.filter((group) =>
      substring ? group.agents.some((agent) => key.includes(agent)) : group.agents.includes(key),
    );
    return own.length > 0 ? own : this.#groups.filter((group) => group.global);
  }

  #compile(productToken: string, key: string): CompiledAgentRules {
    const groups = key.length === 0 ? this.#groups.filter((group) => group.global) : this.#select(key);
    // Merged groups: the first valid Crawl-delay in file order wins.
    const crawlDelay = groups.find((group) => group.crawlDelay !== undefined)?.crawlDelay;
    const lists = groups.map((group) => group.rules);
    const selection = groups.map((group) => this.#groups.indexOf(group)).join(',');
    this.#matchers ??= new Map();
    let matcher = this.#matchers.get(selection);
    if (matcher === undefined) {
      matcher = compileMatcher(lists, this.#options);
      this.#matchers.set(selection, matcher);
    }
    // File-level usage lines apply to every agent; all in file order.
    const usage = [...this.#usage, ...groups.flatMap((group) => group.usage ?? [])];
    usage.sort((a, b) => a.line - b.line);
    return new CompiledAgentRules(
      productToken,
      lists,
      matcher,
      crawlDelay,
      this.#options.percentEncoding === 'rfc',
      usage,
      this.#options.wildcards,
    );
  }
}
