/**
 * The part of a URL that robots.txt rules are matched against, after Google's GetPathParamsQuery
 * (robots.cc): path, `;params` and `?query`, without scheme, authority and fragment; `/` when empty.
 * The URL is taken as already percent-encoded and is never decoded or re-encoded.
 */
import { httpHref } from '../kernel/http-url.js';

/**
 * A `Sitemap:` line's URL as a crawler can take it: absolute http(s), else undefined. sitemaps.org
 * asks for the complete URL and Google for a fully qualified one (RFC 9309 2.2.4 leaves Sitemap lines
 * to that protocol); a relative one has no agreed base.
 */
export function sitemapUrl(value: string): string | undefined {
  return httpHref(value);
}

/** Where the path/params/query of a URL is: text[start, end). Filled in place so checks do not allocate. */
export interface PathRange {
  text: string;
  start: number;
  end: number;
  /**
   * `http(s)://authority` of the first URL located through this range whose path starts with `/`, else
   * ''. The URLs checked against one robots.txt share it: one that starts with it and has a `/` right
   * after is located by one native search (indexOf: startsWith took twice as long on Node 20) instead
   * of reading its scheme and authority char by char.
   */
  origin: string;
}

function firstOf(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x2f /* / */ || char === 0x3f /* ? */ || char === 0x3b /* ; */) return i;
  }
  return -1;
}

function set(range: PathRange, text: string, start: number, end: number): void {
  range.text = text;
  range.start = start;
  range.end = end;
}

/** `https://`, a host name of 253 chars, a port and some user info: longer origins are not remembered. */
const MAX_ORIGIN_LENGTH = 512;

/**
 * A copy of text that holds nothing else: V8 makes a slice of a long string a view of it, which would
 * keep a long URL alive for as long as the origin cut from it is kept.
 */
function detached(text: string): string {
  return text.split('').join('');
}

/** Length of a leading `http://` or `https://` (any case), else 0. */
function httpSchemeLength(url: string): number {
  if ((url.charCodeAt(0) | 0x20) !== 0x68 || (url.charCodeAt(1) | 0x20) !== 0x74) return 0;
  if ((url.charCodeAt(2) | 0x20) !== 0x74 || (url.charCodeAt(3) | 0x20) !== 0x70) return 0;
  const colon = (url.charCodeAt(4) | 0x20) === 0x73 ? 5 : 4;
  return url.charCodeAt(colon) === 0x3a &&
    url.charCodeAt(colon + 1) === 0x2f &&
    url.charCodeAt(colon + 2) === 0x2f
    ? colon + 3
    : 0;
}

/**
 * The common URL, `http(s)://authority/...`, in one pass: the path starts at the first `/`, `?` or `;`
 * after the scheme, unless a `#` comes first. Same answer as the general case below (no `#` can stand
 * in the scheme, and the scheme's `://` is the first one). False for any other URL.
 */
function locateHttpPath(url: string, range: PathRange): boolean {
  const origin = range.origin;
  if (origin.length > 0 && url.charCodeAt(origin.length) === 0x2f && url.indexOf(origin) === 0) {
    const hash = url.indexOf('#', origin.length);
    set(range, url, origin.length, hash === -1 ? url.length : hash);
    return true;
  }
  const from = httpSchemeLength(url);
  if (from === 0) return false;
  for (let i = from; i < url.length; i++) {
    const char = url.charCodeAt(i);
    if (char === 0x2f /* / */ || char === 0x3f /* ? */ || char === 0x3b /* ; */) {
      const hash = url.indexOf('#', i);
      const end = hash === -1 ? url.length : hash;
      if (char === 0x2f) {
        set(range, url, i, end);
        // The first origin stays: URLs of another origin take this path again, never evict it. A
        // longer one than any real authority (a hostile link) is not kept.
        if (range.origin === '' && i <= MAX_ORIGIN_LENGTH) range.origin = detached(url.slice(0, i));
      } else {
        const path = `/${url.slice(i, end)}`;
        set(range, path, 0, path.length);
      }
      return true;
    }
    if (char === 0x23 /* # */) break;
  }
  set(range, '/', 0, 1);
  return true;
}

/** GetPathParamsQuery as a range of `url` (or of a new string when a `/` has to be put in front). */
export function locatePath(url: string, range: PathRange): void {
  if (locateHttpPath(url, range)) return;
  // A leading `//` (network-path reference) is skipped.
  const searchStart = url.charCodeAt(0) === 0x2f && url.charCodeAt(1) === 0x2f ? 2 : 0;
  const earlyPath = firstOf(url, searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  // `://` inside the path or query (`/a?b=http://c`) is not a scheme separator.
  if (earlyPath !== -1 && earlyPath < protocolEnd) protocolEnd = -1;
  protocolEnd = protocolEnd === -1 ? searchStart : protocolEnd + 3;
  const pathStart = protocolEnd === earlyPath ? earlyPath : firstOf(url, protocolEnd);
  const hash = pathStart === -1 ? -1 : url.indexOf('#', searchStart);
  if (pathStart === -1 || (hash !== -1 && hash < pathStart)) {
    set(range, '/', 0, 1);
    return;
  }
  const pathEnd = hash === -1 ? url.length : hash;
  if (url.charCodeAt(pathStart) === 0x2f) {
    set(range, url, pathStart, pathEnd);
    return;
  }
  // Put a `/` in front when the remainder starts with `?` or `;`.
  const path = `/${url.slice(pathStart, pathEnd)}`;
  set(range, path, 0, path.length);
}

export function getPathParamsQuery(url: string): string {
  if (typeof url !== 'string')
    throw new TypeError(`getPathParamsQuery: expected a string URL, got ${typeof url}`);
  const range: PathRange = { text: '', start: 0, end: 0, origin: '' };
  locatePath(url, range);
  return range.text.slice(range.start, range.end);
}
