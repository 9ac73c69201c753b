/**
 * Where the text of an element whose content is not markup ends: `script`, and the raw text and
 * RCDATA elements (`style`, `title`, `noscript`, ...). A `<meta` inside them is text, never a tag, so
 * the head scan (html-head.ts) jumps over them, and must end the jump exactly where an HTML parser
 * ends the element: a page can hide a robots meta tag from a careless scanner, or show it a fake one,
 * by writing markup inside a script.
 *
 * Facts from the WHATWG HTML standard's tokenizer (13.2.5): raw text and RCDATA end at the first
 * `</name` followed by white space, `/` or `>` (case-insensitive); script data also has the "escaped"
 * states, entered by `<!--` and left by `-->`, inside which a `<script` opens a "double escaped" run
 * that only a `</script` closes (back to escaped), so `<script><!-- <script></script> x --></script>`
 * is one script element. parse5 and browsers follow these states; a plain search for `</script`
 * ends such a script early and reads the rest of it as markup.
 */

/** HTML white space (13.2.5 treats exactly these as separators): tab, LF, FF, CR, space. */
export const isHtmlSpace = (code: number) =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;

/** An ASCII letter: the only thing that starts a tag name. */
export const isLetter = (code: number) => (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);

/** Whether `text` at `at` is `<` or `</` (as `prefix` says), then `name` case-insensitively, then a tag-name end. */
function tagNameAt(text: string, at: number, prefix: '<' | '</', name: string): boolean {
  const start = at + prefix.length;
  if (!text.startsWith(prefix, at) || text.slice(start, start + name.length).toLowerCase() !== name) {
    return false;
  }
  const after = text.charCodeAt(start + name.length);
  return isHtmlSpace(after) || after === 0x2f /* / */ || after === 0x3e; /* > */
}

/**
 * The index of the `<` of the end tag that closes raw text or RCDATA element `name` (lower-case),
 * searching from `from`; -1 when the text ends first (the element then runs to the end).
 */
export function rawTextEnd(text: string, name: string, from: number): number {
  let at = text.indexOf('</', from);
  while (at >= 0) {
    if (tagNameAt(text, at, '</', name)) return at;
    at = text.indexOf('</', at + 2);
  }
  return -1;
}

/** The index of the `<` of the `</script` that closes a script element's text from `from`; -1 if none. */
export function scriptTextEnd(text: string, from: number): number {
  // 0: script data; 1: escaped (after `<!--`); 2: double escaped (after `<script` while escaped).
  let state = 0;
  let at = from;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === 0x2d /* - */ && state !== 0 && text.startsWith('-->', at)) {
      // A run of two or more dashes and `>` returns both escaped states to plain script data.
      state = 0;
      at += 3;
      continue;
    }
    if (code !== 0x3c /* < */) {
      at++;
      continue;
    }
    if (state === 0 && text.startsWith('<!--', at)) {
      // Its two dashes may be the start of the `-->` that leaves again (`<!-->`): look from them.
      state = 1;
      at += 2;
      continue;
    }
    if (state !== 2 && tagNameAt(text, at, '</', 'script')) return at;
    if (state === 1 && tagNameAt(text, at, '<', 'script')) {
      state = 2;
      at += 7;
      continue;
    }
    if (state === 2 && tagNameAt(text, at, '</', 'script')) {
      state = 1;
      at += 8;
      continue;
    }
    at++;
  }
  return -1;
}
