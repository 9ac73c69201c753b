/**
 * AI usage preferences in robots.txt: the IETF aipref `Content-Usage` rule and Cloudflare's
 * `Content-Signal` line.
 *
 * - `Content-Usage: [path-pattern] usage-pref` (draft-ietf-aipref-attach, which updates RFC 9309): a
 *   rule inside a group; its preferences are an RFC 9651 dictionary in the vocabulary of
 *   draft-ietf-aipref-vocab (`train-ai`, `search`; `y` / `n`). Path-scoped like Allow/Disallow by
 *   longest match, but rules of the same length do not resolve to the permissive side: they are
 *   combined, and `n` wins over `y` for a label (the combination rule of the aipref vocabulary).
 *   Without a path pattern a rule covers every path, as `/` would.
 * - `Content-Signal: search=yes, ai-train=no, ai-input=yes` (Cloudflare's Content Signals Policy,
 *   contentsignals.org): inside a group or, as found in the wild, at file level (before any User-agent
 *   line: it then applies to every crawler). Not path-scoped here; an omitted signal is no preference.
 *
 * Unknown labels and signals are kept as written (the vocabularies are drafts and will change), never
 * an error; a value that is not a dictionary makes that line say nothing (RFC 9651: a parse failure
 * fails the whole field), which `lint` reports.
 *
 * Grouping is unchanged by these lines: they attach to the group being read and never end a run of
 * User-agent lines, so Allow/Disallow verdicts stay exactly Google's.
 */
import { parseUsagePref } from '../kernel/content-usage.js';
import { compiledBytesOf, compileMatcher, type PathMatcher } from './matcher.js';
import type { UsageLine, UsageLineKind, UsagePreferences } from './types.js';

export {
  PURPOSE_TERMS,
  parseContentUsageHeader,
  parseUsagePref,
  refusalOf,
  USAGE_PURPOSES,
  type UsagePurpose,
  type UsageRefusal,
} from '../kernel/content-usage.js';

export type { UsageLine, UsageLineKind, UsagePreferences } from './types.js';

/**
 * A Content-Signal value, `name=value` pairs separated by commas: names lower-cased, values
 * lower-cased and trimmed (`yes` / `no` are the ones that say something). Undefined when a pair has no
 * `=` or an empty name: the line is then malformed and says nothing.
 */
export function parseContentSignal(text: string): Record<string, string> | undefined {
  const signals: Record<string, string> = Object.create(null);
  if (text.trim() === '') return signals;
  for (const pair of text.split(',')) {
    const equals = pair.indexOf('=');
    if (equals === -1) return undefined;
    const name = pair.slice(0, equals).trim().toLowerCase();
    if (name === '' || /\s/.test(name)) return undefined;
    signals[name] = pair
      .slice(equals + 1)
      .trim()
      .toLowerCase();
  }
  return signals;
}

/**
 * The two parts of a Content-Usage value: an optional path pattern (starting with `/` or `*`, ending at
 * the first blank) and the usage-pref after it.
 */
export function splitContentUsage(value: string): { pattern?: string; pref: string } {
  const first = value.charCodeAt(0);
  if (first !== 0x2f && first !== 0x2a) return { pref: value };
  const blank = value.search(/[ \t]/);
  if (blank === -1) return { pattern: value, pref: '' };
  return { pattern: value.slice(0, blank), pref: value.slice(blank + 1).trim() };
}

/**
 * A usage line from its value. `escape` turns a raw path pattern into the form Allow/Disallow patterns
 * take (escape.ts), so both are matched alike.
 */
export function usageLine(
  kind: UsageLineKind,
  line: number,
  value: string,
  escapePath: (pattern: string) => string,
): UsageLine {
  if (kind === 'content-signal') return new LazyUsageLine(kind, line, value, undefined);
  const { pattern, pref } = splitContentUsage(value);
  return new LazyUsageLine(kind, line, pref, pattern === undefined ? undefined : escapePath(pattern));
}

/**
 * A usage line whose preferences are read on first use: a parse only keeps the line (most files are
 * asked about one agent, whose lines are then read once), so files full of them parse at the old pace.
 */
class LazyUsageLine implements UsageLine {
  readonly kind: UsageLineKind;
  readonly line: number;
  readonly value: string;
  readonly pattern?: string;
  #prefs: Readonly<Record<string, string>> | undefined | null = null;

  constructor(kind: UsageLineKind, line: number, value: string, pattern: string | undefined) {
    this.kind = kind;
    this.line = line;
    this.value = value;
    if (pattern !== undefined) this.pattern = pattern;
  }

  get prefs(): Readonly<Record<string, string>> | undefined {
    if (this.#prefs === null) {
      this.#prefs =
        this.kind === 'content-signal' ? parseContentSignal(this.value) : parseUsagePref(this.value);
    }
    return this.#prefs;
  }
}

/** Known values a label or signal may take; anything else is kept but says nothing. */
export function isKnownValue(kind: UsageLineKind, value: string): boolean {
  return kind === 'content-usage' ? value === 'y' || value === 'n' : value === 'yes' || value === 'no';
}

