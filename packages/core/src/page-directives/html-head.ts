/**
 * The `<meta name content>` elements of an HTML document's head, for readers that have the body as
 * text and no DOM (got, fetch, Crawlee's HttpCrawler). Robots meta tags belong in the head (Google's
 * robots meta tag specification), so the scan ends where an HTML parser would put the first element
 * in the body, and reads only what it must: a full tokenizer (htmlparser2, parse5) would parse the
 * whole body and add packages to every install of the core for a few attributes of a few elements.
 *
 * What counts as the head is what the WHATWG HTML standard's tree construction (13.2.6) puts there,
 * as parse5 and browsers (with scripting on, their default) do, so a got or fetch user sees the
 * elements `document.head` holds in a browser crawler:
 * - "before head", "in head" and "after head" are one scan: a `<meta>`, `<link>`, `<script>`,
 *   `<style>`, `<title>`, `<base>` or `<template>` after `</head>` (before anything opens the body)
 *   is put back in the head ("after head" insertion mode), and `</head>` itself ends nothing;
 * - the body opens at text other than white space, at any other start tag (`<body>`, `<p>`, `<div>`;
 *   `<noscript>` too once `</head>` was seen) and at `</body>`, `</html>` or `</br>`; other end tags
 *   are ignored;
 * - a `<template>`'s content is a separate fragment, not the head: nothing in it counts, and nothing
 *   in it opens the body, up to its own `</template>` (templates nest);
 * - `<noscript>` in the head is raw text (scripting on), so a meta tag inside it is not an element;
 * - the text of `script` (with its escape states), `style`, `title`, `noframes` ... is skipped to the
 *   end tag that really closes it (raw-text.ts), whatever `<meta` it holds; a self-closing `/` on
 *   them is ignored, as on any element that is not void;
 * - comments (`<!--`, closed by `-->`, `--!>`, or at once by `<!-->` / `<!--->`), doctypes,
 *   processing instructions and `</` + non-letter are skipped to their end; a `<` that starts no tag
 *   is text;
 * - tag and attribute names are case-insensitive, values quoted with `"` or `'` or unquoted (an
 *   unquoted value runs to white space or `>`: `name=robots/>` names `robots/`), the first of a
 *   repeated attribute wins, character references in values are decoded.
 */
import { isHtmlSpace, isLetter, rawTextEnd, scriptTextEnd } from './raw-text.js';

/** A `<meta>` element's name and content, as written (entities decoded). */
export interface MetaTag {
  readonly name: string | null;
  readonly content: string | null;
}

/** The head's meta tags, and whether the text ran out while the head could still go on. */
export interface HeadScan {
  readonly tags: MetaTag[];
  /** True when the text ended inside the head (or inside a tag, comment or script in it). */
  readonly open: boolean;
}

/** Start tags the "in head" insertion mode keeps in the head (`html` and `head` are merged or ignored). */
const IN_HEAD = new Set([
  'html',
  'head',
  'meta',
  'link',
  'title',
  'style',
  'script',
  'noscript',
  'noframes',
  'base',
  'basefont',
  'bgsound',
  'template',
]);
/** Elements whose text is not markup (raw text and RCDATA, scripting on); `script` has its own states. */
const RAW_TEXT = new Set(['style', 'title', 'noscript', 'noframes', 'textarea', 'xmp', 'iframe', 'noembed']);
/**
 * How much of a body is looked at: Google reads the first 15 MB of an HTML file (its crawler
 * documentation), so a robots meta tag after that is not one it honours either; heads are far shorter.
 */
export const HEAD_SCAN_LIMIT = 15 * 1024 * 1024;

/** The meta elements (name and content) of the document's head, in document order. */
export function headMetaTags(html: string): MetaTag[] {
  return scanHead(html.length > HEAD_SCAN_LIMIT ? html.slice(0, HEAD_SCAN_LIMIT) : html).tags;
}

