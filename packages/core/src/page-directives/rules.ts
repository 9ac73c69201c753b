/**
 * Page-level robots rules (the `X-Robots-Tag` header, `<meta name="robots">` and a meta tag named for
 * one crawler) read into one parsed form for one product token. Pure: strings in, an object out.
 *
 * Facts carried over from Google's "Robots meta tag, data-nosnippet, and X-Robots-Tag
 * specifications" (developers.google.com/search/docs/crawling-indexing/robots-meta-tag):
 * - rules are a comma-separated list; the rule names, the meta `name` and the user agent are
 *   case-insensitive;
 * - an X-Robots-Tag header may name a user agent before its rules (`googlebot: noindex`); rules
 *   without one are for every crawler; several headers may come in one response;
 * - `none` is `noindex, nofollow`; `all` (and `index`, `follow`) restrict nothing;
 * - valued rules: `max-snippet: <n>` and `max-video-preview: <n>` (-1 no limit, 0 none; an invalid
 *   number is ignored), `max-image-preview: none|standard|large`, `unavailable_after: <date>` (RFC 822,
 *   RFC 850 or ISO 8601 dates: unavailable-after.ts reads those and nothing else);
 * - generic and crawler-specific rules add up, and where rules conflict the more restrictive wins.
 * `noai` / `noimageai` come from DeviantArt's 2022 proposal (content not to be used to train AI, its
 * images not to); `nocache` is Bing's name for `noarchive`.
 */
import { parseUnavailableAfter } from './unavailable-after.js';

/** One rule as it applies to us, with where it came from. */
export interface PageRule {
  /** `header` (X-Robots-Tag) or `meta` (a `<meta>` element of the page's head). */
  readonly source: 'header' | 'meta';
  /** The user agent it was addressed to, lower-cased; undefined for every crawler (`robots`, no prefix). */
  readonly agent?: string;
  /** The rule, lower-cased, its value trimmed (`max-snippet:20`, `unavailable_after:25 jun 2030`). */
  readonly rule: string;
}

/** What a page says to our crawler, every source and agent combined (the more restrictive wins). */
export interface PageDirectives {
  /** Do not index the page (`noindex`, `none`). */
  readonly noindex: boolean;
  /** Do not follow the page's links (`nofollow`, `none`). */
  readonly nofollow: boolean;
  /** Do not keep or show a cached copy (`noarchive`, Bing's `nocache`). */
  readonly noarchive: boolean;
  /** No text snippet or video preview (`nosnippet`, `max-snippet: 0`). */
  readonly nosnippet: boolean;
  /** Do not index the page's images. */
  readonly noimageindex: boolean;
  /** Do not offer a translation. */
  readonly notranslate: boolean;
  /** Index the content when embedded in another page despite `noindex`. */
  readonly indexifembedded: boolean;
  /** Do not use the content to train AI (DeviantArt's proposal). */
  readonly noai: boolean;
  /** Do not use the page's images to train AI (DeviantArt's proposal). */
  readonly noimageai: boolean;
  /** The earliest valid `unavailable_after` date: do not show the page after it. */
  readonly unavailableAfter?: Date;
  /** Longest text snippet in characters; -1 no limit (the smallest given wins). */
  readonly maxSnippet?: number;
  /** Largest image preview (the smallest given wins). */
  readonly maxImagePreview?: 'none' | 'standard' | 'large';
  /** Longest video preview in seconds; -1 no limit (the smallest given wins). */
  readonly maxVideoPreview?: number;
  /** Rules for us that were not understood (unknown names, invalid values), lower-cased, as written. */
  readonly unknown: readonly string[];
  /** Every rule that applies to us, in the order read (headers first). */
  readonly rules: readonly PageRule[];
}

const FLAGS = {
  noindex: ['noindex'],
  nofollow: ['nofollow'],
  none: ['noindex', 'nofollow'],
  noarchive: ['noarchive'],
  nocache: ['noarchive'],
  nosnippet: ['nosnippet'],
  noimageindex: ['noimageindex'],
  notranslate: ['notranslate'],
  indexifembedded: ['indexifembedded'],
  noai: ['noai'],
  noimageai: ['noimageai'],
  // Restrict nothing: known, so not `unknown`.
  all: [],
  index: [],
  follow: [],
} as const satisfies Record<string, readonly string[]>;

type Flag = (typeof FLAGS)[keyof typeof FLAGS][number];

/** Rules that carry a value after a colon: the colon does not name a user agent. */
const VALUED = new Set(['max-snippet', 'max-image-preview', 'max-video-preview', 'unavailable_after']);
const IMAGE_PREVIEWS = ['none', 'standard', 'large'] as const;
/** A user agent named before a header's rules: a product token (RFC 9309 2.2.1), digits and dots let in. */
const AGENT = /^[a-z0-9_.-]+$/;
/** A weekday alone: an RFC 822 / 850 date's comma (`Fri, 25 Jun 2030 ...`) split it from the rest. */
const WEEKDAY = /^(mon|tue|wed|thu|fri|sat|sun)[a-z]*$/;

/**
 * The rules of X-Robots-Tag header lines that apply to `token` (lower-cased). A `<agent>:` prefix
 * addresses that agent's rules, and the rules after it in the same line (as in `googlebot: noindex,
 * nofollow`); rules before any prefix are for everyone. A client that joins several headers into one
 * line (fetch's Headers does) makes an unprefixed rule after a prefixed one read as that agent's.
 */
