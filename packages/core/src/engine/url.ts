/**
 * The part of a URL that robots.txt rules are matched against, after Google's GetPathParamsQuery
 * (robots.cc): path, `;params` and `?query`, without scheme, authority and fragment; `/` when empty.
 * The URL is taken as already percent-encoded and is never decoded or re-encoded.
 */

function firstOf(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x2f /* / */ || char === 0x3f /* ? */ || char === 0x3b /* ; */) return i;
  }
  return -1;
}

export function getPathParamsQuery(url: string): string {
  if (typeof url !== 'string')
    throw new TypeError(`getPathParamsQuery: expected a string URL, got ${typeof url}`);
  // A leading `//` (network-path reference) is skipped.
  const searchStart = url.startsWith('//') ? 2 : 0;
  const earlyPath = firstOf(url, searchStart);
  let protocolEnd = url.indexOf('://', searchStart);
  // `://` inside the path or query (`/a?b=http://c`) is not a scheme separator.
  if (earlyPath !== -1 && earlyPath < protocolEnd) protocolEnd = -1;
  protocolEnd = protocolEnd === -1 ? searchStart : protocolEnd + 3;
  const pathStart = firstOf(url, protocolEnd);
  if (pathStart === -1) return '/';
  const hash = url.indexOf('#', searchStart);
  if (hash !== -1 && hash < pathStart) return '/';
  const pathEnd = hash === -1 ? url.length : hash;
  const path = url.slice(pathStart, pathEnd);
  return url.charCodeAt(pathStart) === 0x2f ? path : `/${path}`;
}
