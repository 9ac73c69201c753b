/**
 * `readPageDirectives(response, agent)`: what a fetched page says to our crawler, from its
 * X-Robots-Tag headers and the robots meta tags of its head, in one parsed form. Takes what the
 * clients hand over as they are: a got response (headers, rawHeaders, body), `{ headers, body }` with
 * a fetch `Headers` and the text, the header record of Playwright or Puppeteer (several headers joined
 * by a line break), or meta tags already read from a DOM.
 */
import { productTokenOf } from '../engine/agent.js';
import { headerOf, headerLines as linesOf, type ResponseHeaders } from '../kernel/headers.js';
import { HEAD_SCAN_LIMIT, headMetaTags, type MetaTag, scanHead } from './html-head.js';
import { combineRules, headerRules, metaRules, type PageDirectives } from './rules.js';

/** Response headers in the shapes clients give them. */
export type HeadersInput = ResponseHeaders;

/** What a page is read from; every part optional. */
export interface PageDirectivesSource {
  /** Response headers: a fetch `Headers`, or a record (Node, got, Playwright, Puppeteer). */
  readonly headers?: HeadersInput | null;
  /** Node's flat `[name, value, ...]` list: keeps several X-Robots-Tag headers apart. Preferred when given. */
  readonly rawHeaders?: readonly string[] | null;
  /** The body (HTML text or bytes): the meta tags of its head are read unless the Content-Type is not HTML. */
  readonly body?: string | Uint8Array | null;
  /** Meta tags already read from a DOM (`document.head`), used instead of scanning `body`. */
  readonly meta?: Iterable<MetaTag> | null;
}

/** Whose rules to read: a product token or a full User-Agent (`MyBot/1.0` reads as `MyBot`), or a Politeness. */
export type DirectivesAgent = string | { readonly productToken: string };

/**
 * The rules a page gives `agent`: X-Robots-Tag lines for everyone or prefixed with its product token,
 * and `<meta name="robots">` or `<meta name="<product token>">` (all case-insensitive), combined so
 * that the more restrictive wins. Never throws on what a site sends; a TypeError for a bad `agent`.
 */
export function readPageDirectives(source: PageDirectivesSource, agent: DirectivesAgent): PageDirectives {
  const written = typeof agent === 'string' ? agent : agent?.productToken;
  const token = typeof written === 'string' ? productTokenOf(written.trim()).toLowerCase() : '';
  if (token === '') {
    throw new TypeError(
      `readPageDirectives: agent must be a product token, a User-Agent or a Politeness, got ${String(written)}`,
    );
  }
  const from = source ?? {};
  const meta = from.meta ?? (isHtml(from) && from.body != null ? bodyMetaTags(from.body) : []);
  // concat, not push(...): a page may hold more rules than a call takes arguments (a RangeError).
  return combineRules(headerRules(headerLines(from, 'x-robots-tag'), token).concat(metaRules(meta, token)));
}

/** A TDMRep declaration as a page gives it: its `tdm-reservation` and `tdm-policy`, as written. */
export interface TdmDeclarationText {
  readonly reservation?: readonly string[];
  readonly policy?: readonly string[];
}

/**
 * A page's TDMRep declarations (W3C TDM Reservation Protocol): its `tdm-reservation` / `tdm-policy`
 * response headers, and the `<meta name="tdm-reservation">` / `<meta name="tdm-policy">` tags of its
 * head (names case-insensitive), read from the same sources as `readPageDirectives`. Values as
 * written: what they mean, and which wins (the meta tag over the header over the origin's
 * tdmrep.json), is `responseVerdict`'s on `@politely/core/adapter`. Never throws on what a site sends.
 */
export function readTdmDeclarations(source: PageDirectivesSource): {
  readonly header: TdmDeclarationText;
  readonly meta: TdmDeclarationText;
} {
  const from = source ?? {};
  const meta = from.meta ?? (isHtml(from) && from.body != null ? bodyMetaTags(from.body) : []);
  const named = (name: string) => {
    const values: string[] = [];
    for (const tag of meta) {
      if (tag?.name?.trim().toLowerCase() === name && tag.content != null) values.push(tag.content);
    }
    return values;
  };
  return {
    header: { reservation: headerLines(from, 'tdm-reservation'), policy: headerLines(from, 'tdm-policy') },
    meta: { reservation: named('tdm-reservation'), policy: named('tdm-policy') },
  };
}

/** Every line of header `name`: Playwright and Puppeteer join repeated headers with a line break. */
function headerLines(source: PageDirectivesSource, name: string): string[] {
  const raw = source.rawHeaders;
  if (Array.isArray(raw)) {
    const lines: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (String(raw[i]).toLowerCase() === name) lines.push(String(raw[i + 1]));
    }
    return lines;
  }
  return linesOf(headerOf(source.headers, name));
}

/** True unless a Content-Type says the body is not HTML (a PDF, an image): then only headers count. */
function isHtml(source: PageDirectivesSource): boolean {
  const [type] = headerLines(source, 'content-type');
  return type === undefined || /html|xml/i.test(type);
}

/** The first prefix of a body's bytes decoded for its head. */
const FIRST_PREFIX = 64 * 1024;

/** The head's meta tags of a body, as text or bytes. */
function bodyMetaTags(body: string | Uint8Array): MetaTag[] {
  if (typeof body === 'string') return headMetaTags(body);
  // Bytes are decoded a growing prefix at a time: a head is a few kilobytes, and decoding all of a
  // large page to read them would cost more than the scan. A prefix that ends inside the head is
  // decoded again four times longer, up to the scan limit (the rescans add up to a third more).
  // Meta names and robots rules are ASCII, which UTF-8 and the legacy single-byte encodings keep as
  // it is; a UTF-16 byte-order mark is the one thing that decides the encoding before any meta tag
  // (the HTML standard's encoding sniffing, 13.2.3.1, as browsers do).
  const decoder = new TextDecoder(utf16Label(body) ?? 'utf-8');
  const all = Math.min(body.length, HEAD_SCAN_LIMIT);
  for (let size = Math.min(all, FIRST_PREFIX); ; size = Math.min(all, size * 4)) {
    const scan = scanHead(decoder.decode(body.subarray(0, size)));
    if (!scan.open || size >= all) return scan.tags;
  }
}

/** `utf-16le` or `utf-16be` when the bytes start with that byte-order mark. */
function utf16Label(body: Uint8Array): string | undefined {
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  return undefined;
}
