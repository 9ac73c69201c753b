/**
 * RFC 9309 2.2.2 percent-encoding: before matching, an octet in the unreserved range (`A-Z a-z 0-9 -
 * . _ ~`) written as `%XX` is decoded, in the URL path as in the rule patterns, and every other `%xx` is
 * compared in one form, upper-case hex. So `/%70rivate` and `/private` are one path: servers decode
 * them alike, and a link written the first way must not walk past `Disallow: /private`.
 *
 * Google's robotstxt (and robots-parser) compare them literally; `percentEncoding: 'google'` keeps that.
 */

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/** Unreserved octets (RFC 3986 2.3): ALPHA / DIGIT / "-" / "." / "_" / "~". */
export function isUnreserved(octet: number): boolean {
  return (
    (octet >= 0x41 && octet <= 0x5a) ||
    (octet >= 0x61 && octet <= 0x7a) ||
    (octet >= 0x30 && octet <= 0x39) ||
    octet === 0x2d ||
    octet === 0x2e ||
    octet === 0x5f ||
    octet === 0x7e
  );
}

/**
 * The `%` escape at text[i] in canonical form: the unreserved char it encodes, or `%XX` upper-case;
 * undefined when text[i, i + 3) is no escape (a lone `%` stays as it is).
 */
export function canonicalEscape(text: string, i: number, end: number): string | undefined {
  if (i + 2 >= end) return undefined;
  const high = hexValue(text.charCodeAt(i + 1));
  const low = hexValue(text.charCodeAt(i + 2));
  if (high === -1 || low === -1) return undefined;
  const octet = high * 16 + low;
  if (isUnreserved(octet)) return String.fromCharCode(octet);
  return `%${text[i + 1]?.toUpperCase()}${text[i + 2]?.toUpperCase()}`;
}

/**
 * Does the escape at text[i] read differently in canonical form (an unreserved octet, or lower-case
 * hex)? A lone `%` (no escape) stays as it is.
 */
function changesInCanonicalForm(text: string, i: number, end: number): boolean {
  if (i + 2 >= end) return false;
  const high = text.charCodeAt(i + 1);
  const low = text.charCodeAt(i + 2);
  const highValue = hexValue(high);
  const lowValue = hexValue(low);
  if (highValue === -1 || lowValue === -1) return false;
  // Lower-case hex digits are the codes above 0x60.
  return high > 0x60 || low > 0x60 || isUnreserved(highValue * 16 + lowValue);
}

/**
 * text[start, end) with every `%xx` in canonical form, or undefined when that is text[start, end)
 * itself: a path without `%`, or whose escapes are all reserved octets in upper-case hex (`%2F`,
 * `%E4%B8%AD`), as links are usually written. Neither allocates.
 */
export function canonicalPath(text: string, start: number, end: number): string | undefined {
  let percent = text.indexOf('%', start);
  while (percent !== -1 && percent < end && !changesInCanonicalForm(text, percent, end))
    percent = text.indexOf('%', percent + 1);
  if (percent === -1 || percent >= end) return undefined;
  let out = '';
  let from = start;
  while (percent !== -1 && percent < end) {
    const canonical = canonicalEscape(text, percent, end);
    if (canonical === undefined) {
      percent = text.indexOf('%', percent + 1);
      continue;
    }
    out += text.slice(from, percent) + canonical;
    from = percent + 3;
    percent = text.indexOf('%', from);
  }
  return out + text.slice(from, end);
}
