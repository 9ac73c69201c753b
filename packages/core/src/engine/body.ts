/**
 * Body in: a robots.txt body as text to lex, cut at the byte limit.
 *
 * UTF-8 bytes are decoded once; a body that is not valid UTF-8 becomes a "binary" string, one char per
 * byte, so that invalid octets survive into escaped patterns exactly as Google's byte-level parser
 * keeps them. UTF-16 (by BOM) and other declared charsets are decoded with TextDecoder. A cut at the
 * limit drops the partial last line, so a rule is never read shortened (`Allow: /a/b` cut to
 * `Allow: /a` would allow too much).
 */
import { binaryString, charsWithinUtf8, strictUtf8Text, utf8Length } from './bytes.js';
import type { Source } from './lexer.js';

export const DEFAULT_MAX_BYTES = 512_000;

export interface Body extends Source {
  /** Input bytes read: the body's length in bytes (UTF-8 for a string), or maxBytes when longer. */
  readonly byteLength: number;
  readonly truncated: boolean;
  /** The decoding used: `utf-8`, `binary` (invalid UTF-8 kept as bytes), or a TextDecoder encoding name. */
  readonly encoding: string;
  /** The charset option named an encoding TextDecoder does not know; UTF-8 was used. */
  readonly unknownCharset: boolean;
}

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

function dropPartialLine(text: string, next: number): string {
  if (isLineBreak(next)) return text;
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
  let label = (charset ?? '').trim().toLowerCase();
  if (label.startsWith('"') || label.startsWith("'")) label = label.slice(1);
  if (label.endsWith('"') || label.endsWith("'")) label = label.slice(0, -1);
  return label;
}

function fromString(body: string, maxBytes: number): Body {
  const byteLength = utf8Length(body);
  const ascii = byteLength === body.length;
  if (byteLength <= maxBytes) {
    return {
      text: body,
      binary: false,
      ascii,
      byteLength,
      truncated: false,
      encoding: 'utf-8',
      unknownCharset: false,
    };
  }
  const cut = ascii ? maxBytes : charsWithinUtf8(body, maxBytes);
  const text = dropPartialLine(body.slice(0, cut), body.charCodeAt(cut));
  return {
    text,
    binary: false,
    ascii,
    byteLength: maxBytes,
    truncated: true,
    encoding: 'utf-8',
    unknownCharset: false,
  };
}

export function readBody(body: string | Uint8Array, maxBytes: number, charset: string | undefined): Body {
  if (typeof body === 'string') return fromString(body, maxBytes);
  const byteLength = Math.min(body.length, maxBytes);
  const truncated = body.length > maxBytes;
  let label = normaliseCharset(charset);
  // A BOM wins over the declared charset.
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) label = 'utf-8';
  else if (body[0] === 0xff && body[1] === 0xfe) label = 'utf-16le';
  else if (body[0] === 0xfe && body[1] === 0xff) label = 'utf-16be';
  const decoder = UTF8_LABELS.has(label) ? undefined : decoderFor(label);
  const unknownCharset = !UTF8_LABELS.has(label) && decoder === undefined;

  if (decoder === undefined || decoder.encoding === 'utf-8') {
    const bytes = truncated ? body.subarray(0, lastCompleteLineEnd(body, maxBytes)) : body;
    const utf8 = strictUtf8Text(bytes);
    const binary = utf8 === undefined;
    const text = utf8 ?? binaryString(bytes);
    // Valid UTF-8 decodes to as many UTF-16 units as bytes only when every byte is ASCII.
    const ascii = binary || text.length === bytes.length;
    return {
      text,
      binary,
      ascii,
      byteLength,
      truncated,
      encoding: binary ? 'binary' : 'utf-8',
      unknownCharset,
    };
  }
  let text = decoder.decode(truncated ? body.subarray(0, maxBytes) : body);
  if (truncated) text = dropPartialLine(text, Number.NaN);
  return {
    text,
    binary: false,
    ascii: utf8Length(text) === text.length,
    byteLength,
    truncated,
    encoding: decoder.encoding,
    unknownCharset,
  };
}
