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
import { compileMatcher, type PathMatcher } from './matcher.js';

/** Which of the two lines a usage line is. */
export type UsageLineKind = 'content-usage' | 'content-signal';

/** One Content-Usage or Content-Signal line as parsed. */
export interface UsageLine {
  readonly kind: UsageLineKind;
  /** 1-based line number. */
  readonly line: number;
  /** Content-Usage only: the path pattern, escaped as Allow/Disallow patterns are; absent: every path. */
  readonly pattern?: string;
  /** The preference text as written (after the path pattern), kept for serialising and showing. */
  readonly value: string;
  /** Label -> value (`y`, `n`, `yes`, `no`, or an unknown item as written); undefined when malformed. */
  readonly prefs: Readonly<Record<string, string>> | undefined;
}

/** The preferences that apply to one URL for one agent; only present keys say anything. */
export interface UsagePreferences {
  /** Content-Usage labels of the longest matching rule(s), e.g. `{ 'train-ai': 'n' }`. */
  readonly contentUsage?: Readonly<Record<string, string>>;
  /** Content-Signal signals for the agent (its groups and the file level), e.g. `{ 'ai-train': 'no' }`. */
  readonly contentSignal?: Readonly<Record<string, string>>;
  /** The robots.txt lines they come from, in file order. */
  readonly lines: readonly number[];
}

/** What a crawl is for (the `purpose` option). */
export type UsagePurpose = 'search' | 'ai-input' | 'ai-train';

export const USAGE_PURPOSES: readonly UsagePurpose[] = ['search', 'ai-input', 'ai-train'];

/**
 * The two vocabularies' terms for each purpose: `ai-input` (content as input to an AI answer: RAG,
 * grounding) has no aipref term; aipref's `search` and Cloudflare's `search` differ at the edges
 * (Cloudflare's excludes AI summaries, which it files under `ai-input`).
 */
export const PURPOSE_TERMS: Readonly<
  Record<UsagePurpose, { readonly contentUsage?: string; readonly contentSignal: string }>
> = {
  search: { contentUsage: 'search', contentSignal: 'search' },
  'ai-input': { contentSignal: 'ai-input' },
  'ai-train': { contentUsage: 'train-ai', contentSignal: 'ai-train' },
};

/** Which line said no to a purpose. */
export interface UsageRefusal {
  readonly purpose: UsagePurpose;
  readonly by: 'Content-Usage' | 'Content-Signal';
  /** The label or signal that said no (`train-ai`, `ai-train`, ...). */
  readonly label: string;
  /** `robots.txt`, or the response's `Content-Usage` header. */
  readonly source: 'robots.txt' | 'header';
}

/**
 * Whether the preferences refuse `purpose`: a no in either vocabulary refuses (when both are present
 * and disagree, the no wins: the aipref rule for combining preferences, and the reading a site owner
 * who wrote either would expect). Content-Usage is looked at first, so it is the one named.
 */
