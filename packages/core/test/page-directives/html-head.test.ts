/**
 * Which meta tags are in a page's head, decided as an HTML parser decides it (the WHATWG standard's
 * tree construction, 13.2.6, as parse5 and browsers with scripting on build `document.head`), for
 * the odd placements real pages have. parse5 (7.x, in the workspace as cheerio's dependency) is the
 * oracle of the last tests: what it puts in the head is what a got or fetch user must read.
 */
import fc from 'fast-check';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { headMetaTags } from '../../src/page-directives/html-head.js';
import { readPageDirectives } from '../../src/page-directives/read.js';

const robots = (content: string) => ({ name: 'robots', content });
const contents = (html: string) => headMetaTags(html).map((tag) => tag.content);

describe('a meta tag after </head> and before <body> is in the head ("after head" mode)', () => {
  it('is read, and nofollow applies', () => {
    const html =
      '<!doctype html><html><head><title>t</title></head><meta name="robots" content="nofollow"><body><a href="/x">x</a></body></html>';
    expect(headMetaTags(html)).toEqual([robots('nofollow')]);
    expect(readPageDirectives({ body: html }, 'mybot').nofollow).toBe(true);
    expect(readPageDirectives({ body: new TextEncoder().encode(html) }, 'mybot').nofollow).toBe(true);
  });

  it('with white space, comments, links, scripts and a second <head> between', () => {
    expect(
      contents(
        '<head></head>\n<!-- c --><link rel=x><script>1</script><head><meta name=robots content=a>\n<meta name=robots content=b><body>',
      ),
    ).toEqual(['a', 'b']);
  });

  it('stray end tags (</head> again, </div>, </p>) do not open the body; </body>, </html>, </br> do', () => {
    expect(
      contents('<head></div><meta name=robots content=a></p></head></head><meta name=robots content=b>'),
    ).toEqual(['a', 'b']);
    expect(contents('</head><meta name=robots content=a></body><meta name=robots content=b>')).toEqual(['a']);
    expect(contents('<head><meta name=robots content=a></br><meta name=robots content=b>')).toEqual(['a']);
  });

  it('a <body> that never comes: the head runs to the end of the page', () => {
    expect(contents('<html><head></head><meta name=robots content=a>')).toEqual(['a']);
    expect(contents('<meta name=robots content=a>')).toEqual(['a']);
  });

  it('text opens the body, before or after </head>', () => {
    expect(contents('<head></head>Hello<meta name=robots content=a>')).toEqual([]);
    expect(contents('<head></head>\n<meta name=robots content=a>x<meta name=robots content=b>')).toEqual([
      'a',
    ]);
    expect(contents('<head><meta name=robots content=a>x<meta name=robots content=b>')).toEqual(['a']);
    expect(contents('<head></head>&nbsp;<meta name=robots content=a>')).toEqual([]);
  });
});

describe('odd placements, decided as parse5 and browsers do', () => {
  it('<noscript> in the head is text (scripting on); after </head> it opens the body', () => {
    expect(
      contents('<head><noscript><meta name=robots content=a></noscript></head><meta name=robots content=b>'),
    ).toEqual(['b']);
    expect(
      contents('<head></head><noscript><meta name=robots content=a></noscript><meta name=robots content=b>'),
    ).toEqual([]);
  });

  it("a <template>'s content is not the head, nested templates included, and does not open the body", () => {
    expect(
      contents(
        '<head><template><p>x</p><meta name=robots content=t1><template></template><meta name=robots content=t2></template><meta name=robots content=a>',
      ),
    ).toEqual(['a']);
    expect(contents('<head><template><meta name=robots content=t1>')).toEqual([]);
  });

  it('"<meta" inside a script is text, through its escaped states', () => {
    expect(
      contents(
        '<head><script><!-- <script></script> <meta name=robots content=s> --></script><meta name=robots content=a>',
      ),
    ).toEqual(['a']);
    expect(contents('<head><script><!--></script><meta name=robots content=a>')).toEqual(['a']);
    expect(
      contents('<head><script>"</scripts><meta name=robots content=s>"</script><meta name=robots content=a>'),
    ).toEqual(['a']);
    expect(contents('<head><SCRIPT>x</SCRIPT\t><meta name=robots content=a>')).toEqual(['a']);
    // A self-closing slash does not close a script or a title: what follows is their text.
    expect(
      contents('<head><title/><meta name=robots content=t></title><meta name=robots content=a>'),
    ).toEqual(['a']);
  });

  it('comments end as the tokenizer ends them: <!-->, <!--->, --!>', () => {
    expect(
      contents(
        '<!--><meta name=robots content=a><!---><meta name=robots content=b><!-- x --!><meta name=robots content=c>',
      ),
    ).toEqual(['a', 'b', 'c']);
    expect(contents('<!-- <meta name=robots content=x> --- ><meta name=robots content=y> -->')).toEqual([]);
  });

  it('bogus markup (</ x>, </>, <?pi?>, <![CDATA[x]]>) is skipped, not taken for text', () => {
    expect(
      contents(
        '</ x><meta name=robots content=a></><meta name=robots content=b><![CDATA[x]]><meta name=robots content=c>',
      ),
    ).toEqual(['a', 'b', 'c']);
  });

  it('uppercase and unquoted attributes; an unquoted value runs to white space or >', () => {
    expect(
      headMetaTags('</HEAD><META NAME=ROBOTS CONTENT=NOFOLLOW><meta content=noindex name=robots/>'),
    ).toEqual([
      { name: 'ROBOTS', content: 'NOFOLLOW' },
      { name: 'robots/', content: 'noindex' },
    ]);
    expect(readPageDirectives({ body: '</HEAD><META NAME=ROBOTS CONTENT=NOFOLLOW>' }, 'mybot').nofollow).toBe(
      true,
    );
  });
});

