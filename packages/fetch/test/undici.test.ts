import { createPoliteness } from '@politely/core';
import { Agent, Request as UndiciRequest, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { html, redirect, text } from '../../../test/helpers/hosts.js';
import { getDisallowedDecision, politeFetch } from '../src/index.js';
import { host, paths, polite, rejectionOf, track, USER_AGENT } from './setup.js';

const ROBOTS = 'User-agent: *\nDisallow: /private\n';

describe("undici's own fetch, wrapped with the fetch option", () => {
  it('sends pages and robots.txt through it, and checks every hop', async () => {
    const site = await host({
      routes: { '/robots.txt': text(ROBOTS), '/go': redirect('/private/x') },
      fallback: html('ok'),
    });
    const seen: string[] = [];
    const counted: typeof undiciFetch = (input, init) => {
      seen.push(String(input));
      return undiciFetch(input, init);
    };
    const fetch = polite({ fetch: counted });

    const response = await fetch(site.url('/open'));
    const error = await rejectionOf(fetch(site.url('/go')));

    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
    expect(getDisallowedDecision(error)?.url).toBe(site.url('/private/x'));
    expect(seen).toEqual([site.url('/robots.txt'), site.url('/open'), site.url('/go')]);
    expect(paths(site)).toEqual(['/robots.txt', '/open', '/go']);
  });

  it("takes undici's Request and passes undici's own init fields (dispatcher) through", async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS) }, fallback: html('ok') });
    const dispatcher = new Agent({ connections: 1 });
    try {
      const politeness = track(createPoliteness({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } }));
      const fetch = politeFetch(politeness, { fetch: undiciFetch });

      const response = await fetch(
        new UndiciRequest(site.url('/page'), { headers: { 'x-from': 'undici' } }),
        {
          dispatcher,
        },
      );
      const error = await rejectionOf(fetch(new UndiciRequest(site.url('/private/page')), { dispatcher }));

      expect(response.status).toBe(200);
      expect(site.requests('/page')[0]?.headers).toMatchObject({
        'x-from': 'undici',
        'user-agent': USER_AGENT,
      });
      expect(getDisallowedDecision(error)?.reason).toBe('disallowed');
      expect(paths(site)).toEqual(['/robots.txt', '/page']);
    } finally {
      await dispatcher.close();
    }
  });
});

describe('options', () => {
  it('rejects unknown and bad options with a TypeError naming them', () => {
    expect(() => politeFetch({ userAgent: USER_AGENT, maxRedirect: 3 } as never)).toThrow(
      /Unknown option `maxRedirect`/,
    );
    expect(() => politeFetch({ userAgent: USER_AGENT, maxRedirects: -1 })).toThrow(
      /`maxRedirects`.*`-1` \(number\)/,
    );
    expect(() => politeFetch({ userAgent: USER_AGENT, fetch: 'fetch' as never })).toThrow(/`fetch`/);
    expect(() => politeFetch({ userAgent: USER_AGENT, sendUserAgent: 'yes' as never })).toThrow(
      /`sendUserAgent`/,
    );
    expect(() => politeFetch(null as never)).toThrow(TypeError);
    const politeness = track(createPoliteness({ userAgent: USER_AGENT }));
    expect(() => politeFetch(politeness, { minDelayMs: 5 } as never)).toThrow(
      /Unknown politeFetch option `minDelayMs`/,
    );
  });
});
