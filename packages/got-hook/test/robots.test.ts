import got from 'got';
import gotWithoutCause from 'got-14-0';
import { describe, expect, it } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import { internalOptions } from '../../../test/helpers/options.js';
import { getDisallowedDecision, isRobotsDisallowedError } from '../src/index.js';
import type { PolitelyGotContext } from '../src/request-context.js';
import { host, PRODUCT_TOKEN, paths, politeClient, politeOptions, rejectionOf, USER_AGENT } from './setup.js';

const ROBOTS = 'User-agent: *\nDisallow: /private\n';

describe('robots.txt rules', () => {
  it('fetches an allowed URL, after reading robots.txt once with our User-Agent', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS), '/public': html('ok') } });
    const client = politeClient();

    const first = await client(site.url('/public'));
    const second = await client(site.url('/public?again'));

    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(paths(site)).toEqual(['/robots.txt', '/public', '/public?again']);
    expect(site.requests('/robots.txt')[0]?.headers['user-agent']).toBe(USER_AGENT);
  });

  it('rejects a disallowed URL without sending it, with the deciding rule and line', async () => {
    const site = await host({
      routes: { '/robots.txt': text(`# rules\n${ROBOTS}`), '/private': html('secret') },
    });

    const error = await rejectionOf(politeClient()(site.url('/private/page')));

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
    expect(error.message).toContain('line 3');
    expect(site.requests('/private/page')).toHaveLength(0);
  });

  it('leaves the decision on error.options.context.politely, where every got version keeps it', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS) } });

    const error = await rejectionOf(politeClient()(site.url('/private')));

    const context = (error.options as { context: { politely: PolitelyGotContext } }).context;
    expect(context.politely.decision).toEqual(getDisallowedDecision(error));
  });

  it('follows the group for our product token over the * group', async () => {
    const robots = 'User-agent: *\nDisallow: /\n\nUser-agent: politebot\nDisallow: /mine\nAllow: /\n';
    const site = await host({ routes: { '/robots.txt': text(robots) }, fallback: html('ok') });
    const client = politeClient();

    expect((await client(site.url('/anything'))).statusCode).toBe(200);
    const error = await rejectionOf(client(site.url('/mine')));

    expect(getDisallowedDecision(error)?.rule).toEqual({ directive: 'disallow', pattern: '/mine', line: 5 });
    expect(paths(site)).toEqual(['/robots.txt', '/anything']);
  });

  it('rejects with crawl-delay-too-long when Crawl-delay is above maxCrawlDelayMs', async () => {
    const site = await host({ routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 60\n') } });

    const error = await rejectionOf(politeClient({ pacing: { maxCrawlDelayMs: 10_000 } })(site.url('/page')));

    expect(getDisallowedDecision(error)).toMatchObject({
      reason: 'crawl-delay-too-long',
      crawlDelayMs: 60_000,
    });
    expect(paths(site)).toEqual(['/robots.txt']);
  });

  it('surfaces the rejection through got (RequestError name, our code) when errors are thrown', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS) } });
    const client = got.extend(politeOptions());

    const error = await rejectionOf(client(site.url('/private')));

    expect(error.name).toBe('RequestError');
    expect(error.code).toBe('ERR_ROBOTS_DISALLOWED');
    expect(isRobotsDisallowedError(error)).toBe(true);
    // got 14.0 wraps hook errors without a `cause` (its own test below); later got keeps ours there.
    if (error.cause !== undefined) expect(isRobotsDisallowedError(error.cause)).toBe(true);
  });
});

describe('got 14.0 (hook errors wrapped without a cause)', () => {
  it('rejects with our code, and the guards read the decision from error.options.context', async () => {
    const site = await host({ routes: { '/robots.txt': text(ROBOTS), '/public': html('ok') } });
    const client = gotWithoutCause.extend(politeOptions(), { retry: { limit: 0 } });

    expect((await client(site.url('/public'))).statusCode).toBe(200);
    const error = await rejectionOf(client(site.url('/private')));

    expect(error.cause).toBeUndefined();
    expect(error.code).toBe('ERR_ROBOTS_DISALLOWED');
    expect(isRobotsDisallowedError(error)).toBe(true);
    expect(getDisallowedDecision(error)).toMatchObject({ reason: 'disallowed', url: site.url('/private') });
    expect(paths(site)).toEqual(['/robots.txt', '/public']);
  });
});

describe('robots.txt refreshed with a conditional request through got (issue 34)', () => {
  it("carries our If-None-Match through the page's got options, never the page's own, and takes the 304", async () => {
    const served: { ifNoneMatch: string | undefined; via: string | undefined; status: number }[] = [];
    const site = await host({
      routes: {
        '/robots.txt': (req, res) => {
          const ifNoneMatch = req.headers['if-none-match'];
          const status = ifNoneMatch === '"r1"' ? 304 : 200;
          served.push({ ifNoneMatch, via: req.headers['x-via'] as string | undefined, status });
          res.writeHead(status, { 'content-type': 'text/plain', etag: '"r1"' });
          res.end(status === 200 ? ROBOTS : undefined);
        },
      },
      fallback: html('ok'),
    });
    // From now: got reports each send at its real time, which moves the host's next start (a clock
    // months behind would put it months ahead, further than robots.txt's fetch waits for its slot).
    const clock = { t: Date.now() };
    const seen: string[] = [];
    const client = politeClient(
      internalOptions({
        userAgent: USER_AGENT,
        onEvent: (event) => {
          if (event.type === 'robots-fetch') seen.push(event.outcome);
        },
        // A sleep moves the fake time on, so a wait for a slot ends.
        clock: {
          now: () => clock.t,
          sleep: async (ms) => {
            clock.t += Math.max(ms, 0);
          },
        },
      }),
      got.extend({ headers: { 'x-via': 'got' } }),
    );
    const page = { headers: { 'if-none-match': '"page-tag"' } };

    expect((await client(site.url('/public'), page)).statusCode).toBe(200);
    clock.t += 86_400_000;
    expect((await client(site.url('/public'), page)).statusCode).toBe(200);
    const refused = await rejectionOf(client(site.url('/private/x'), page));

    expect(served).toEqual([
      { ifNoneMatch: undefined, via: 'got', status: 200 },
      { ifNoneMatch: '"r1"', via: 'got', status: 304 },
    ]);
    expect(seen).toEqual(['ok', 'not-modified']);
    expect(refused.code).toBe('ERR_ROBOTS_DISALLOWED');
  });
});
