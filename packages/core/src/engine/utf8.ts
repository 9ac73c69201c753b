/**
 * UTF-8 length of JS strings, counted natively (TextEncoder#encodeInto into a reused buffer) rather
 * than char by char.
 */

const encoder = new TextEncoder();
const CHUNK = 16_384;
const scratch = new Uint8Array(CHUNK * 3);

/** UTF-8 length of text[start, end) as TextEncoder would write it (a lone surrogate is 3 bytes). */
export function utf8Length(text: string, start = 0, end = text.length): number {
  let bytes = 0;
  let at = start;
  while (at < end) {
    let stop = Math.min(at + CHUNK, end);
    // Never split a surrogate pair between chunks.
    if (stop < end && (text.charCodeAt(stop - 1) & 0xfc00) === 0xd800) stop--;
    bytes += encoder.encodeInto(text.slice(at, stop), scratch).written;
    at = stop;
  }
  return bytes;
}
