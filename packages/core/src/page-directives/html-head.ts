/**
 * The `<meta name content>` elements of an HTML document's head, for readers that have the body as
 * text and no DOM (got, fetch, Crawlee's HttpCrawler). Robots meta tags belong in the head (Google's
 * robots meta tag specification), so the scan ends where an HTML parser would end the head, and
 * reads only what it must: a full tokenizer (htmlparser2, parse5) would parse the whole body and add
 * packages to every install of the core for a few attributes of a few elements.
 *
 * It follows the tokenizer rules of the WHATWG HTML standard (13.2.5) where they matter here:
 * comments, doctypes and processing instructions are skipped; the text of `script`, `style`, `title`,
 * `textarea`, `noscript` and `template` is skipped to its end tag (a `<meta` in a script is not a
 * tag); attribute values quoted with `"` or `'` or unquoted; names case-insensitive; the first of a
 * repeated attribute wins; character references in values decoded. The head ends, as in the
 * standard's "in head" insertion mode, at `</head>`, at any start tag that cannot be in a head (`body`,
 * `p`, `div`, ...) and at text other than white space. Crawlee's cheerio `$('head meta')` and a
 * browser's `document.head` see the same elements.
 */

/** A `<meta>` element's name and content, as written (entities decoded). */
export interface MetaTag {
  readonly name: string | null;
  readonly content: string | null;
}

/** Elements the "in head" insertion mode keeps in the head (or that open it). */
const HEAD_ELEMENTS = new Set([
  'html',
  'head',
  'meta',
  'link',
  'title',
  'style',
  'script',
  'noscript',
  'base',
  'basefont',
  'bgsound',
  'template',
]);
/** Elements whose text is not markup: skipped up to their end tag. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'noscript', 'template']);
/** How much of a body is looked at: a head is far shorter; a page that never ends it is cut here. */
export const HEAD_SCAN_LIMIT = 1024 * 1024;

const isSpace = (code: number) =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
const isAlpha = (code: number) => (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);

/** The meta elements (name and content) of the document's head, in document order. */
export function headMetaTags(html: string): MetaTag[] {
  const text = html.length > HEAD_SCAN_LIMIT ? html.slice(0, HEAD_SCAN_LIMIT) : html;
  const tags: MetaTag[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code !== 0x3c /* < */) {
      // Text in the head (other than white space and a byte-order mark) starts the body.
      if (!isSpace(code) && code !== 0xfeff) return tags;
      i++;
      continue;
    }
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return tags;
      i = end + 3;
      continue;
    }
    const next = text.charCodeAt(i + 1);
    if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
      // Doctype, CDATA, bogus comment: up to the next `>`.
      const end = text.indexOf('>', i + 2);
      if (end < 0) return tags;
      i = end + 1;
      continue;
    }
    const closing = next === 0x2f; /* / */
    const nameStart = closing ? i + 2 : i + 1;
    if (!isAlpha(text.charCodeAt(nameStart))) {
      // `<` not starting a tag is text, which ends the head.
      return tags;
    }
    let nameEnd = nameStart;
    while (
      nameEnd < text.length &&
      !isSpace(text.charCodeAt(nameEnd)) &&
      !'/>'.includes(text[nameEnd] as string)
    ) {
      nameEnd++;
    }
    const name = text.slice(nameStart, nameEnd).toLowerCase();
    const tag = readAttributes(text, nameEnd);
    if (tag === undefined) return tags;
    if (closing) {
      if (name === 'head' || name === 'html' || name === 'body') return tags;
      i = tag.end;
      continue;
    }
    if (!HEAD_ELEMENTS.has(name)) return tags;
    if (name === 'meta') {
      tags.push({ name: tag.attributes.get('name') ?? null, content: tag.attributes.get('content') ?? null });
    }
    i = tag.end;
    if (RAW_TEXT.has(name) && !tag.selfClosing) {
      const close = new RegExp(`</${name}[\\s/>]`, 'ig');
      close.lastIndex = i;
      const found = close.exec(text);
      if (!found) return tags;
      i = found.index;
    }
  }
  return tags;
}

interface ReadTag {
  readonly attributes: Map<string, string>;
  /** Index just after the tag's `>`. */
  readonly end: number;
  readonly selfClosing: boolean;
}

/** The attributes from `from` to the tag's `>`; undefined when the text ends first. */
function readAttributes(text: string, from: number): ReadTag | undefined {
  const attributes = new Map<string, string>();
  let i = from;
  let selfClosing = false;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) {
      i++;
      continue;
    }
    if (code === 0x3e /* > */) return { attributes, end: i + 1, selfClosing };
    if (code === 0x2f /* / */) {
      selfClosing = text.charCodeAt(i + 1) === 0x3e;
      i++;
      continue;
    }
    selfClosing = false;
    // An attribute name runs to white space, `/`, `>` or `=` (a leading `=` belongs to it).
    const start = i;
    i++;
    while (i < text.length && !isSpace(text.charCodeAt(i)) && !'/>='.includes(text[i] as string)) i++;
    const name = text.slice(start, i).toLowerCase();
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    let value = '';
    if (text[i] === '=') {
      i++;
      while (i < text.length && isSpace(text.charCodeAt(i))) i++;
      const quote = text[i];
      if (quote === '"' || quote === "'") {
        const end = text.indexOf(quote, i + 1);
        if (end < 0) return undefined;
        value = text.slice(i + 1, end);
        i = end + 1;
      } else {
        const valueStart = i;
        while (i < text.length && !isSpace(text.charCodeAt(i)) && text[i] !== '>') i++;
        value = text.slice(valueStart, i);
      }
    }
    if (!attributes.has(name)) attributes.set(name, decodeReferences(value));
  }
  return undefined;
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  quot: '"',
  apos: "'",
  lt: '<',
  gt: '>',
  nbsp: '\u00a0',
};

/** Numeric references and the few named ones a robots value could hold; others are left as written. */
function decodeReferences(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const point =
        ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : '\ufffd';
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}
