import { createPoliteness } from '@politely/core';
import got from 'got';
import { describe, expect, it } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import { getDisallowedDecision, politeGot, politenessOf } from '../src/index.js';
import {
  atTheWire,
  gapBetween,
  host,
  paths,
  politeOptions,
  rejectionOf,
  track,
  USER_AGENT,
} from './setup.js';

const ROBOTS = 'User-agent: *\nDisallow: /private\n';

describe("got's cache option", () => {
  it('serves a cached response without a second request, and still rejects disallowed URLs', async () => {
    const site = await host({
      routes: {
        '/robots.txt': text(ROBOTS),
        '/cached': text('fresh', 200, { 'cache-control': 'public, max-age=60' }),
      },
    });
    const client = got.extend(politeOptions(), { cache: new Map(), retry: { limit: 0 } });

    const first = await client(site.url('/cached'));
    const second = await client(site.url('/cached'));
    const error = await rejectionOf(client(site.url('/private')));

    expect([first.isFromCache, second.isFromCache]).toEqual([false, true]);
    expect(second.body).toBe('fresh');
    expect(error.code).toBe('ERR_ROBOTS_DISALLOWED');
    expect(paths(site)).toEqual(['/robots.txt', '/cached']);
  });
});

describe('composition with user hooks', () => {
  it('passes on the response of a user afterResponse hook that runs before ours, and still backs off', async () => {
    const site = await host({
      routes: { '/busy': text('slow down', 429, { 'retry-after': '1' }) },
      fallback: html('ok'),
    });
    const marked = got.extend({
      hooks: {
        afterResponse: [(response) => Object.assign(response, { body: `${String(response.body)}!` })],
      },
    });
    const client = marked.extend(politeOptions(), { retry: { limit: 0 }, throwHttpErrors: false });

    const bodies: unknown[] = [];
    const seen = await atTheWire([site], async () => {
      bodies.push((await client(site.url('/busy'))).body, (await client(site.url('/next'))).body);
    });

    expect(bodies).toEqual(['slow down!', 'ok!']);
    expect(gapBetween(seen, '/busy', '/next')).toBeGreaterThanOrEqual(1000);
  });

  it('checks the URL as rewritten by a user beforeRequest hook that runs before ours', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS) }, fallback: html('ok') });
    const rewrite = got.extend({
      hooks: {
        beforeRequest: [
          (options) => {
            options.url = new URL('/private/rewritten', options.url);
          },
        ],
      },
    });
    const client = rewrite.extend(politeOptions(), { retry: { limit: 0 } });

    const error = await rejectionOf(client(site.url('/public')));

    expect(getDisallowedDecision(error)?.url).toBe(site.url('/private/rewritten'));
    expect(paths(site)).toEqual(['/robots.txt']);
  });

  it('runs user hooks registered after ours for every call, as got does, checks what they leave, and keeps their responses', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS) }, fallback: html('ok') });
    const seen: string[] = [];
    const client = got.extend(politeOptions(), {
      retry: { limit: 0 },
      hooks: {
        beforeRequest: [
          (options) => {
            seen.push(String(options.url));
            options.headers['x-user-hook'] = 'after-politely';
          },
        ],
        afterResponse: [(response) => Object.assign(response, { body: `${String(response.body)}!` })],
      },
    });

    const response = await client(site.url('/public'));
    await rejectionOf(client(site.url('/private')));

    expect(response.body).toBe('ok!');
    expect(seen).toEqual([site.url('/public'), site.url('/private')]);
    expect(site.requests('/public')[0]?.headers['x-user-hook']).toBe('after-politely');
    expect(paths(site)).toEqual(['/robots.txt', '/public']);
  });
});

describe('the Politeness behind the options', () => {
  it('is exposed by politenessOf, and one instance shared by two clients fetches robots.txt once', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS) }, fallback: html('ok') });
    const politeness = track(createPoliteness({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } }));
    const options = politeGot(politeness);
    const [first, second] = [got.extend(options), got.extend(politeGot(politeness))];

    await first(site.url('/one'));
    await second(site.url('/two'));
    await rejectionOf(second(site.url('/private')));

    expect(politenessOf(options)).toBe(politeness);
    expect(politeness.stats().decisions).toMatchObject({ allowed: 2, disallowed: 1 });
    expect(site.requests('/robots.txt')).toHaveLength(1);
  });

  it('keeps the handle out of what got sees, and politenessOf rejects other objects', () => {
    const options = politeOptions();

    expect(Object.keys(options)).toEqual(['handlers', 'hooks']);
    expect(() =>
      politenessOf({
        handlers: [],
        hooks: { beforeRequest: [], afterResponse: [], beforeError: [], beforeRetry: [], beforeRedirect: [] },
      }),
    ).toThrow(TypeError);
  });

  it('rejects bad options when the options are made, not at the first request', () => {
    expect(() => politeGot({ userAgent: '' })).toThrow(/userAgent/);
    expect(() => politeGot({ userAgent: USER_AGENT, pacing: { minDelayMs: -1 } })).toThrow(/minDelayMs/);
  });
});
