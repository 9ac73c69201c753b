/**
 * Key recognition, after Key::Parse of Google's robotstxt parser (robots.cc): case-insensitive prefix
 * match, with the misspellings Google accepts, plus the keys its reporting parser knows but ignores.
 */

/**
 * What a line's key was recognised as. `unused`: a key Google knows and ignores (Host, Noindex, ...);
 * `none`: no key/value on the line (blank, comment only, or unparsable).
 */
export type LineKind =
  | 'user-agent'
  | 'allow'
  | 'disallow'
  | 'sitemap'
  | 'crawl-delay'
  | 'content-usage'
  | 'content-signal'
  | 'unused'
  | 'unknown'
  | 'none';

/** A key's kind, and whether it was an accepted misspelling. */
export interface KeyClass {
  readonly kind: LineKind;
  readonly typo: boolean;
}

function codes(word: string): Uint16Array {
  return Uint16Array.from(word, (char) => char.charCodeAt(0));
}

const USER_AGENT = codes('user-agent');
const USER_AGENT_TYPOS = [codes('useragent'), codes('user agent')];
const ALLOW = codes('allow');
const DISALLOW = codes('disallow');
const DISALLOW_TYPOS = ['dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'].map(codes);
const SITEMAP = codes('sitemap');
const SITEMAP_TYPOS = [codes('site-map')];
const CRAWL_DELAY = codes('crawl-delay');
/** AI usage preferences (usage.ts): exact keys, no misspellings. */
const CONTENT_USAGE = codes('content-usage');
const CONTENT_SIGNAL = codes('content-signal');
/** Keys Google's reporting parser tags as known-but-unused (crawl-delay is ours, so it is not here). */
const UNUSED_KEYS = new Set([
  'clean-param',
  'domain',
  'host',
  'noarchive',
  'nofollow',
  'noindex',
  'request-rate',
  'revisit-after',
  'visit-time',
]);

/**
 * Case-insensitive ASCII prefix test. `| 0x20` folds upper to lower case; the only other char it could
 * fold onto `-` is CR, which never occurs inside a line.
 */
function startsWithWord(text: string, start: number, end: number, word: Uint16Array): boolean {
  if (end - start < word.length) return false;
  for (let i = 0; i < word.length; i++) {
    if ((text.charCodeAt(start + i) | 0x20) !== word[i]) return false;
  }
  return true;
}

function startsWithAny(text: string, start: number, end: number, words: readonly Uint16Array[]): boolean {
  for (const word of words) if (startsWithWord(text, start, end, word)) return true;
  return false;
}

/** Key::Parse of Google's parser: recognition by case-insensitive prefix, typos included. */
const USER_AGENT_KEY: KeyClass = Object.freeze({ kind: 'user-agent', typo: false });
const USER_AGENT_TYPO: KeyClass = Object.freeze({ kind: 'user-agent', typo: true });
const ALLOW_KEY: KeyClass = Object.freeze({ kind: 'allow', typo: false });
const DISALLOW_KEY: KeyClass = Object.freeze({ kind: 'disallow', typo: false });
const DISALLOW_TYPO: KeyClass = Object.freeze({ kind: 'disallow', typo: true });
const SITEMAP_KEY: KeyClass = Object.freeze({ kind: 'sitemap', typo: false });
const SITEMAP_TYPO: KeyClass = Object.freeze({ kind: 'sitemap', typo: true });
const CRAWL_DELAY_KEY: KeyClass = Object.freeze({ kind: 'crawl-delay', typo: false });
const CONTENT_USAGE_KEY: KeyClass = Object.freeze({ kind: 'content-usage', typo: false });
const CONTENT_SIGNAL_KEY: KeyClass = Object.freeze({ kind: 'content-signal', typo: false });
const UNUSED_KEY: KeyClass = Object.freeze({ kind: 'unused', typo: false });
const UNKNOWN_KEY: KeyClass = Object.freeze({ kind: 'unknown', typo: false });

export function classifyKey(text: string, start: number, end: number): KeyClass {
  // Dispatch on the first letter: every family Google recognises starts with its own letter, so the
  // order of tests within a family is the order Key::Parse uses.
  switch (text.charCodeAt(start) | 0x20) {
    case 0x75 /* u */:
      if (startsWithWord(text, start, end, USER_AGENT)) return USER_AGENT_KEY;
      if (startsWithAny(text, start, end, USER_AGENT_TYPOS)) return USER_AGENT_TYPO;
      break;
    case 0x61 /* a */:
      if (startsWithWord(text, start, end, ALLOW)) return ALLOW_KEY;
      break;
    case 0x64 /* d */:
      if (startsWithWord(text, start, end, DISALLOW)) return DISALLOW_KEY;
      if (startsWithAny(text, start, end, DISALLOW_TYPOS)) return DISALLOW_TYPO;
      break;
    case 0x73 /* s */:
      if (startsWithWord(text, start, end, SITEMAP)) return SITEMAP_KEY;
      if (startsWithAny(text, start, end, SITEMAP_TYPOS)) return SITEMAP_TYPO;
      break;
    case 0x63 /* c */:
      // Exact, case-insensitive: no non-ASCII char lower-cases into "crawl-delay".
      if (end - start === CRAWL_DELAY.length && startsWithWord(text, start, end, CRAWL_DELAY)) {
        return CRAWL_DELAY_KEY;
      }
      if (end - start === CONTENT_USAGE.length && startsWithWord(text, start, end, CONTENT_USAGE)) {
        return CONTENT_USAGE_KEY;
      }
      if (end - start === CONTENT_SIGNAL.length && startsWithWord(text, start, end, CONTENT_SIGNAL)) {
        return CONTENT_SIGNAL_KEY;
      }
      break;
    default:
      break;
  }
  if (end - start > 16) return UNKNOWN_KEY;
  return UNUSED_KEYS.has(text.slice(start, end).toLowerCase()) ? UNUSED_KEY : UNKNOWN_KEY;
}
