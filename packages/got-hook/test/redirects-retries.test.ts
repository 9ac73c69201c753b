import got from 'got';
import { describe, expect, it } from 'vitest';
import { type Handler, html, redirect, text } from '../../../test/helpers/hosts.js';
import { getDisallowedDecision } from '../src/index.js';
import {
  atTheWire,
  host,
  longestGaps,
  paths,
  politeClient,
  politeOptions,
  rejectionOf,
  requestsTo,
} from './setup.js';

describe('redirects: got runs beforeRequest again for every hop', () => {
  it('rejects a redirect into a disallowed path; the target is never requested', async () => {
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /private\n'), '/go': redirect('/private/x') },
      fallback: html('secret'),
    });

    const error = await rejectionOf(politeClient()(site.url('/go')));

    expect(getDisallowedDecision(error)).toMatchObject({ reason: 'disallowed', url: site.url('/private/x') });
    expect(paths(site)).toEqual(['/robots.txt', '/go']);
  });

  it('rejects a redirect to a percent-encoded disallowed path (/%70rivate is /private, RFC 9309 2.2.2)', async () => {
    const site = await host({
      routes: {
        '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
        '/go': redirect('/%70rivate/secret2'),
        '/go-too': redirect('/priv%61te/secret3'),
      },
      fallback: html('secret'),
    });
    const client = politeClient();

    for (const start of ['/go', '/go-too']) {
      const error = await rejectionOf(client(site.url(start)));
      expect(getDisallowedDecision(error)).toMatchObject({
        reason: 'disallowed',
        rule: { pattern: '/private' },
      });
    }
    // The server, which decodes both to /private/..., never saw them.
    expect(paths(site)).toEqual(['/robots.txt', '/go', '/go-too']);
  });

  it("checks a cross-host redirect against the target host's robots.txt", async () => {
    const target = await host({
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /blocked\n') },
      fallback: html('ok'),
    });
    const source = await host({
      routes: { '/to-blocked': redirect(target.url('/blocked')), '/to-open': redirect(target.url('/open')) },
    });
    const client = politeClient();

    const error = await rejectionOf(client(source.url('/to-blocked')));
    const response = await client(source.url('/to-open'));

    expect(getDisallowedDecision(error)).toMatchObject({
      reason: 'disallowed',
      robotsUrl: target.url('/robots.txt'),
    });
    expect(response.url).toBe(target.url('/open'));
    expect(paths(source)).toEqual(['/robots.txt', '/to-blocked', '/to-open']);
    expect(paths(target)).toEqual(['/robots.txt', '/open']);
  });
});

describe('retries: each attempt takes its own slot', () => {
  it('spaces got retries by the host delay, as seen by the server', async () => {
    let calls = 0;
    const flaky: Handler = (_req, res) => {
      calls += 1;
      res.writeHead(calls < 3 ? 500 : 200).end(calls < 3 ? 'down' : 'ok');
    };
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n'), '/flaky': flaky },
    });
    // got's own backoff is ~1 ms here, so any spacing the server sees comes from the hook.
    const client = got.extend(politeOptions({ pacing: { minDelayMs: 300 } }), {
      retry: { limit: 2, calculateDelay: ({ computedValue }) => (computedValue > 0 ? 1 : 0) },
    });

    let status = 0;
    const seen = await atTheWire([site], async () => {
      status = (await client(site.url('/flaky'))).statusCode;
    });

    expect(status).toBe(200);
    const attempts = requestsTo(seen, '/flaky');
    expect(attempts).toHaveLength(3);
    for (const gap of longestGaps(attempts)) expect(gap).toBeGreaterThanOrEqual(300);
  });
});