describe('bytes', () => {
  it('a UTF-16 page is decoded by its byte-order mark, as browsers do', () => {
    const html = '<html><head><meta name="robots" content="nofollow"></head><body>x</body>';
    const le = new Uint8Array(2 + html.length * 2);
    const be = new Uint8Array(2 + html.length * 2);
    le.set([0xff, 0xfe]);
    be.set([0xfe, 0xff]);
    for (let i = 0; i < html.length; i++) {
      le[2 + 2 * i] = html.charCodeAt(i);
      be[3 + 2 * i] = html.charCodeAt(i);
    }
    expect(readPageDirectives({ body: le }, 'mybot').nofollow).toBe(true);
    expect(readPageDirectives({ body: be }, 'mybot').nofollow).toBe(true);
  });
});

describe('a huge head', () => {
  const late = (head: string) =>
    `<html><head>${head}<meta name="robots" content="nofollow"></head><body>x</body>`;
  const inlineStyle = (bytes: number) => `<style>${'a{b:c}'.repeat(Math.ceil(bytes / 6))}</style>`;

  it('is read past its first megabyte, as text or as bytes, and cut at 15 MiB (Google reads 15 MB of a page)', () => {
    const html = late(inlineStyle(3 * 1024 * 1024));
    expect(readPageDirectives({ body: html }, 'mybot').nofollow).toBe(true);
    expect(readPageDirectives({ body: new TextEncoder().encode(html) }, 'mybot').nofollow).toBe(true);
    expect(readPageDirectives({ body: late(inlineStyle(16 * 1024 * 1024)) }, 'mybot').nofollow).toBe(false);
  });
});

/** The meta tags parse5 puts in `<head>` (with the byte-order mark a decoder would have dropped). */
function parse5HeadMeta(html: string) {
  type Node = { nodeName: string; childNodes?: Node[]; attrs?: { name: string; value: string }[] };
  const document = parse(html.replace(/^\ufeff/, '')) as unknown as Node;
  const root = document.childNodes?.find((node) => node.nodeName === 'html');
  const head = root?.childNodes?.find((node) => node.nodeName === 'head');
  const found: { name: string | null; content: string | null }[] = [];
  const walk = (node: Node) => {
    for (const child of node.childNodes ?? []) {
      if (child.nodeName === 'meta') {
        const attribute = (name: string) => child.attrs?.find((a) => a.name === name)?.value ?? null;
        found.push({ name: attribute('name'), content: attribute('content') });
      }
      walk(child);
    }
  };
  if (head) walk(head);
  return found;
}

describe('the same head as parse5', () => {
  it('for every placement above', () => {
    for (const html of [
      '<html><head><title>t</title></head><meta name="robots" content="nofollow"><body>',
      '<head></div><meta name=robots content=a></p></head></head><meta name=robots content=b></body><meta name=robots content=c>',
      '<head><noscript><meta name=robots content=a></noscript><meta name=robots content=b></head><noscript><meta name=robots content=c>',
      '<head><template><meta name=robots content=t1><template></template><meta name=robots content=t2></template><meta name=robots content=a>',
      '<head><script><!-- <script></script> <meta name=robots content=s> --></script><meta name=robots content=a>',
      '<!--><meta name=robots content=a><!---><meta name=robots content=b><!-- x --!><meta name=robots content=c>',
      '</ x><meta name=robots content=a></><meta name=robots content=b>',
      '<META NAME=ROBOTS CONTENT=NOFOLLOW><meta content=noindex name=robots/>',
      '\ufeff<meta name=robots content=a>',
    ]) {
      expect(headMetaTags(html), html).toEqual(parse5HeadMeta(html));
    }
  });

  it('for generated markup', () => {
    const piece = fc.constantFrom(
      '<html>',
      '<head>',
      '</head>',
      '<body>',
      '</body>',
      '</html>',
      '</br>',
      '</div>',
      '<p>',
      'x',
      ' ',
      '\n',
      '<meta name=robots content=a>',
      '<META name="robots" content="b"/>',
      '<meta name=robots content=c',
      '<link rel=x>',
      '<title>',
      '</title>',
      '<script>',
      '</script>',
      '<!--',
      '-->',
      '--!>',
      '<!-->',
      '<noscript>',
      '</noscript>',
      '<template>',
      '</template>',
      '<style>',
      '</style>',
      '<!doctype html>',
      '<?x?>',
      '</ x>',
      '</>',
      '<',
      '>',
      '"',
      "'",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const html = pieces.join('');
        expect(headMetaTags(html)).toEqual(parse5HeadMeta(html));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('what a hostile page sends never throws', () => {
  it('a meta tag of 200,000 rules is read (not spread into one call, which throws a RangeError)', () => {
    const many = `${'x,'.repeat(200_000)}nofollow`;
    const got = readPageDirectives(
      { headers: { 'x-robots-tag': 'noarchive' }, body: `<meta name="robots" content="${many}">` },
      'mybot',
    );
    expect(got).toMatchObject({ nofollow: true, noarchive: true });
    expect(got.rules).toHaveLength(200_002);
  });
});