/** Merges `from` into `into`, a `n`/`no` never overwritten by anything else (ties are not permissive). */
function mergeRestrictive(into: Record<string, string>, from: Readonly<Record<string, string>>): void {
  // `from` is a parsed dictionary without a prototype: for-in sees its own keys only.
  for (const key in from) {
    const held = Object.hasOwn(into, key) ? into[key] : undefined;
    if (held === 'n' || held === 'no') continue;
    into[key] = from[key] as string;
  }
}

/**
 * Bytes a compiled usage line costs beyond what the parse holds and the matcher's own (compiledBytesOf,
 * 88): its slots in the lists (pattern, line, the line object) and its parsed preferences, a
 * dictionary object. Measured on 500 KB files of 10,594 wildcard Content-Usage lines:
 * 266 bytes a line in all, matcher included; kept above that, as the matcher's BYTES_PER_RULE is.
 */
const COMPILED_LINE_BYTES = 200;
/** An AgentUsage's own object and its arrays' headers. */
const AGENT_USAGE_BYTES = 300;

/** What an AgentUsage compiled from `contentUsageLines` Content-Usage lines holds (estimatedBytes). */
export function usageBytesOf(contentUsageLines: number): number {
  return AGENT_USAGE_BYTES + compiledBytesOf(contentUsageLines) + contentUsageLines * COMPILED_LINE_BYTES;
}

/**
 * The usage lines that concern one agent group (its groups' lines and the file-level ones), ready to
 * answer for a path. The Content-Usage patterns are one rule set of the engine's own matcher, with its
 * prefix index, so `*`, `$` and percent forms match exactly as in Allow/Disallow and a check costs what
 * an Allow/Disallow check does, not a pass over every line: the matcher hands back every matching
 * pattern of the longest length, which are combined. A line without a pattern covers every path, as
 * `/` does: it is that rule.
 */
export class AgentUsage {
  /** The Content-Usage lines that say something, in file order: rule i of the matcher is line i. */
  readonly #lines: UsageLine[] = [];
  readonly #matcher: PathMatcher | undefined;
  readonly #signals: Readonly<Record<string, string>> | undefined;
  readonly #signalLines: number[] = [];

  constructor(lines: readonly UsageLine[], wildcards: boolean) {
    let signals: Record<string, string> | undefined;
    const patterns: string[] = [];
    for (const line of lines) {
      if (line.prefs === undefined) continue;
      if (line.kind === 'content-signal') {
        signals ??= Object.create(null) as Record<string, string>;
        mergeRestrictive(signals, line.prefs);
        this.#signalLines.push(line.line);
        continue;
      }
      this.#lines.push(line);
      patterns.push(line.pattern ?? '/');
    }
    // Frozen once: every answer hands out the same copy.
    this.#signals = signals === undefined ? undefined : Object.freeze({ ...signals });
    if (patterns.length > 0) {
      // Every rule an allow (a positive line): the rank is then the pattern's length alone.
      const ruleLines = Int32Array.from(patterns, (_, i) => i + 1);
      this.#matcher = compileMatcher([{ lines: ruleLines, patterns }], { wildcards, precedence: 'longest' });
    }
  }

  /** Whether any line concerns this agent. */
  get empty(): boolean {
    return this.#matcher === undefined && this.#signals === undefined;
  }

  /** What this holds in memory, in bytes (RobotsTxt#estimateBytes); the lines themselves aside. */
  get estimatedBytes(): number {
    const matcher = this.#matcher;
    if (matcher === undefined) return AGENT_USAGE_BYTES + this.#signalLines.length * 8;
    // The matcher's own estimate counts its index and cached verdicts; compiledBytesOf is in usageBytesOf.
    return usageBytesOf(this.#lines.length) - compiledBytesOf(this.#lines.length) + matcher.estimatedBytes;
  }

  /** The preferences for the path text[start, end); undefined when no line says anything for it. */
  preferences(text: string, start: number, end: number): UsagePreferences | undefined {
    let contentUsage: Record<string, string> | undefined;
    let lines: number[] = [];
    const matched = this.#matcher?.longestMatches(text, start, end);
    if (matched !== undefined && matched.length > 0) {
      // A plain object, filled and frozen in place (copying a null-prototype one cost most of a
      // call): its keys are RFC 9651 keys, a lower-case letter or `*` first, so never `__proto__`.
      contentUsage = {};
      // In file order (the matcher's decision order among rules of one length), as the rules of one
      // length were combined before: a later value wins, except over an `n`.
      for (const index of matched) {
        const line = this.#lines[index] as UsageLine;
        mergeRestrictive(contentUsage, line.prefs as Record<string, string>);
        lines.push(line.line);
      }
      Object.freeze(contentUsage);
    }
    const contentSignal = this.#signals;
    if (contentUsage === undefined && contentSignal === undefined) return undefined;
    if (this.#signalLines.length > 0) lines = lines.concat(this.#signalLines).sort((a, b) => a - b);
    if (contentSignal === undefined) return { contentUsage: contentUsage as Record<string, string>, lines };
    return contentUsage === undefined ? { contentSignal, lines } : { contentUsage, contentSignal, lines };
  }
}
