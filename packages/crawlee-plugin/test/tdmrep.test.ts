/**
 * TDMRep (W3C TDM Reservation Protocol) in a Crawlee CheerioCrawler with a TDM purpose, against a
 * real local server whose log is the proof: the URLs the site's tdmrep.json reserves are never
 * fetched, a page reserved by its `tdm-reservation` header or meta tag is fetched but its handler
 * does not run, a meta tag's 0 overrides the header's 1, and the plugin's counters and events count it.
 */
import type { PolitelyEvent } from '@politely/core';
import { crawlStats, getDisallowedDecision, politenessOf } from '@politely/crawlee';
import { describe, expect, it } from 'vitest';
import { html, type RouteSpec, startHost, text } from '../../../test/helpers/hosts.js';
import { politeCheerioCrawler } from './harness.js';

const FILE = JSON.stringify([
  { location: '/books/', 'tdm-reservation': 1, 'tdm-policy': 'https://p.test/tdm' },
]);
const page = (head: string, headers: Record<string, string> = {}): RouteSpec => ({
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body: `<!doctype html><html><head><title>t</title>${head}</head><body><p>page</p></body></html>`,
});
const PATHS = ['/books/1', '/books/2', '/header-1', '/meta-1', '/header-1-meta-0', '/open'];

async function crawl(ip: string, purpose: 'ai-train' | undefined) {
  const site = await startHost({
    ip,
    routes: {
      '/robots.txt': text('User-agent: *\nAllow: /\n'),
      '/.well-known/tdmrep.json': text(FILE),
      '/header-1': page('', { 'tdm-reservation': '1', 'tdm-policy': 'https://p.test/header' }),
      '/meta-1': page(
        '<meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="/meta-policy">',
      ),
      '/header-1-meta-0': page('<meta name="TDM-Reservation" content="0">', { 'tdm-reservation': '1' }),
    },
    fallback: html('<p>ok</p>'),
  });
  const handled: string[] = [];
  const events: PolitelyEvent[] = [];
  /** What Crawlee's onSkippedRequest was told: its reason, and the refusal's own through `cause`. */
  const skips: string[] = [];
  try {
    const crawler = await politeCheerioCrawler(
      `tdmrep-${ip}`,
      {
        maxRequestRetries: 0,
        requestHandler: ({ request }) => void handled.push(new URL(request.url).pathname),
        onSkippedRequest: (args) =>
          void skips.push(
            `${new URL(args.url).pathname} ${args.reason} ${getDisallowedDecision(args)?.reason}`,
          ),
      },
      {
        userAgent: 'TdmBot/1.0 (+http://127.0.0.1/bot)',
        pacing: { minDelayMs: 0 },
        logger: false,
        onEvent: (event) => void events.push(event),
        ...(purpose ? { purpose } : {}),
      },
    );
    try {
      await crawler.run(PATHS.map((path) => site.url(path)));
    } finally {
      await politenessOf(crawler).close();
    }
    return { site, handled: handled.sort(), events, skips: skips.sort(), stats: crawlStats(crawler) };
  } finally {
    await site.close();
  }
}

describe('TDMRep in a CheerioCrawler', () => {
  it('purpose ai-train: file-reserved URLs never fetched, header/meta-reserved pages skipped, meta 0 over header 1', async () => {
    const { site, handled, events, skips, stats } = await crawl('127.0.0.215', 'ai-train');
    const fetched = site.log.map((request) => request.path);
    expect(fetched).not.toContain('/books/1');
    expect(fetched).not.toContain('/books/2');
    expect(site.requests('/.well-known/tdmrep.json')).toHaveLength(1);
    for (const path of ['/header-1', '/meta-1', '/header-1-meta-0', '/open']) expect(fetched).toContain(path);
    expect(handled).toEqual(['/header-1-meta-0', '/open']);
    expect(stats.skipped['tdm-reserved']).toBe(4);
    // Crawlee's reasons have none for TDMRep: `reason` is robotsTxt, the refusal's own is the cause's.
    expect(skips).toEqual(
      ['/books/1', '/books/2', '/header-1', '/meta-1'].map((path) => `${path} robotsTxt tdm-reserved`),
    );
    const reserved = events.flatMap((event) => (event.type === 'tdm-reserved' ? [event.decision] : []));
    expect(
      reserved
        .map((decision) => [new URL(decision.url).pathname, decision.tdm?.source, decision.tdm?.policy])
        .sort(),
    ).toEqual([
      ['/books/1', 'tdmrep.json', 'https://p.test/tdm'],
      ['/books/2', 'tdmrep.json', 'https://p.test/tdm'],
      ['/header-1', 'header', 'https://p.test/header'],
      ['/meta-1', 'meta', site.url('/meta-policy')],
    ]);
  });

  it('no purpose: no tdmrep.json requested, every handler runs', async () => {
    const { site, handled } = await crawl('127.0.0.216', undefined);
    expect(site.requests('/.well-known/tdmrep.json')).toHaveLength(0);
    expect(handled).toEqual([...PATHS].sort());
  });
});