export function headerRules(lines: readonly string[], token: string): PageRule[] {
  const out: PageRule[] = [];
  for (const line of lines) {
    let agent: string | undefined;
    const parts = line.split(',');
    for (let i = 0; i < parts.length; i++) {
      let part = (parts[i] as string).trim();
      const colon = part.indexOf(':');
      if (colon > 0) {
        const name = part.slice(0, colon).trim().toLowerCase();
        if (!VALUED.has(name) && AGENT.test(name)) {
          agent = name;
          part = part.slice(colon + 1).trim();
        }
      }
      [part, i] = joinDateComma(part, parts, i);
      if (part === '' || (agent !== undefined && agent !== token)) continue;
      out.push({ source: 'header', ...(agent === undefined ? {} : { agent }), rule: normalise(part) });
    }
  }
  return out;
}

/** The rules of meta tags named `robots` or `token` (case-insensitive). */
export function metaRules(
  tags: Iterable<{ readonly name?: string | null; readonly content?: string | null }>,
  token: string,
): PageRule[] {
  const out: PageRule[] = [];
  for (const tag of tags) {
    const name = String(tag.name ?? '')
      .trim()
      .toLowerCase();
    if (name !== 'robots' && name !== token) continue;
    const parts = String(tag.content ?? '').split(',');
    for (let i = 0; i < parts.length; i++) {
      let part = (parts[i] as string).trim();
      [part, i] = joinDateComma(part, parts, i);
      if (part === '') continue;
      out.push({ source: 'meta', ...(name === 'robots' ? {} : { agent: name }), rule: normalise(part) });
    }
  }
  return out;
}

/** `unavailable_after: Fri` followed by ` 25 Jun 2030 ...`: one rule, rejoined. */
function joinDateComma(part: string, parts: readonly string[], i: number): [string, number] {
  const colon = part.indexOf(':');
  if (colon < 0 || part.slice(0, colon).trim().toLowerCase() !== 'unavailable_after') return [part, i];
  const value = part
    .slice(colon + 1)
    .trim()
    .toLowerCase();
  if (!WEEKDAY.test(value) || i + 1 >= parts.length) return [part, i];
  return [`${part},${parts[i + 1]}`, i + 1];
}

/** Lower-cased, the space around a valued rule's colon dropped. */
function normalise(rule: string): string {
  const lower = rule.toLowerCase().replace(/\s+/g, ' ');
  const colon = lower.indexOf(':');
  return colon < 0 ? lower : `${lower.slice(0, colon).trim()}:${lower.slice(colon + 1).trim()}`;
}

/** The rules combined: flags add up, the smallest limit and the earliest date win. */
export function combineRules(rules: readonly PageRule[]): PageDirectives {
  const flags = new Set<Flag>();
  const unknown: string[] = [];
  let unavailableAfter: number | undefined;
  let maxSnippet: number | undefined;
  let maxVideoPreview: number | undefined;
  let imagePreview: number | undefined;
  for (const { rule } of rules) {
    const colon = rule.indexOf(':');
    const name = colon < 0 ? rule : rule.slice(0, colon);
    const value = colon < 0 ? '' : rule.slice(colon + 1);
    if (colon < 0 && Object.hasOwn(FLAGS, name)) {
      for (const flag of FLAGS[name as keyof typeof FLAGS]) flags.add(flag);
      continue;
    }
    if (name === 'max-snippet' || name === 'max-video-preview') {
      const limit = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
      if (!(limit >= -1)) {
        unknown.push(rule);
      } else if (name === 'max-snippet') {
        maxSnippet = smallerLimit(maxSnippet, limit);
      } else {
        maxVideoPreview = smallerLimit(maxVideoPreview, limit);
      }
      continue;
    }
    if (name === 'max-image-preview') {
      const size = IMAGE_PREVIEWS.indexOf(value as (typeof IMAGE_PREVIEWS)[number]);
      if (size < 0) unknown.push(rule);
      else imagePreview = Math.min(imagePreview ?? size, size);
      continue;
    }
    if (name === 'unavailable_after') {
      const at = parseUnavailableAfter(value);
      if (at === undefined) unknown.push(rule);
      else unavailableAfter = Math.min(unavailableAfter ?? at, at);
      continue;
    }
    unknown.push(rule);
  }
  return {
    noindex: flags.has('noindex'),
    nofollow: flags.has('nofollow'),
    noarchive: flags.has('noarchive'),
    nosnippet: flags.has('nosnippet') || maxSnippet === 0,
    noimageindex: flags.has('noimageindex'),
    notranslate: flags.has('notranslate'),
    indexifembedded: flags.has('indexifembedded'),
    noai: flags.has('noai'),
    noimageai: flags.has('noimageai'),
    ...(unavailableAfter === undefined ? {} : { unavailableAfter: new Date(unavailableAfter) }),
    ...(maxSnippet === undefined ? {} : { maxSnippet }),
    ...(imagePreview === undefined ? {} : { maxImagePreview: IMAGE_PREVIEWS[imagePreview] }),
    ...(maxVideoPreview === undefined ? {} : { maxVideoPreview }),
    unknown,
    rules,
  };
}

/** The more restrictive of two limits where -1 means none. */
function smallerLimit(current: number | undefined, next: number): number {
  if (current === undefined || current === -1) return next;
  return next === -1 ? current : Math.min(current, next);
}
