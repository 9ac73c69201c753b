/**
 * The part of a URL that robots.txt rules are matched against, after Google's GetPathParamsQuery
 * (robots.cc): path, `;params` and `?query`, without scheme, authority and fragment; `/` when empty.
 * The URL is taken as already percent-encoded and is never decoded or re-encoded.
 */

/** Where the path/params/query of a URL is: text[start, end). Filled in place so checks do not allocate. */
export interface PathRange {
  text: string;
  start: number;
  end: number;
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

/** GetPathParamsQuery as a range of `url` (or of a new string when a `/` has to be put in front). */
export function locatePath(url: string, range: PathRange): void {
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
  const range: PathRange = { text: '', start: 0, end: 0 };
  locatePath(url, range);
  return range.text.slice(range.start, range.end);
}
