/**
 * Product tokens (RFC 9309 2.2.1): one or more of `A-Z a-z _ -`.
 */

function isTokenChar(char: number): boolean {
  return (char >= 0x61 && char <= 0x7a) || (char >= 0x41 && char <= 0x5a) || char === 0x2d || char === 0x5f;
}

/** True iff `ua` is non-empty and made only of `A-Z a-z _ -` (Google's IsValidUserAgentToObey). */
export function isValidProductToken(ua: string | null | undefined): boolean {
  if (typeof ua !== 'string' || ua.length === 0) return false;
  for (let i = 0; i < ua.length; i++) if (!isTokenChar(ua.charCodeAt(i))) return false;
  return true;
}

/**
 * The product token of a full User-Agent header: its leading run of `A-Z a-z _ -`.
 * `MyBot/1.0 (+https://example.com/bot)` gives `MyBot`; `''` when the header starts otherwise.
 */
export function productTokenOf(userAgent: string): string {
  if (typeof userAgent !== 'string') {
    throw new TypeError(`productTokenOf: expected a User-Agent string, got ${typeof userAgent}`);
  }
  let end = 0;
  while (end < userAgent.length && isTokenChar(userAgent.charCodeAt(end))) end++;
  return userAgent.slice(0, end);
}

/** The lower-cased product token at the start of a user-agent line's value (Google's ExtractUserAgent). */
export function tokenOfValue(text: string, start: number, end: number): string {
  let stop = start;
  while (stop < end && isTokenChar(text.charCodeAt(stop))) stop++;
  return text.slice(start, stop).toLowerCase();
}

/**
 * Google-only: `*` names the global group when it stands alone or is followed by whitespace
 * (`* anything`); `*bot` names nobody.
 */
export function isGlobalValue(text: string, start: number, end: number): boolean {
  if (start >= end || text.charCodeAt(start) !== 0x2a) return false;
  if (end - start === 1) return true;
  const next = text.charCodeAt(start + 1);
  return next === 0x20 || next === 0x09 || next === 0x0b || next === 0x0c;
}