/** Scans `text` for the head's meta elements (see the file comment for what the head is). */
export function scanHead(text: string): HeadScan {
  const tags: MetaTag[] = [];
  const inBody: HeadScan = { tags, open: false };
  const ranOut: HeadScan = { tags, open: true };
  /** After `</head>`: `<noscript>` opens the body there. */
  let afterHead = false;
  /** Open `<template>` elements: their content is neither head nor body. */
  let templates = 0;
  // A byte-order mark is dropped by decoding; one further in is text.
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code !== 0x3c /* < */) {
      if (templates > 0) {
        // A template's text is neither head nor body: on to its next tag.
        i = text.indexOf('<', i);
        if (i < 0) return ranOut;
        continue;
      }
      if (!isHtmlSpace(code)) return inBody;
      i++;
      continue;
    }
    if (text.startsWith('<!--', i)) {
      const end = commentEnd(text, i + 4);
      if (end < 0) return ranOut;
      i = end;
      continue;
    }
    const next = text.charCodeAt(i + 1);
    const closing = next === 0x2f; /* / */
    if (next === 0x21 /* ! */ || next === 0x3f /* ? */ || (closing && !isLetter(text.charCodeAt(i + 2)))) {
      // Doctype, CDATA, a bogus comment, `</>` (dropped) or `</` + non-letter: up to the next `>`.
      const end = text.indexOf('>', i + 2);
      if (end < 0) return ranOut;
      i = end + 1;
      continue;
    }
    if (!closing && !isLetter(next)) {
      // `<` that starts no tag is text (at the very end, maybe the start of a tag cut off).
      if (i + 1 >= text.length) return ranOut;
      if (templates === 0) return inBody;
      i++;
      continue;
    }
    const nameStart = closing ? i + 2 : i + 1;
    let nameEnd = nameStart;
    while (nameEnd < text.length) {
      const c = text.charCodeAt(nameEnd);
      if (isHtmlSpace(c) || c === 0x2f || c === 0x3e) break;
      nameEnd++;
    }
    const name = text.slice(nameStart, nameEnd).toLowerCase();
    // No `>` left: the tag cannot end (a quick answer to a page cut inside a huge tag).
    const tag = text.indexOf('>', nameEnd) < 0 ? undefined : readAttributes(text, nameEnd);
    if (tag === undefined) return ranOut;
    i = tag.end;
    if (closing) {
      if (name === 'template') {
        if (templates > 0) templates--;
      } else if (templates === 0) {
        if (name === 'head') afterHead = true;
        else if (name === 'body' || name === 'html' || name === 'br') return inBody;
      }
      continue;
    }
    if (templates > 0) {
      if (name === 'template') templates++;
      // Everything after a `<plaintext>` is text: no end tag, no more head.
      else if (name === 'plaintext') return inBody;
    } else {
      if (!IN_HEAD.has(name) || (afterHead && name === 'noscript')) return inBody;
      if (name === 'template') templates++;
      if (name === 'meta') {
        tags.push({
          name: tag.attributes.get('name') ?? null,
          content: tag.attributes.get('content') ?? null,
        });
      }
    }
    if (name === 'script' || RAW_TEXT.has(name)) {
      const end = name === 'script' ? scriptTextEnd(text, i) : rawTextEnd(text, name, i);
      if (end < 0) return ranOut;
      i = end;
    }
  }
  return ranOut;
}

/** Just after the comment whose text starts at `from` (after `<!--`); -1 when the text ends first. */
function commentEnd(text: string, from: number): number {
  // `<!-->` and `<!--->` are whole (empty) comments.
  if (text.charCodeAt(from) === 0x3e) return from + 1;
  if (text.startsWith('->', from)) return from + 2;
  let at = text.indexOf('--', from);
  while (at >= 0) {
    let after = at + 2;
    while (text.charCodeAt(after) === 0x2d) after++;
    if (text.charCodeAt(after) === 0x3e) return after + 1;
    if (text.startsWith('!>', after)) return after + 2;
    at = text.indexOf('--', after);
  }
  return -1;
}

interface ReadTag {
  readonly attributes: Map<string, string>;
  /** Index just after the tag's `>`. */
  readonly end: number;
}

/** The attributes from `from` to the tag's `>`; undefined when the text ends first. */
function readAttributes(text: string, from: number): ReadTag | undefined {
  const attributes = new Map<string, string>();
  let i = from;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (isHtmlSpace(code) || code === 0x2f /* / */) {
      // A `/` not before `>` is dropped like white space (the self-closing start tag state).
      i++;
      continue;
    }
    if (code === 0x3e /* > */) return { attributes, end: i + 1 };
    // An attribute name runs to white space, `/`, `>` or `=` (a leading `=` belongs to it).
    const start = i;
    i++;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (isHtmlSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
      i++;
    }
    const name = text.slice(start, i).toLowerCase();
    while (i < text.length && isHtmlSpace(text.charCodeAt(i))) i++;
    let value = '';
    if (text.charCodeAt(i) === 0x3d /* = */) {
      i++;
      while (i < text.length && isHtmlSpace(text.charCodeAt(i))) i++;
      const quote = text[i];
      if (quote === '"' || quote === "'") {
        const end = text.indexOf(quote, i + 1);
        if (end < 0) return undefined;
        value = text.slice(i + 1, end);
        i = end + 1;
      } else {
        const valueStart = i;
        while (i < text.length && !isHtmlSpace(text.charCodeAt(i)) && text.charCodeAt(i) !== 0x3e) i++;
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
