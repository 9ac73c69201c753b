import { RobotsDisallowedError } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import { getDisallowedDecision, isRobotsDisallowedError } from '../src/index.js';
import { host, PRODUCT_TOKEN, paths, polite, rejectionOf, USER_AGENT } from './setup.js';

const ROBOTS = 'User-agent: *\nDisallow: /private\n';

describe('robots.txt rules', () => {
  it('fetches an allowed URL after reading robots.txt once, both with our User-Agent', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS), '/public': html('ok') } });
    const fetch = polite();

    const first = await fetch(site.url('/public'));
    const second = await fetch(new URL(site.url('/public?again')));

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await first.text()).toBe('ok');
    expect(paths(site)).toEqual(['/robots.txt', '/public', '/public?again']);
    expect(site.log.map((request) => request.headers['user-agent'])).toEqual([
      USER_AGENT,
      USER_AGENT,
      USER_AGENT,
    ]);
  });

  it("keeps the caller's own User-Agent, and sends none of ours with sendUserAgent: false", async () => {
    const site = await host({ fallback: html('ok') });

    await polite()(site.url('/mine'), { headers: { 'User-Agent': 'Custom/2.0' } });
    await polite({ sendUserAgent: false })(site.url('/default'));

    expect(site.requests('/mine')[0]?.headers['user-agent']).toBe('Custom/2.0');
    expect(site.requests('/default')[0]?.headers['user-agent']).not.toBe(USER_AGENT);
  });

  it('rejects a disallowed URL without sending it, with the deciding rule and line', async () => {
    const site = await host({
      routes: { '/robots.txt': text(`# rules\n${ROBOTS}`), '/private': html('secret') },
    });

    const error = await rejectionOf(polite()(site.url('/private/page')));

    expect(error).toBeInstanceOf(RobotsDisallowedError);
    expect(error.code).toBe('ERR_ROBOTS_DISALLOWED');
    expect(isRobotsDisallowedError(error)).toBe(true);
    expect(getDisallowedDecision(error)).toMatchObject({
      allowed: false,
      reason: 'disallowed',
      url: site.url('/private/page'),
      robotsUrl: site.url('/robots.txt'),
      productToken: PRODUCT_TOKEN,
      rule: { directive: 'disallow', pattern: '/private', line: 3 },
    });
    expect(paths(site)).toEqual(['/robots.txt']);
  });

  it('checks a Request input like a URL, and sends its method, headers and body', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS) }, fallback: html('ok') });
    const fetch = polite();
    let body = '';
    site.route('/form', (req, res) => {
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => res.writeHead(201).end('made'));
    });

    const made = await fetch(
      new Request(site.url('/form'), { method: 'POST', body: 'a=1', headers: { 'x-test': 'yes' } }),
    );
    const error = await rejectionOf(fetch(new Request(site.url('/private/x'))));

    expect(made.status).toBe(201);
    expect(body).toBe('a=1');
    expect(site.requests('/form')[0]).toMatchObject({ method: 'POST', headers: { 'x-test': 'yes' } });
    expect(getDisallowedDecision(error)?.reason).toBe('disallowed');
    expect(paths(site)).toEqual(['/robots.txt', '/form']);
  });

  it('rejects with crawl-delay-too-long when Crawl-delay is above maxCrawlDelayMs', async () => {
    const site = await host({ routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 60\n') } });

    const error = await rejectionOf(polite({ pacing: { maxCrawlDelayMs: 10_000 } })(site.url('/page')));

    expect(getDisallowedDecision(error)).toMatchObject({
      reason: 'crawl-delay-too-long',
      crawlDelayMs: 60_000,
    });
    expect(paths(site)).toEqual(['/robots.txt']);
  });

  it('passes non-http URLs (data:) to the inner fetch: there is no host to ask', async () => {
    const response = await polite()('data:text/plain,hello');

    expect(await response.text()).toBe('hello');
  });
});
