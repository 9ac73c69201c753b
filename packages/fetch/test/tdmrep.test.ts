/**
 * TDMRep (W3C TDM Reservation Protocol) through politeFetch, judged from the server's log: issue 34
 * point 1. Reserved pages of the site's tdmrep.json are never requested; a page answered with
 * `tdm-reservation: 1` rejects as a Content-Usage refusal does, its body withheld.
 */
import { getDisallowedDecision, isUsageRefusedError } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { html, type RouteSpec, text } from '../../../test/helpers/hosts.js';
import { host, paths, polite, rejectionOf } from './setup.js';

const FILE = JSON.stringify([
  { location: '/books/open/*', 'tdm-reservation': 0 },
  { location: '/books/*', 'tdm-reservation': 1, 'tdm-policy': 'https://publisher.test/tdm-policy' },
]);

const page = (headers: Record<string, string>): RouteSpec => ({
  status: 200,
  headers: { 'content-type': 'text/html', ...headers },
  body: '<p>ok</p>',
});

async function site() {
  return host({
    routes: {
      '/robots.txt': text('User-agent: *\nAllow: /\n'),
      '/.well-known/tdmrep.json': text(FILE),
      '/news/reserved': page({ 'tdm-reservation': '1' }),
      '/news/open': page({ 'tdm-reservation': '0' }),
    },
    fallback: html('ok'),
  });
}

describe('TDMRep through politeFetch (purpose ai-train)', () => {
  it('the issue: reserved pages never requested, a header-1 page rejected, header-0 and open pages fetched', async () => {
    const target = await site();
    const fetch = polite({ purpose: 'ai-train' });

    const books = [
      await rejectionOf(fetch(target.url('/books/1'))),
      await rejectionOf(fetch(target.url('/books/2'))),
    ];
    const reserved = await rejectionOf(fetch(target.url('/news/reserved')));
    const open = await fetch(target.url('/news/open'));
    const openBook = await fetch(target.url('/books/open/1'));

    expect(books.map((error) => error.code)).toEqual(['ERR_TDM_RESERVED', 'ERR_TDM_RESERVED']);
    expect(getDisallowedDecision(books[0])?.tdm).toMatchObject({
      source: 'tdmrep.json',
      policy: 'https://publisher.test/tdm-policy',
    });
    expect(reserved.code).toBe('ERR_TDM_RESERVED');
    expect(isUsageRefusedError(reserved)).toBe(true);
    expect(getDisallowedDecision(reserved)?.tdm).toMatchObject({ reserved: true, source: 'header' });
    expect([open.status, openBook.status]).toEqual([200, 200]);
    expect(paths(target)).toEqual([
      '/robots.txt',
      '/.well-known/tdmrep.json',
      '/news/reserved',
      '/news/open',
      '/books/open/1',
    ]);
  });

  it('without a purpose, no tdmrep.json is requested and the header is not read', async () => {
    const target = await site();
    const fetch = polite();
    const statuses = [
      (await fetch(target.url('/books/1'))).status,
      (await fetch(target.url('/news/reserved'))).status,
    ];
    expect(statuses).toEqual([200, 200]);
    expect(paths(target)).toEqual(['/robots.txt', '/books/1', '/news/reserved']);
  });
});
