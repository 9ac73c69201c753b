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
import { AgentUsage, type UsageLine, type UsagePreferences, usageBytesOf } from './usage.js';

/** Compiled agents kept per RobotsTxt; a crawler asks for one or two tokens, so this is generous. */
const AGENT_CACHE_SIZE = 32;
/** A compiled agent's own object, its matcher aside. */
const AGENT_BYTES = 120;

function requireString(value: unknown, what: string, caller: string): asserts value is string {
  if (typeof value !== 'string')
    throw new TypeError(`${caller}: ${what} must be a string, got ${typeof value}`);
}

/**
 * The usage lines of one selection of groups, shared by the agents that select them as the matcher is:
 * the lines listed on first ask, compiled (AgentUsage) on the first usage() only. A crawl without a
 * `purpose` never asks (decision-policy.ts), so files full of usage lines cost it nothing but the parse.
 */
class SelectionUsage {
  readonly #fileLevel: readonly UsageLine[];
  readonly #groups: readonly Group[];
  readonly #wildcards: boolean;
  /** Whether any line concerns the selection (without listing them). */
  readonly any: boolean;
  #lines: readonly UsageLine[] | undefined;
  #compiled: AgentUsage | undefined;

  constructor(fileLevel: readonly UsageLine[], groups: readonly Group[], wildcards: boolean) {
    this.#fileLevel = fileLevel;
    this.#groups = groups;
    this.#wildcards = wildcards;
    this.any = fileLevel.length > 0 || groups.some((group) => (group.usage?.length ?? 0) > 0);
  }

  /** File-level usage lines apply to every agent; all in file order. */
  get lines(): readonly UsageLine[] {
    if (this.#lines === undefined) {
      const lines = [...this.#fileLevel, ...this.#groups.flatMap((group) => group.usage ?? [])];
      lines.sort((a, b) => a.line - b.line);
      this.#lines = lines;
    }
    return this.#lines;
  }

  get compiled(): AgentUsage {
    this.#compiled ??= new AgentUsage(this.lines, this.#wildcards);
    return this.#compiled;
  }

  get isCompiled(): boolean {
    return this.#compiled !== undefined;
  }

  /** What the compiled form and the listed lines hold (0 before either is built). */
  get estimatedBytes(): number {
    const listed = this.#lines === undefined ? 0 : 100 + this.#lines.length * 8;
    return listed + (this.#compiled?.estimatedBytes ?? 0);
  }
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
  readonly #usage: SelectionUsage;

  constructor(
    productToken: string,
    lists: readonly RuleList[],
    matcher: PathMatcher,
    crawlDelay: number | undefined,
    canonicalPercent: boolean,
    usage: SelectionUsage,
  ) {
    this.productToken = productToken;
    this.#usage = usage;
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
    const path = this.#locate(url);
    return this.#matcher.decide(path.text, path.start, path.end);
  }

  usage(url: string): UsagePreferences | undefined {
    requireString(url, 'url', 'usage');
    if (!this.#usage.any) return undefined;
    // Located here, not left to check: check skips it when there are no rules.
    const path = this.#locate(url);
    const { text, start, end } = path;
    // Preferences apply only to paths the crawler may fetch at all (draft-ietf-aipref-attach).
    if (this.#matcher.ruleCount > 0 && !this.#matcher.decide(text, start, end).allowed) return undefined;
    return this.#usage.compiled.preferences(text, start, end);
  }

  get usageLines(): readonly UsageLine[] {
    return this.#usage.lines;
  }

  /**
   * The path of `url` in #path (RFC 9309 2.2.2: with rfc percent-encoding, its %XX in the patterns'
   * form, percent.ts; a path without `%` is as is).
   */
  #locate(url: string): PathRange {
    const path = this.#path;
    locatePath(url, path);
    if (this.#canonicalPercent) {
      const canonical = canonicalPath(path.text, path.start, path.end);
      if (canonical !== undefined) {
        path.text = canonical;
        path.start = 0;
        path.end = canonical.length;
      }
    }
    return path;
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
/**
 * A usage line as a parse keeps it (usage.ts' LazyUsageLine, its slot in the group's array, the
 * value copied out of the body and the strings sliced from it), its chars aside: measured 187 bytes a
 * line, chars included, on 500 KB files of 10,594 Content-Usage lines; with the chars and the body
 * length this counts some 240.
 */
const USAGE_LINE_BYTES = 160;

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
  /** The usage lines of each selection, keyed as #matchers (compiled only when usage() is asked). */
  #usages: Map<string, SelectionUsage> | undefined;
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
      this.#usages?.clear();
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
    return (
      400 +
      this.#groups.length * 200 +
      rules * LIST_BYTES_PER_RULE +
      text +
      sitemaps +
      compiled +
      this.#usageBytes()
    );
  }

  /**
   * The usage lines a parse keeps, and their compiled forms: of every selection compiled so far, or
   * while none is, of one compiling every Content-Usage line (an upper bound, as for the rules: the
   * memory tier sizes an entry before any check). Issue 35.3: uncounted, 40 files of 500 KB of
   * Content-Usage lines held 500 MiB under a 16 MiB budget.
   */
  #usageBytes(): number {
    let bytes = 0;
    let contentUsage = 0;
    const add = (lines: readonly UsageLine[] | undefined) => {
      for (const line of lines ?? []) {
        bytes += USAGE_LINE_BYTES + line.value.length + (line.pattern?.length ?? 0);
        if (line.kind === 'content-usage') contentUsage++;
      }
    };
    add(this.#usage);
    for (const group of this.#groups) add(group.usage);
    let compiled = false;
    for (const usage of this.#usages?.values() ?? []) {
      bytes += usage.estimatedBytes;
      compiled ||= usage.isCompiled;
    }
    if (!compiled && contentUsage > 0) bytes += usageBytesOf(contentUsage);
    return bytes;
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
    this.#usages ??= new Map();
    let usage = this.#usages.get(selection);
    if (usage === undefined) {
      usage = new SelectionUsage(this.#usage, groups, this.#options.wildcards);
      this.#usages.set(selection, usage);
    }
    return new CompiledAgentRules(
      productToken,
      lists,
      matcher,
      crawlDelay,
      this.#options.percentEncoding === 'rfc',
      usage,
    );
  }
}
