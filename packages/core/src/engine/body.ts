/**
 * Bytes in: a robots.txt body as UTF-8 octets, cut at the byte limit.
 *
 * UTF-8 bodies are not decoded at all (the lexer works on octets, as Google's parser does, so invalid
 * bytes survive into escaped patterns exactly). UTF-16 (by BOM) and other declared charsets are decoded
 * with TextDecoder and re-encoded as UTF-8. A cut at the limit drops the partial last line, so a rule is
 * never read shortened (`Allow: /a/b` cut to `Allow: /a` would allow too much).
 */

export const DEFAULT_MAX_BYTES = 512_000;

export interface Body {
  /** UTF-8 octets to lex (a UTF-8 BOM, when present, is still there: the lexer skips it). */
  readonly bytes: Uint8Array;
  /** Input bytes read: the body's length, or maxBytes when it was longer. */
  readonly byteLength: number;
  readonly truncated: boolean;
  /** The decoder used: `utf-8`, or a TextDecoder encoding name (`utf-16le`, `windows-1252`, ...). */
  readonly encoding: string;
  /** The charset option named an encoding TextDecoder does not know; UTF-8 was used. */
  readonly unknownCharset: boolean;
}

const encoder = new TextEncoder();
const UTF8_LABELS = new Set(['', 'utf-8', 'utf8', 'unicode-1-1-utf-8', 'us-ascii', 'ascii']);

function isLineBreak(code: number | undefined): boolean {
  return code === 0x0a || code === 0x0d;
}

/** End of the last complete line within bytes[0, limit), given that the body goes on after limit. */
function lastCompleteLineEnd(bytes: Uint8Array, limit: number): number {
  if (isLineBreak(bytes[limit])) return limit;
  for (let i = limit - 1; i >= 0; i--) if (isLineBreak(bytes[i])) return i + 1;
  return 0;
}

function cutBytes(bytes: Uint8Array, maxBytes: number): { bytes: Uint8Array; truncated: boolean } {
  if (bytes.length <= maxBytes) return { bytes, truncated: false };
  return { bytes: bytes.subarray(0, lastCompleteLineEnd(bytes, maxBytes)), truncated: true };
}

function dropPartialLine(text: string): string {
  const end = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
  return text.slice(0, end + 1);
}

function decoderFor(label: string): InstanceType<typeof TextDecoder> | undefined {
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

function normaliseCharset(charset: string | undefined): string {
  return (charset ?? '')
    .trim()
    .replace(/^["']|["']$/g, '')
    .toLowerCase();
}

export function readBody(body: string | Uint8Array, maxBytes: number, charset: string | undefined): Body {
  if (typeof body === 'string') {
    const utf8 = encoder.encode(body);
    const cut = cutBytes(utf8, maxBytes);
    return {
      bytes: cut.bytes,
      byteLength: Math.min(utf8.length, maxBytes),
      truncated: cut.truncated,
      encoding: 'utf-8',
      unknownCharset: false,
    };
  }
  const byteLength = Math.min(body.length, maxBytes);
  let label = normaliseCharset(charset);
  // A BOM wins over the declared charset.
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) label = 'utf-8';
  else if (body[0] === 0xff && body[1] === 0xfe) label = 'utf-16le';
  else if (body[0] === 0xfe && body[1] === 0xff) label = 'utf-16be';
  const decoder = UTF8_LABELS.has(label) ? undefined : decoderFor(label);
  if (decoder === undefined || decoder.encoding === 'utf-8') {
    const cut = cutBytes(body, maxBytes);
    return {
      bytes: cut.bytes,
      byteLength,
      truncated: cut.truncated,
      encoding: 'utf-8',
      unknownCharset: !UTF8_LABELS.has(label) && decoder === undefined,
    };
  }
  const truncated = body.length > maxBytes;
  let text = decoder.decode(truncated ? body.subarray(0, maxBytes) : body);
  if (truncated) text = dropPartialLine(text);
  return {
    bytes: encoder.encode(text),
    byteLength,
    truncated,
    encoding: decoder.encoding,
    unknownCharset: false,
  };
}
