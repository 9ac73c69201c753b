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
import { compileMatcher, type PathMatcher } from './matcher.js';
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
  for (const [key, value] of Object.entries(from)) {
    const held = into[key];
    if (held === 'n' || held === 'no') continue;
    into[key] = value;
  }
}

interface CompiledUsageRule {
  readonly line: UsageLine;
  /** Pattern length for longest match: no pattern counts as `/`. */
  readonly length: number;
  readonly matcher: PathMatcher | undefined;
}

/**
 * The usage lines that concern one agent (its groups' lines and the file-level ones), ready to answer
 * for a path. Each Content-Usage pattern gets a one-rule matcher from the engine's own matcher, so
 * `*`, `$` and percent forms match exactly as in Allow/Disallow.
 */
export class AgentUsage {
  readonly #rules: CompiledUsageRule[] = [];
  readonly #signals: Record<string, string> | undefined;
  readonly #signalLines: number[] = [];

  constructor(lines: readonly UsageLine[], wildcards: boolean) {
    let signals: Record<string, string> | undefined;
    for (const line of lines) {
      if (line.prefs === undefined) continue;
      if (line.kind === 'content-signal') {
        signals ??= Object.create(null) as Record<string, string>;
        mergeRestrictive(signals, line.prefs);
        this.#signalLines.push(line.line);
        continue;
      }
      const pattern = line.pattern;
      const matcher =
        pattern === undefined || pattern === '/'
          ? undefined
          : compileMatcher([{ lines: [-line.line], patterns: [pattern] }], {
              wildcards,
              precedence: 'longest',
            });
      this.#rules.push({ line, length: pattern === undefined ? 1 : pattern.length, matcher });
    }
    this.#signals = signals;
  }

  /** Whether any line concerns this agent. */
  get empty(): boolean {
    return this.#rules.length === 0 && this.#signals === undefined;
  }

  /** The preferences for the path text[start, end); undefined when no line says anything for it. */
  preferences(text: string, start: number, end: number): UsagePreferences | undefined {
    let longest = -1;
    let usage: Record<string, string> | undefined;
    const lines: number[] = [];
    for (const rule of this.#rules) {
      if (rule.length < longest) continue;
      const matches = rule.matcher === undefined || rule.matcher.decide(text, start, end).rule !== undefined;
      if (!matches) continue;
      if (rule.length > longest) {
        longest = rule.length;
        usage = Object.create(null) as Record<string, string>;
        lines.length = 0;
      }
      mergeRestrictive(usage as Record<string, string>, rule.line.prefs as Record<string, string>);
      lines.push(rule.line.line);
    }
    if (usage === undefined && this.#signals === undefined) return undefined;
    const all = [...lines, ...this.#signalLines].sort((a, b) => a - b);
    return {
      ...(usage !== undefined ? { contentUsage: Object.freeze({ ...usage }) } : {}),
      ...(this.#signals !== undefined ? { contentSignal: Object.freeze({ ...this.#signals }) } : {}),
      lines: all,
    };
  }
}