export function refusalOf(
  prefs: Pick<UsagePreferences, 'contentUsage' | 'contentSignal'> | undefined,
  purpose: UsagePurpose,
  source: UsageRefusal['source'] = 'robots.txt',
): UsageRefusal | undefined {
  if (prefs === undefined) return undefined;
  const terms = PURPOSE_TERMS[purpose];
  if (terms.contentUsage !== undefined && prefs.contentUsage?.[terms.contentUsage] === 'n') {
    return { purpose, by: 'Content-Usage', label: terms.contentUsage, source };
  }
  if (prefs.contentSignal?.[terms.contentSignal] === 'no') {
    return { purpose, by: 'Content-Signal', label: terms.contentSignal, source };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// RFC 9651 dictionary (the aipref usage-pref), read far enough to find each member's bare item.

const isLcAlpha = (c: number) => c >= 0x61 && c <= 0x7a;
const isAlpha = (c: number) => isLcAlpha(c) || (c >= 0x41 && c <= 0x5a);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** tchar of RFC 9110 5.6.2, plus `:` and `/` (RFC 9651 sf-token). */
const TOKEN_CHARS = new Set("!#$%&'*+-.^_`|~:/");
const isTokenChar = (c: number) => isAlpha(c) || isDigit(c) || TOKEN_CHARS.has(String.fromCharCode(c));
const isKeyChar = (c: number) =>
  isLcAlpha(c) || isDigit(c) || c === 0x5f || c === 0x2d || c === 0x2e || c === 0x2a;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

class DictionaryReader {
  at = 0;
  constructor(readonly text: string) {}

  char(): number {
    return this.text.charCodeAt(this.at);
  }

  skipSpaces(withTabs: boolean): void {
    for (;;) {
      const c = this.char();
      if (c !== 0x20 && !(withTabs && c === 0x09)) return;
      this.at++;
    }
  }

  /** sf-key, or undefined. */
  key(): string | undefined {
    const start = this.at;
    const first = this.char();
    if (!isLcAlpha(first) && first !== 0x2a) return undefined;
    this.at++;
    while (this.at < this.text.length && isKeyChar(this.char())) this.at++;
    return this.text.slice(start, this.at);
  }

  /** A bare item, as written; undefined when malformed. */
  bareItem(): string | undefined {
    const start = this.at;
    return this.#item() ? this.text.slice(start, this.at) : undefined;
  }

  /** Reads one bare item of RFC 9651 3.3: integer or decimal, string, boolean, byte sequence, date, display string, token. */
  #item(): boolean {
    const c = this.char();
    if (c === 0x2d || isDigit(c)) return this.#number();
    if (c === 0x22) return this.#string();
    if (c === 0x3f) return this.#boolean();
    if (c === 0x3a) return this.#bytes();
    if (c === 0x40) {
      this.at++;
      return this.#number();
    }
    if (c === 0x25) {
      this.at++;
      return this.char() === 0x22 && this.#string();
    }
    return (isAlpha(c) || c === 0x2a) && this.#token();
  }

  #number(): boolean {
    if (this.char() === 0x2d) this.at++;
    const start = this.at;
    while (isDigit(this.char())) this.at++;
    if (this.at === start || this.at - start > 15) return false;
    if (this.char() !== 0x2e) return true;
    this.at++;
    const fraction = this.at;
    while (isDigit(this.char())) this.at++;
    return this.at > fraction && this.at - fraction <= 3 && fraction - start <= 13;
  }

  #string(): boolean {
    this.at++;
    while (this.at < this.text.length) {
      const c = this.char();
      this.at++;
      if (c === 0x22) return true;
      if (c === 0x5c) {
        const next = this.char();
        if (next !== 0x22 && next !== 0x5c) return false;
        this.at++;
      } else if (c < 0x20 || c > 0x7e) return false;
    }
    return false;
  }

  #boolean(): boolean {
    this.at++;
    const c = this.char();
    if (c !== 0x30 && c !== 0x31) return false;
    this.at++;
    return true;
  }

  #bytes(): boolean {
    this.at++;
    while (this.at < this.text.length && BASE64_CHAR.test(this.text[this.at] as string)) this.at++;
    if (this.char() !== 0x3a) return false;
    this.at++;
    return true;
  }

  #token(): boolean {
    this.at++;
    while (this.at < this.text.length && isTokenChar(this.char())) this.at++;
    return true;
  }

  /** `*( ";" *SP key [ "=" bare-item ] )`: read and dropped (no label of ours has parameters). */
  parameters(): boolean {
    while (this.char() === 0x3b) {
      this.at++;
      this.skipSpaces(false);
      if (this.key() === undefined) return false;
      if (this.char() === 0x3d) {
        this.at++;
        if (this.bareItem() === undefined) return false;
      }
    }
    return true;
  }

  /** An inner list `( item item ... )` with its parameters, as written. */
  innerList(): string | undefined {
    const start = this.at;
    this.at++;
    for (;;) {
      this.skipSpaces(false);
      if (this.char() === 0x29) {
        this.at++;
        return this.parameters() ? this.text.slice(start, this.at) : undefined;
      }
      if (this.bareItem() === undefined || !this.parameters()) return undefined;
      const c = this.char();
      if (c !== 0x20 && c !== 0x29) return undefined;
    }
  }
}

/**
 * An RFC 9651 dictionary: member key -> its bare item (or inner list) as written, `?1` for a member
 * without a value; parameters dropped; a repeated key keeps its last value. Undefined when the text is
 * not a dictionary (the whole field fails, as RFC 9651 4.2 says).
 */
export function parseUsagePref(text: string): Record<string, string> | undefined {
  const reader = new DictionaryReader(text);
  const prefs: Record<string, string> = Object.create(null);
  reader.skipSpaces(false);
  if (reader.at === text.length) return prefs;
  for (;;) {
    const key = reader.key();
    if (key === undefined) return undefined;
    let value = '?1';
    if (reader.char() === 0x3d) {
      reader.at++;
      const item = reader.char() === 0x28 ? reader.innerList() : reader.bareItem();
      if (item === undefined) return undefined;
      value = item;
    }
    if (!reader.parameters()) return undefined;
    prefs[key] = value;
    reader.skipSpaces(true);
    if (reader.at >= text.length) return prefs;
    if (reader.char() !== 0x2c) return undefined;
    reader.at++;
    reader.skipSpaces(true);
    if (reader.at >= text.length) return undefined;
  }
}

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
  if (kind === 'content-signal') return { kind, line, value, prefs: parseContentSignal(value) };
  const { pattern, pref } = splitContentUsage(value);
  const prefs = parseUsagePref(pref);
  return pattern === undefined
    ? { kind, line, value: pref, prefs }
    : { kind, line, pattern: escapePath(pattern), value: pref, prefs };
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

/**
 * The `Content-Usage` HTTP response header (draft-ietf-aipref-attach): the same dictionary, for the
 * content of that one response. Several header lines are joined with `, ` first (RFC 9110 5.3).
 * Undefined when absent or malformed.
 */
export function parseContentUsageHeader(
  value: string | readonly string[] | null | undefined,
): Readonly<Record<string, string>> | undefined {
  if (value === null || value === undefined) return undefined;
  const joined = typeof value === 'string' ? value : value.join(', ');
  const prefs = parseUsagePref(joined.trim());
  return prefs === undefined || Object.keys(prefs).length === 0 ? undefined : Object.freeze({ ...prefs });
}
