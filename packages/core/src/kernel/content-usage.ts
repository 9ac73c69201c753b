/**
 * The AI usage vocabulary shared by robots.txt (engine/usage.ts), response headers and the adapters
 * (browser pages included, which may use only the kernel): the purposes a crawl may have, the terms
 * the two vocabularies use for each, whether preferences refuse a purpose, and the RFC 9651
 * dictionary the IETF aipref preferences are written in (draft-ietf-aipref-vocab,
 * draft-ietf-aipref-attach; Cloudflare's Content Signals, contentsignals.org). Pure functions.
 */
import { headerLines } from './headers.js';

/** The labels preferences give, in either vocabulary (engine/types.ts' UsagePreferences adds where from). */
export interface UsageLabels {
  /** Content-Usage labels of the longest matching rule(s), e.g. `{ 'train-ai': 'n' }`. */
  readonly contentUsage?: Readonly<Record<string, string>>;
  /** Content-Signal signals for the agent (its groups and the file level), e.g. `{ 'ai-train': 'no' }`. */
  readonly contentSignal?: Readonly<Record<string, string>>;
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
  prefs: UsageLabels | undefined,
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
 * without a value; parameters dropped. A repeated key keeps its last value (RFC 9651 4.2.2), except
 * that an explicit `n` is never overwritten: several Content-Usage header lines reach us joined into
 * one value (RFC 9110 5.3), so `train-ai=n` then `train-ai=y` is one dictionary with a repeated key,
 * and the order of two headers (or of two rules in a line) must not decide against the site's no,
 * as it does not between two robots.txt lines (engine/usage.ts, ties are not permissive; aipref
 * attach: on equal paths the most restrictive preference wins). Undefined when the text is not a
 * dictionary (the whole field fails, as RFC 9651 4.2 says).
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
    if (prefs[key] !== 'n') prefs[key] = value;
    reader.skipSpaces(true);
    if (reader.at >= text.length) return prefs;
    if (reader.char() !== 0x2c) return undefined;
    reader.at++;
    reader.skipSpaces(true);
    if (reader.at >= text.length) return undefined;
  }
}

/**
 * The `Content-Usage` HTTP response header (draft-ietf-aipref-attach): the same dictionary, for the
 * content of that one response. Its lines (headers.ts `headerLines`) are joined with `, ` first
 * (RFC 9110 5.3); empty lines are dropped (empty list members, RFC 9110 5.6.1). Undefined when
 * absent or malformed.
 */
export function parseContentUsageHeader(
  value: string | readonly string[] | null | undefined,
): Readonly<Record<string, string>> | undefined {
  if (value === null || value === undefined) return undefined;
  const joined = headerLines(value)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(', ');
  const prefs = parseUsagePref(joined);
  return prefs === undefined || Object.keys(prefs).length === 0 ? undefined : Object.freeze({ ...prefs });
}
