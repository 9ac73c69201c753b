/**
 * Percent-escaping of allow/disallow values, after Google's MaybeEscapePattern (robots.cc): every octet
 * >= 0x80 becomes `%XX` (upper-case hex), the hex digits of an existing `%xx` are upper-cased, nothing
 * else changes and nothing is decoded. The result is pure ASCII, so its length is its length in octets.
 */

const HEX = '0123456789ABCDEF';
const PERCENT = 0x25;
const encoder = new TextEncoder();

function isHexDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

function upperHex(code: number): number {
  return code >= 0x61 ? code - 0x20 : code;
}

/** MaybeEscapePattern over `length` octets read by `at`. */
function escapeOctets(at: (index: number) => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    const octet = at(i);
    if (octet === PERCENT && i + 2 < length && isHexDigit(at(i + 1)) && isHexDigit(at(i + 2))) {
      out += `%${String.fromCharCode(upperHex(at(i + 1)), upperHex(at(i + 2)))}`;
      i += 2;
    } else if (octet >= 0x80) {
      out += `%${HEX[octet >> 4]}${HEX[octet & 15]}`;
    } else {
      out += String.fromCharCode(octet);
    }
  }
  return out;
}

/**
 * MaybeEscapePattern for a rule value. `binary`: the value holds one char per octet (a body that was
 * not UTF-8); otherwise it is text whose UTF-8 octets are escaped.
 */
export function escapeValue(value: string, binary: boolean, ascii = false): string {
  // An ASCII (or binary-but-all-ASCII) value needs work only for `%xx`; native indexOf tells.
  if (ascii && !binary && value.indexOf('%') === -1) return value;
  let plain = true;
  for (let i = 0; i < value.length; i++) {
    const char = value.charCodeAt(i);
    if (char >= 0x80 || char === PERCENT) {
      plain = false;
      break;
    }
  }
  if (plain) return value;
  if (binary) return escapeOctets((i) => value.charCodeAt(i), value.length);
  const bytes = encoder.encode(value);
  return escapeOctets((i) => bytes[i] as number, bytes.length);
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
