/**
 * Bytes and strings, in one place. The engine lexes JS strings (native indexOf finds line breaks), and a
 * body that is not valid UTF-8 is lexed as a "binary" string, one char per octet, so that rule values
 * keep their exact octets. These helpers move between the three forms: octets, binary strings and text.
 *
 * Nothing here keeps state between calls: the encoder and decoders below hold none (no `stream` use),
 * and the one shared buffer is written, never read (utf8Length).
 */

const encoder = new TextEncoder();
/** Replaces invalid sequences with U+FFFD, as a display would. */
const lenientUtf8 = new TextDecoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** String.fromCharCode takes its chars as arguments: chunks stay under engines' argument limits. */
const CHARS_PER_CALL = 8192;

/** Octets as a binary string (one char per octet). */
export function binaryString(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += CHARS_PER_CALL) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + CHARS_PER_CALL) as unknown as number[]);
  }
  return out;
}

/** The octets a binary string stands for. */
export function octetsOf(binary: string): Uint8Array {
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** A binary string read as UTF-8 text (invalid sequences become U+FFFD). */
export function textOfOctets(binary: string): string {
  return lenientUtf8.decode(octetsOf(binary));
}

/** Octets decoded as strict UTF-8 (no BOM removed), or undefined when they are not valid UTF-8. */
export function strictUtf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether the octets of a binary string are valid UTF-8. */
export function isUtf8Octets(binary: string): boolean {
  return strictUtf8Text(octetsOf(binary)) !== undefined;
}

/** Chars encoded per encodeInto call at most. */
const LENGTH_CHUNK = 16_384;

/**
 * Where utf8Length has encodeInto write its octets, room for a chunk of any text (3 octets a char at
 * most). Write-only: only the count written is used, never the octets, so no call sees anything of
 * another. A buffer per call cost more than counting itself (a native allocation each parse).
 */
const DISCARDED_OCTETS = new Uint8Array(3 * LENGTH_CHUNK);

/**
 * UTF-8 length of text[start, end) as TextEncoder would write it (a lone surrogate is 3 octets),
 * counted natively by encodeInto rather than char by char: one call per chunk of LENGTH_CHUNK chars.
 */
export function utf8Length(text: string, start = 0, end = text.length): number {
  let bytes = 0;
  let at = start;
  while (at < end) {
    let stop = Math.min(at + LENGTH_CHUNK, end);
    // Never split a surrogate pair between chunks.
    if (stop < end && (text.charCodeAt(stop - 1) & 0xfc00) === 0xd800) stop--;
    bytes += encoder.encodeInto(text.slice(at, stop), DISCARDED_OCTETS).written;
    at = stop;
  }
  return bytes;
}

/** The first `maxBytes` octets of a text's UTF-8, as a binary string (possibly cut inside a char). */
export function utf8Head(text: string, maxBytes: number): string {
  return binaryString(encoder.encode(text).subarray(0, maxBytes));
}

/** Index of the first char of `text` that does not fit in maxBytes of UTF-8. */
export function charsWithinUtf8(text: string, maxBytes: number): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    const pair = char >= 0xd800 && char <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    bytes += char < 0x80 ? 1 : char < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes > maxBytes) return i;
    if (pair) i++;
  }
  return text.length;
}
