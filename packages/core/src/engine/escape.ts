/**
 * Percent-escaping of allow/disallow values, after Google's MaybeEscapePattern (robots.cc): every octet
 * >= 0x80 becomes `%XX` (upper-case hex), the hex digits of an existing `%xx` are upper-cased, nothing
 * else changes and nothing is decoded. The result is pure ASCII, so its length is its length in octets.
 */

const HEX = '0123456789ABCDEF';
const PERCENT = 0x25;

function isHexDigit(byte: number | undefined): boolean {
  if (byte === undefined) return false;
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function upperHex(byte: number): number {
  return byte >= 0x61 ? byte - 0x20 : byte;
}

/** MaybeEscapePattern over the byte range [start, end). */
export function escapeBytes(bytes: Uint8Array, start: number, end: number): string {
  let plain = true;
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte >= 0x80 || byte === PERCENT) {
      plain = false;
      break;
    }
  }
  if (plain) return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
  let out = '';
  for (let i = start; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte === PERCENT && i + 2 < end && isHexDigit(bytes[i + 1]) && isHexDigit(bytes[i + 2])) {
      out += `%${String.fromCharCode(upperHex(bytes[i + 1] as number), upperHex(bytes[i + 2] as number))}`;
      i += 2;
    } else if (byte >= 0x80) {
      out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
    } else {
      out += String.fromCharCode(byte);
    }
  }
  return out;
}

const encoder = new TextEncoder();

/**
 * Google's MaybeEscapePattern for a string: the string's UTF-8 octets >= 0x80 become `%XX` and the hex
 * digits of existing `%xx` are upper-cased. `escapePattern('/ツ')` is `'/%E3%83%84'`.
 */
export function escapePattern(pattern: string): string {
  if (typeof pattern !== 'string') {
    throw new TypeError(`escapePattern: expected a string pattern, got ${typeof pattern}`);
  }
  const bytes = encoder.encode(pattern);
  return escapeBytes(bytes, 0, bytes.length);
}
