/**
 * Percent-escaping of allow/disallow values, after Google's MaybeEscapePattern (robots.cc): every octet
 * >= 0x80 becomes `%XX` (upper-case hex), the hex digits of an existing `%xx` are upper-cased, nothing
 * else changes and nothing is decoded. The result is pure ASCII, so its length is its length in octets.
 */

import { isUnreserved } from './percent.js';

const PERCENT = 0x25;

/** `%XX` for every octet, upper-case hex. */
const ESCAPED_OCTET: readonly string[] = Array.from(
  { length: 256 },
  (_, octet) => `%${octet.toString(16).toUpperCase().padStart(2, '0')}`,
);

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

function upperHex(code: number): number {
  return code >= 0x61 ? code - 0x20 : code;
}

/**
 * MaybeEscapePattern from value[from] on (value[0, from) needs no change). Works on chars rather than
 * on an encoded copy: `%` and hex digits are ASCII, so they are the same octets either way, and each
 * non-ASCII char is written as the `%XX` of its UTF-8 octets (a lone surrogate as U+FFFD's, as
 * TextEncoder encodes it) or, when `binary`, of the octet it stands for.
 */
function escapeFrom(value: string, from: number, binary: boolean, decodeUnreserved: boolean): string {
  const length = value.length;
  let out = value.slice(0, from);
  let i = from;
  while (i < length) {
    const char = value.charCodeAt(i);
    if (char === PERCENT) {
      const high = value.charCodeAt(i + 1);
      const low = value.charCodeAt(i + 2);
      if (i + 2 < length && isHexDigit(high) && isHexDigit(low)) {
        const octet = Number.parseInt(value.slice(i + 1, i + 3), 16);
        // RFC 9309 2.2.2: an unreserved octet is compared decoded (percent.ts).
        out +=
          decodeUnreserved && isUnreserved(octet)
            ? String.fromCharCode(octet)
            : `%${String.fromCharCode(upperHex(high), upperHex(low))}`;
        i += 3;
      } else {
        out += '%';
        i++;
      }
    } else if (char < 0x80) {
      let stop = i + 1;
      while (stop < length) {
        const next = value.charCodeAt(stop);
        if (next >= 0x80 || next === PERCENT) break;
        stop++;
      }
      out += value.slice(i, stop);
      i = stop;
    } else if (binary || char < 0x800) {
      out += binary
        ? ESCAPED_OCTET[char]
        : `${ESCAPED_OCTET[0xc0 | (char >> 6)]}${ESCAPED_OCTET[0x80 | (char & 0x3f)]}`;
      i++;
    } else {
      let point = char;
      const next = value.charCodeAt(i + 1);
      if (char >= 0xd800 && char <= 0xdbff && (next & 0xfc00) === 0xdc00) {
        point = 0x10000 + ((char - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else if ((char & 0xf800) === 0xd800) {
        point = 0xfffd;
      }
      out +=
        point >= 0x10000
          ? `${ESCAPED_OCTET[0xf0 | (point >> 18)]}${ESCAPED_OCTET[0x80 | ((point >> 12) & 0x3f)]}`
          : ESCAPED_OCTET[0xe0 | (point >> 12)];
      out += `${ESCAPED_OCTET[0x80 | ((point >> 6) & 0x3f)]}${ESCAPED_OCTET[0x80 | (point & 0x3f)]}`;
      i++;
    }
  }
  return out;
}

/**
 * MaybeEscapePattern for a rule value. `binary`: the value holds one char per octet (a body that was
 * not UTF-8); otherwise it is text whose UTF-8 octets are escaped.
 */
export function escapeValue(value: string, binary: boolean, ascii = false, decodeUnreserved = false): string {
  // An ASCII (or binary-but-all-ASCII) value needs work only for `%xx`; native indexOf tells.
  if (ascii && !binary && value.indexOf('%') === -1) return value;
  for (let i = 0; i < value.length; i++) {
    const char = value.charCodeAt(i);
    if (char >= 0x80 || char === PERCENT) return escapeFrom(value, i, binary, decodeUnreserved);
  }
  return value;
}

/**
 * Google's MaybeEscapePattern for a string: the string's UTF-8 octets >= 0x80 become `%XX` and the hex
 * digits of existing `%xx` are upper-cased. `escapePattern('/ツ')` is `'/%E3%83%84'`.
 */
export function escapePattern(pattern: string): string {
  if (typeof pattern !== 'string') {
    throw new TypeError(`escapePattern: expected a string pattern, got ${typeof pattern}`);
  }
  return escapeValue(pattern, false);
}
