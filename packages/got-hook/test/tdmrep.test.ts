/**
 * TDMRep (W3C TDM Reservation Protocol) through got, judged from the servers' logs: issue 34 point 1.
 * A site's /.well-known/tdmrep.json reserves /books/* for text and data mining; with a TDM purpose
 * the reserved pages are never requested, and a page answered with `tdm-reservation: 1` is withheld.
 */
import { isUsageRefusedError, type PolitelyEvent } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { html, type RouteSpec, text } from '../../../test/helpers/hosts.js';
import { getDisallowedDecision, politenessOf } from '../src/index.js';
import { host, paths, politeClient, rejectionOf } from './setup.js';

const FILE = JSON.stringify([
  { location: '/books/open/*', 'tdm-reservation': 0 },
  { location: '/books/*', 'tdm-reservation': 1, 'tdm-policy': 'https://publisher.test/tdm-policy.json' },
]);

const page = (headers: Record<string, string>): RouteSpec => ({
  status: 200,
  headers: { 'content-type': 'text/html', ...headers },
  body: '<p>ok</p>',
});

async function site(tdmrep: RouteSpec = text(FILE)) {
  return host({
    routes: {
      '/robots.txt': text('User-agent: *\nAllow: /\n'),
      '/.well-known/tdmrep.json': tdmrep,
      '/news/reserved': page({ 'tdm-reservation': '1', 'tdm-policy': '/policy.html' }),
      '/news/open': page({ 'tdm-reservation': '0' }),
      '/news/odd': page({ 'tdm-reservation': 'yes' }),
    },
    fallback: html('ok'),
  });
}

describe('TDMRep through got (purpose ai-train)', () => {
  it('never requests the pages tdmrep.json reserves, and rejects with ERR_TDM_RESERVED and the policy', async () => {
    const target = await site();
    const events: PolitelyEvent[] = [];
    const client = politeClient({ purpose: 'ai-train', onEvent: (event) => void events.push(event) });

    const first = await rejectionOf(client(target.url('/books/1')));
    const second = await rejectionOf(client(target.url('/books/2')));
    const open = await client(target.url('/books/open/3'));

    expect(first.code).toBe('ERR_TDM_RESERVED');
    expect(second.code).toBe('ERR_TDM_RESERVED');
    expect(isUsageRefusedError(first)).toBe(true);
    expect(getDisallowedDecision(first)).toMatchObject({
      allowed: false,
      reason: 'tdm-reserved',
      tdm: {
        reserved: true,
        source: 'tdmrep.json',
        location: '/books/*',
        policy: 'https://publisher.test/tdm-policy.json',
        file: target.url('/.well-known/tdmrep.json'),
      },
    });
    expect(first.message).toContain('https://publisher.test/tdm-policy.json');
    expect(open.statusCode).toBe(200);
    // The file once, the reserved pages never.
    expect(paths(target)).toEqual(['/robots.txt', '/.well-known/tdmrep.json', '/books/open/3']);
    expect(target.requests('/.well-known/tdmrep.json')[0]?.headers.accept).toContain('application/json');
    expect(events.filter((event) => event.type === 'tdm-reserved')).toHaveLength(2);
  });

  it('withholds a page answered with tdm-reservation: 1, with the header policy; 0 and odd values pass', async () => {
    const target = await site();
    const client = politeClient({ purpose: 'ai-train' });

    const error = await rejectionOf(client(target.url('/news/reserved')));
    const open = await client(target.url('/news/open'));
    const odd = await client(target.url('/news/odd'));

    expect(error.code).toBe('ERR_TDM_RESERVED');
    expect(getDisallowedDecision(error)).toMatchObject({
      reason: 'tdm-reserved',
      tdm: { reserved: true, source: 'header', policy: target.url('/policy.html') },
    });
    expect([open.statusCode, odd.statusCode]).toEqual([200, 200]);
    expect(target.requests('/news/reserved')).toHaveLength(1);
  });

  it('ai-input counts as text and data mining too', async () => {
    const target = await site();
    const error = await rejectionOf(politeClient({ purpose: 'ai-input' })(target.url('/books/1')));
    expect(error.code).toBe('ERR_TDM_RESERVED');
    expect(target.requests('/books/1')).toHaveLength(0);
  });

  it('without a purpose, or for search, requests no tdmrep.json and reads no header', async () => {
    for (const purpose of [undefined, 'search'] as const) {
      const target = await site();
      const client = politeClient(purpose ? { purpose } : {});
      const responses = [await client(target.url('/books/1')), await client(target.url('/news/reserved'))];
      expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
      expect(paths(target)).toEqual(['/robots.txt', '/books/1', '/news/reserved']);
    }
  });

  it('a 404 leaves every URL unset, and is not reported', async () => {
    const target = await site(text('not found', 404));
    const events: PolitelyEvent[] = [];
    const client = politeClient({ purpose: 'ai-train', onEvent: (event) => void events.push(event) });
    const response = await client(target.url('/books/1'));
    expect(response.statusCode).toBe(200);
    expect(events.filter((event) => event.type === 'tdmrep-malformed')).toEqual([]);
    expect(politenessOf(client).stats().tdmrep.fetches).toMatchObject({ absent: 1, malformed: 0 });
    expect(paths(target)).toEqual(['/robots.txt', '/.well-known/tdmrep.json', '/books/1']);
  });

  it('a malformed file is reported (event and log) and leaves every URL unset', async () => {
    const target = await site(text('[{"location": "/books/*", "tdm-reservation": "1"}]'));
    const events: PolitelyEvent[] = [];
    const warnings: string[] = [];
    const client = politeClient({
      purpose: 'ai-train',
      onEvent: (event) => void events.push(event),
      logger: { warn: (message) => void warnings.push(message) },
    });

    const responses = [await client(target.url('/books/1')), await client(target.url('/books/2'))];

    expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
    expect(events.filter((event) => event.type === 'tdmrep-malformed')).toEqual([
      expect.objectContaining({ origin: target.origin, error: expect.stringContaining('tdm-reservation') }),
    ]);
    expect(warnings.filter((message) => message.includes('tdmrep.json'))).toHaveLength(1);
    expect(target.requests('/.well-known/tdmrep.json')).toHaveLength(1);
  });

  it('a 200 HTML page (a soft 404) is no file: unset, and nothing reported', async () => {
    const target = await site(html('<p>not found</p>'));
    const events: PolitelyEvent[] = [];
    const response = await politeClient({ purpose: 'ai-train', onEvent: (event) => void events.push(event) })(
      target.url('/books/1'),
    );
    expect(response.statusCode).toBe(200);
    expect(events.filter((event) => event.type === 'tdmrep-malformed')).toEqual([]);
    expect(paths(target)).toEqual(['/robots.txt', '/.well-known/tdmrep.json', '/books/1']);
  });

  it('a file that fails (503) leaves URLs unset and does not block the crawl', async () => {
    const target = await site({ status: 503, body: 'down' });
    const response = await politeClient({ purpose: 'ai-train' })(target.url('/books/1'));
    expect(response.statusCode).toBe(200);
    expect(paths(target)).toEqual(['/robots.txt', '/.well-known/tdmrep.json', '/books/1']);
  });
});
