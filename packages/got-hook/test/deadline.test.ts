/**
 * A request's own time limit bounds politely's waits (issue 10, item 6): got's `timeout.request` and
 * its signal stop the robots.txt wait and the pacing wait with got's ETIMEDOUT or
 * ERR_WAIT_TOO_LONG, never with a verdict; the page is never requested.
 */
import { isDeadlineExceededError, isRobotsDisallowedError, isWaitTooLongError } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { hang, html, text } from '../../../test/helpers/hosts.js';
import { host, paths, politeClient, rejectionOf } from './setup.js';

describe("got's own time limit bounds politely's waits", () => {
  it("timeout.request stops the robots.txt wait with got's timeout error (ETIMEDOUT), not a verdict", async () => {
    const site = await host({ routes: { '/robots.txt': hang(), '/page': html('ok') } });
    const client = politeClient({ robots: { timeoutMs: 5000 } });

    const error = await rejectionOf(client(site.url('/page'), { timeout: { request: 300 } }));

    expect(error.code).toBe('ETIMEDOUT');
    expect(error.message).toBe("Timeout awaiting 'request' for 300ms");
    expect(isDeadlineExceededError(error)).toBe(true); // our DeadlineExceededError is its cause
    expect(isRobotsDisallowedError(error)).toBe(false);
    expect(paths(site)).toEqual(['/robots.txt']);
  });

  it('timeout.request shorter than the pacing wait is refused at once (nothing reserved)', async () => {
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 5\n'), '/page': html('ok') },
    });
    const client = politeClient();
    expect((await client(site.url('/page'))).statusCode).toBe(200);

    const error = await rejectionOf(client(site.url('/page'), { timeout: { request: 500 } }));

    expect(error.code).toBe('ETIMEDOUT'); // got's timer would have fired: got's error, ours its cause
    expect(isWaitTooLongError(error)).toBe(true);
    expect(isRobotsDisallowedError(error)).toBe(false);
    expect(paths(site)).toEqual(['/robots.txt', '/page']);
  });

  it("got's signal stops the robots.txt wait", async () => {
    // robots.txt never answers; the caller gives up once the server has the request (not after a
    // fixed time a busy machine may not have reached the server in).
    let robotsArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      robotsArrived = resolve;
    });
    const site = await host({ routes: { '/robots.txt': () => robotsArrived(), '/page': html('ok') } });
    const client = politeClient({ robots: { timeoutMs: 5000 } });
    const controller = new AbortController();
    const request = client(site.url('/page'), { signal: controller.signal });
    await arrived;
    controller.abort(new Error('caller gave up'));

    const error = await rejectionOf(request);

    expect(isRobotsDisallowedError(error)).toBe(false);
    expect(paths(site)).toEqual(['/robots.txt']);
  });
});
