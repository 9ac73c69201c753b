/**
 * fetchRobotsTxt against real loopback servers: what the server saw, and what the result says.
 */
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endless, hang, redirect, startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { fetchRobotsTxt } from '../../src/fetch/fetcher.js';
import { robotsPolicy } from '../../src/fetch/policy.js';
import type { FetchLike } from '../../src/fetch/types.js';

const UA = 'PoliteBot/1.0 (+https://example.com/bot)';
const defaults = { userAgent: UA, timeoutMs: 2000, maxBytes: 512_000, maxRedirects: 5 };
const decode = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

/** Holds the event loop, as a process that is not scheduled for that long would. */
function busyFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spinning on purpose
  }
}

/** Streams `total` bytes of rules in 64 KiB chunks with backpressure, recording how many the socket took. */
function bigBody(total: number, sent: { bytes: number; closed: boolean }) {
  return (_req: unknown, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const line = 'Disallow: /padding-padding-padding-padding-padding\n';
    const chunk = Buffer.from(
      `User-agent: *\n${line.repeat(Math.ceil(65_536 / line.length))}`.slice(0, 65_536),
    );
    res.on('close', () => {
      sent.closed = true;
    });
    const pump = () => {
      while (sent.bytes < total && !res.destroyed) {
        sent.bytes += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    pump();
  };
}

describe('fetchRobotsTxt against a fault server', () => {
  let a: TestHost;
  let b: TestHost;
  const tenMb = { bytes: 0, closed: false };

  beforeAll(async () => {
    a = await startHost({ ip: '127.0.0.21' });
    b = await startHost({
      ip: '127.0.0.22',
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /b/\n') },
    });
    a.route('/robots.txt', text('User-agent: *\nDisallow: /private/\n'));
    a.route('/hang.txt', hang());
    a.route('/endless.txt', endless());
    a.route('/10mb.txt', bigBody(10 * 1024 * 1024, tenMb));
    a.route('/gzip.txt', {
      status: 200,
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
      body: gzipSync('User-agent: *\nDisallow: /zipped/\n'),
    });
    a.route(
      '/cached.txt',
      text('', 200, { 'cache-control': 'max-age=600', expires: 'Thu, 01 Jan 2037 00:00:00 GMT' }),
    );
    a.route('/busy.txt', text('busy', 503, { 'retry-after': '120' }));
    a.route('/no-location.txt', { status: 302 });
    a.route('/to-ftp.txt', redirect('ftp://127.0.0.21/robots.txt'));
    a.route('/loop.txt', redirect('/loop.txt'));
    a.route('/cross.txt', redirect(b.url('/robots.txt'), 302));
    // Chains of n hops: /chain-n-k.txt -> /chain-n-(k+1).txt -> ... -> /chain-n-n.txt (200).
    for (let n = 1; n <= 6; n++) {
      for (let k = 0; k < n; k++)
        a.route(`/chain-${n}-${k}.txt`, redirect(`chain-${n}-${k + 1}.txt`, k % 2 ? 302 : 301));
      a.route(`/chain-${n}-${n}.txt`, text(`User-agent: *\nDisallow: /hops-${n}/\n`));
    }
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('200: the body, and the headers the server saw', async () => {
    const result = await fetchRobotsTxt(a.url('/robots.txt'), defaults);
    expect(result).toMatchObject({
      status: 200,
      redirects: 0,
      truncated: false,
      finalUrl: a.url('/robots.txt'),
    });
    expect(decode(result.body)).toBe('User-agent: *\nDisallow: /private/\n');
    const seen = a.requests('/robots.txt').at(-1);
    expect(seen?.headers['user-agent']).toBe(UA);
    expect(seen?.headers.accept).toBe('text/plain, */*;q=0.1');
    expect(seen?.method).toBe('GET');
  });

  it.each([1, 2, 3, 4, 5])('%i redirect hop(s) are followed (RFC 9309 2.3.1.2)', async (hops) => {
    const before = a.log.length;
    const result = await fetchRobotsTxt(a.url(`/chain-${hops}-0.txt`), defaults);
    expect(result).toMatchObject({
      status: 200,
      redirects: hops,
      finalUrl: a.url(`/chain-${hops}-${hops}.txt`),
    });
    expect(decode(result.body)).toContain(`/hops-${hops}/`);
    expect(a.log.length - before).toBe(hops + 1);
  });

  it('6 hops are too many: status 0, and the policy says unavailable', async () => {
    const before = a.log.length;
    const result = await fetchRobotsTxt(a.url('/chain-6-0.txt'), defaults);
    expect(result).toMatchObject({ status: 0, redirects: 5, failure: 'too-many-redirects' });
    expect(result.body).toBeUndefined();
    expect(a.log.length - before).toBe(6);
    expect(a.requests('/chain-6-6.txt')).toHaveLength(0);
    expect(robotsPolicy(result).outcome).toBe('unavailable');
  });

  it('a redirect loop burns hops and ends as too many redirects', async () => {
    const before = a.requests('/loop.txt').length;
    const result = await fetchRobotsTxt(a.url('/loop.txt'), defaults);
    expect(result).toMatchObject({ status: 0, failure: 'too-many-redirects' });
    expect(a.requests('/loop.txt').length - before).toBe(6);
  });

  it('maxRedirects 0 follows nothing', async () => {
    const result = await fetchRobotsTxt(a.url('/chain-1-0.txt'), { ...defaults, maxRedirects: 0 });
    expect(result).toMatchObject({ status: 0, redirects: 0, failure: 'too-many-redirects' });
  });

  it('follows a hop to another host', async () => {
    const before = b.requests('/robots.txt').length;
    const result = await fetchRobotsTxt(a.url('/cross.txt'), defaults);
    expect(result).toMatchObject({
      status: 200,
      redirects: 1,
      robotsUrl: a.url('/cross.txt'),
      finalUrl: b.url('/robots.txt'),
    });
    expect(decode(result.body)).toContain('/b/');
    expect(b.requests('/robots.txt').length - before).toBe(1);
    expect(b.requests('/robots.txt').at(-1)?.headers['user-agent']).toBe(UA);
  });

  it('a 3xx without Location (or to a non-http URL) stops there: unavailable', async () => {
    const noLocation = await fetchRobotsTxt(a.url('/no-location.txt'), defaults);
    expect(noLocation).toMatchObject({ status: 302, redirects: 0 });
    expect(noLocation.error).toMatch(/Location/);
    expect(robotsPolicy(noLocation).outcome).toBe('unavailable');
    const toFtp = await fetchRobotsTxt(a.url('/to-ftp.txt'), defaults);
    expect(toFtp).toMatchObject({ status: 301 });
    expect(robotsPolicy(toFtp).outcome).toBe('unavailable');
  });

  it('404 and 503 return no body, and keep caching headers', async () => {
    const missing = await fetchRobotsTxt(a.url('/missing.txt'), defaults);
    expect(missing).toMatchObject({ status: 404, truncated: false });
    expect(missing.body).toBeUndefined();
    const busy = await fetchRobotsTxt(a.url('/busy.txt'), defaults);
    expect(busy).toMatchObject({ status: 503, retryAfter: '120' });
    expect(busy.body).toBeUndefined();
    const cached = await fetchRobotsTxt(a.url('/cached.txt'), defaults);
    expect(cached).toMatchObject({ cacheControl: 'max-age=600', expires: 'Thu, 01 Jan 2037 00:00:00 GMT' });
  });

  it('a server that never answers times out: status 0, unreachable', async () => {
    const result = await fetchRobotsTxt(a.url('/hang.txt'), { ...defaults, timeoutMs: 300 });
    expect(result).toMatchObject({ status: 0, failure: 'timeout' });
    expect(result.error).toMatch(/timed out after 300 ms/);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(290);
    expect(robotsPolicy(result).outcome).toBe('unreachable');
  });

  it('a stall of our own process past the timeout still lets the request out before it times out', async () => {
    a.route('/stalled.txt', hang());
    const pending = fetchRobotsTxt(a.url('/stalled.txt'), { ...defaults, timeoutMs: 300 });
    // The process descheduled for longer than the timeout, right after the request was started (a
    // loaded machine): the timer is then due before the connection's completion is seen.
    busyFor(500);
    expect(await pending).toMatchObject({ status: 0, failure: 'timeout' });
    // The site was asked before it was judged unreachable.
    await expect.poll(() => a.requests('/stalled.txt').length).toBe(1);
  });

  it('a body that never ends times out too (the timeout covers the body)', async () => {
    const result = await fetchRobotsTxt(a.url('/endless.txt'), { ...defaults, timeoutMs: 300 });
    expect(result).toMatchObject({ status: 0, failure: 'timeout' });
    expect(robotsPolicy(result).outcome).toBe('unreachable');
  });

  it('a body that never ends is fine once maxBytes bytes arrived', async () => {
    const result = await fetchRobotsTxt(a.url('/endless.txt'), {
      ...defaults,
      maxBytes: 20,
      timeoutMs: 1000,
    });
    expect(result).toMatchObject({ status: 200, truncated: true });
    expect(decode(result.body)).toBe('User-agent: *\nDisallow: /never-ending/\n'.slice(0, 20));
  });

  it('a 10 MB body: 512,000 bytes are read and the rest is cancelled', async () => {
    const result = await fetchRobotsTxt(a.url('/10mb.txt'), defaults);
    expect(result).toMatchObject({ status: 200, truncated: true });
    expect(result.body?.byteLength).toBe(512_000);
    await expect.poll(() => tenMb.closed).toBe(true);
    // Socket buffers take some extra, but the server never got to send the 10 MB.
    expect(tenMb.bytes).toBeLessThan(5 * 1024 * 1024);
  });

  it('gunzips Content-Encoding: gzip (maxBytes counts decoded bytes)', async () => {
    const result = await fetchRobotsTxt(a.url('/gzip.txt'), defaults);
    expect(decode(result.body)).toBe('User-agent: *\nDisallow: /zipped/\n');
  });

  it('a refused connection is status 0, network, with the cause in the error', async () => {
    const closed = await startHost({ ip: '127.0.0.23' });
    const url = closed.url('/robots.txt');
    await closed.close();
    const result = await fetchRobotsTxt(url, defaults);
    expect(result).toMatchObject({ status: 0, failure: 'network' });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it("the caller's abort rejects with its reason (it is not a fetch outcome)", async () => {
    const controller = new AbortController();
    const pending = fetchRobotsTxt(a.url('/hang.txt'), { ...defaults, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('crawl stopped')), 50);
    await expect(pending).rejects.toThrow('crawl stopped');
  });
});

describe('fetchRobotsTxt with an injected fetch', () => {
  const chunks = async function* (parts: string[]) {
    for (const part of parts) yield new TextEncoder().encode(part);
  };

  it('reads an async-iterable body and cuts it at maxBytes', async () => {
    const seen: Parameters<FetchLike>[] = [];
    const fetch: FetchLike = async (...args) => {
      seen.push(args);
      return {
        status: 200,
        headers: new Headers(),
        body: chunks(['User-agent: *\n', 'Disallow: /x\n', 'more']),
      };
    };
    const result = await fetchRobotsTxt('https://example.com/robots.txt', {
      ...defaults,
      maxBytes: 20,
      fetch,
    });
    expect(decode(result.body)).toBe('User-agent: *\nDisall');
    expect(result.truncated).toBe(true);
    expect(seen[0]?.[1]).toMatchObject({ method: 'GET', redirect: 'manual', headers: { 'User-Agent': UA } });
  });

  it('times out a fetch that ignores its signal', async () => {
    const fetch: FetchLike = () => new Promise(() => {});
    const result = await fetchRobotsTxt('https://example.com/robots.txt', {
      ...defaults,
      timeoutMs: 50,
      fetch,
    });
    expect(result).toMatchObject({ status: 0, failure: 'timeout' });
  });

  it('a fetch that throws synchronously is a network failure, not a crash', async () => {
    const fetch: FetchLike = () => {
      throw new Error('proxy misconfigured');
    };
    const result = await fetchRobotsTxt('https://example.com/robots.txt', { ...defaults, fetch });
    expect(result).toMatchObject({ status: 0, failure: 'network', error: 'proxy misconfigured' });
  });

  it('a 2xx without a body is an empty robots.txt', async () => {
    const fetch: FetchLike = async () => ({ status: 204, headers: new Headers(), body: null });
    const result = await fetchRobotsTxt('https://example.com/robots.txt', { ...defaults, fetch });
    expect(result).toMatchObject({ status: 204, truncated: false });
    expect(result.body?.byteLength).toBe(0);
  });

  it('resolves a relative Location against the hop it came from', async () => {
    const urls: string[] = [];
    const fetch: FetchLike = async (url) => {
      urls.push(url);
      if (urls.length === 1)
        return { status: 301, headers: new Headers({ location: '../moved/robots.txt#x' }), body: null };
      return { status: 200, headers: new Headers(), body: chunks(['ok']) };
    };
    await fetchRobotsTxt('https://example.com/a/robots.txt', { ...defaults, fetch });
    expect(urls).toEqual(['https://example.com/a/robots.txt', 'https://example.com/moved/robots.txt']);
  });
});
