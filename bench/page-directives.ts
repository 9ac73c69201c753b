/**
 * What reading a page's robots rules costs: core's `readPageDirectives` (X-Robots-Tag headers and a
 * head-only scan of the HTML text) per page, against loading the same page into cheerio and asking
 * `$('head meta[name]')` (what a Crawlee CheerioCrawler user has at hand; cheerio is there through
 * @crawlee/cheerio and is skipped when it cannot be loaded). Pages: a small one, and a 200 KB one
 * with a busy head (scripts, styles, 40 link and meta tags), as news and shop pages have.
 * Run alone: `npm run bench -- page-directives`.
 */
import { loadavg } from 'node:os';
import { readPageDirectives } from '@politely/core';
import { markdownTable } from '../examples/demo/table.js';

const AGENT = 'PolitelyBench';
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-robots-tag': ['otherbot: noindex', 'max-snippet: 50'],
};

function page(headTags: number, bodyBytes: number): string {
  const head = [
    '<meta charset="utf-8"><title>A page</title>',
    '<script>window.dataLayer = []; if (a < b && "<meta name=robots content=noindex>") {}</script>',
    '<style>body { color: red } /* <meta> */</style>',
    ...Array.from({ length: headTags }, (_, i) =>
      i % 2
        ? `<link rel="preload" href="/asset/${i}.js" as="script">`
        : `<meta property="og:x${i}" content="v${i}">`,
    ),
    '<meta name="robots" content="noai, noimageai, max-image-preview:large">',
  ].join('\n');
  const paragraph = '<p>Some text with <a href="/x">a link</a> and <b>markup</b>.</p>\n';
  const body = paragraph.repeat(Math.ceil(bodyBytes / paragraph.length));
  return `<!doctype html><html lang="en"><head>\n${head}\n</head><body>${body}</body></html>`;
}

/** Median µs per call over `rounds` timed batches, after a warm-up batch. */
function timePerCall(run: () => unknown, batch: number, rounds = 7): number {
  for (let i = 0; i < batch; i++) run();
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) run();
    samples.push(((performance.now() - start) * 1000) / batch);
  }
  return samples.sort((a, b) => a - b)[Math.floor(rounds / 2)] as number;
}

export async function runPageDirectivesBench(): Promise<void> {
  const cheerio = await import('cheerio').catch(() => undefined);
  const pages = [
    { name: 'small (2 KB, 4 head tags)', html: page(4, 2_000) },
    { name: 'large (200 KB, 40 head tags)', html: page(40, 200_000) },
  ];
  const rows: string[][] = [];
  for (const { name, html } of pages) {
    const check = readPageDirectives({ headers: HEADERS, body: html }, AGENT);
    if (!check.noai || check.maxSnippet !== 50) throw new Error('the bench page was not read as written');
    const ours = timePerCall(() => readPageDirectives({ headers: HEADERS, body: html }, AGENT), 2000);
    const peer = cheerio
      ? timePerCall(() => {
          const $ = cheerio.load(html);
          return $('head meta[name]')
            .toArray()
            .map((element) => ({ name: $(element).attr('name'), content: $(element).attr('content') }));
        }, 50)
      : Number.NaN;
    rows.push([
      name,
      `${(html.length / 1024).toFixed(0)} KiB`,
      ours.toFixed(1),
      Number.isNaN(peer) ? 'not installed' : peer.toFixed(1),
      Number.isNaN(peer) ? '' : `${(peer / ours).toFixed(0)}x`,
    ]);
  }
  console.log(
    `\npage-level robots rules: µs per page (median of 7 batches; load ${loadavg()[0]?.toFixed(2)})\n`,
  );
  console.log(
    markdownTable(
      [
        { title: 'page' },
        { title: 'size', align: 'right' },
        { title: 'readPageDirectives (headers + head scan)', align: 'right' },
        { title: "cheerio.load + $('head meta')", align: 'right' },
        { title: 'ratio', align: 'right' },
      ],
      rows,
    ),
  );
}
