/**
 * What `spacing` changes, as the server sees it at the wire: 'response' counts the delay from the end
 * of the previous response (one request per host in flight), 'start' from the previous request's
 * real send. And the option is validated when `politeGot` is called.
 */
import { adapterKit } from '@politely/core/adapter';
import got from 'got';
import { describe, expect, it } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import type { WireRequest } from '../../../test/helpers/wire.js';
import { politeGot, politenessOf } from '../src/index.js';
import { atTheWire, host, longestGaps, track, USER_AGENT } from './setup.js';

/** Every page is answered 300 ms after it arrives. */
const slowSite = () =>
  host({
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
    fallback: { ...html('ok'), delayMs: 300 },
  });

function client(minDelayMs: number, spacing?: 'start' | 'response', maxConcurrentPerHost?: number) {
  const options = politeGot(
    {
      userAgent: USER_AGENT,
      pacing: { minDelayMs, ...(maxConcurrentPerHost ? { maxConcurrentPerHost } : {}) },
    },
    spacing ? { spacing } : {},
  );
  track(politenessOf(options));
  return got.extend(options, { retry: { limit: 0 } });
}

const pagesOf = (seen: readonly WireRequest[]) => seen.filter((request) => request.path.startsWith('/p'));

describe('spacing', () => {
  it("'response' (the default): the next request leaves the delay after the previous response, not its start", async () => {
    const site = await slowSite();
    const polite = client(200);

    const seen = await atTheWire([site], () => Promise.all([1, 2, 3].map((i) => polite(site.url(`/p${i}`)))));

    const pages = pagesOf(seen);
    expect(pages).toHaveLength(3);
    // 300 ms for the answer, then the 200 ms asked: the server never had two of them at once.
    for (const gap of longestGaps(pages)) expect(gap).toBeGreaterThanOrEqual(500);
  });

  it("'response' counts the delay from the response's headers, and lets the next go once the body is read", async () => {
    // Headers at once, the body's end 500 ms later: the download overlaps the 200 ms asked.
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first half, ');
        setTimeout(() => res.end('second half'), 500).unref();
      },
    });
    const options = politeGot({ userAgent: USER_AGENT, pacing: { minDelayMs: 200 } });
    const politeness = track(politenessOf(options));
    const polite = got.extend(options, { retry: { limit: 0 } });

    const seen = await atTheWire([site], async () => {
      const first = await polite(site.url('/p1'));
      // got's timings come from the same ClientRequest events politeGot watches (Date.now(), whole ms).
      const headersAt = first.timings.response ?? 0;
      const bodyEndAt = first.timings.end ?? 0;
      expect(bodyEndAt - headersAt).toBeGreaterThanOrEqual(250); // the client's view of the 500 ms
      // The host's next start counts from the headers, not from the body's end (politeGot's
      // clock readings and got's come from the same events; a busy CPU can part them by a few ms).
      const next = await adapterKit(politeness).nextStart(site.url('/p2'));
      expect(next).toBeGreaterThanOrEqual(headersAt + 200 - 5);
      expect(next).toBeLessThan(bodyEndAt + 200);
      await polite(site.url('/p2'));
    });

    const pages = pagesOf(seen);
    expect(pages).toHaveLength(2);
    // Never two at once: the second left after the first's body was read, more than the delay later.
    for (const gap of longestGaps(pages)) expect(gap).toBeGreaterThanOrEqual(400);
  });

  it("'start' with maxConcurrentPerHost 2: requests to a host may overlap, spaced from when each went out", async () => {
    // Each page is held until a second one is in flight too (or 5 s pass): only overlapping requests
    // are answered at once.
    const held: (() => void)[] = [];
    let mostInFlight = 0;
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: (_req, res) => {
        const answer = () => res.writeHead(200).end('ok');
        held.push(answer);
        mostInFlight = Math.max(mostInFlight, held.length);
        if (held.length >= 2) for (const release of held.splice(0)) release();
        else
          setTimeout(() => {
            const index = held.indexOf(answer);
            if (index >= 0) held.splice(index, 1)[0]?.();
          }, 5_000).unref();
      },
    });
    const polite = client(200, 'start', 2);

    const seen = await atTheWire([site], () => Promise.all([1, 2].map((i) => polite(site.url(`/p${i}`)))));

    const gaps = longestGaps(pagesOf(seen));
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toBeGreaterThanOrEqual(200);
    expect(mostInFlight).toBe(2); // the second went out while the first was still unanswered
  });

  it("'start' with the default maxConcurrentPerHost (1): the server never has two requests at once", async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
      fallback: (_req, res) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        setTimeout(() => {
          inFlight--;
          res.writeHead(200).end('ok');
        }, 300);
      },
    });
    const polite = client(100, 'start');

    const seen = await atTheWire([site], () => Promise.all([1, 2, 3].map((i) => polite(site.url(`/p${i}`)))));

    expect(pagesOf(seen)).toHaveLength(3);
    // 300 ms for each answer: the next goes once the previous response is over, so the gaps are longer.
    for (const gap of longestGaps(pagesOf(seen))) expect(gap).toBeGreaterThanOrEqual(300);
    expect(mostInFlight).toBe(1);
  });

  it('lets the next request go once a streamed response is read, and once a request failed', async () => {
    const site = await host({
      routes: {
        '/robots.txt': text('User-agent: *\nAllow: /\n'),
        '/broken': (_req, res) => {
          res.destroy();
        },
      },
      fallback: html('ok'),
    });
    const polite = client(50);

    const streamed: string[] = [];
    for await (const chunk of polite.stream(site.url('/s1'))) streamed.push(String(chunk));
    const failure = await polite(site.url('/broken')).catch((error: Error) => error);
    const after = await polite(site.url('/after'));

    expect(streamed.join('')).toBe('ok');
    expect(failure).toBeInstanceOf(Error);
    expect(after.body).toBe('ok');
    expect(site.log.map((request) => request.path)).toEqual(['/robots.txt', '/s1', '/broken', '/after']);
  });

  it('a request aborted while it waits for the one in flight is never sent, and frees its turn', async () => {
    const site = await slowSite();
    const polite = client(100);
    const first = polite(site.url('/p1'));
    const controller = new AbortController();
    const aborted = polite(site.url('/p2'), { signal: controller.signal }).catch((error: Error) => error);
    setTimeout(() => controller.abort(), 50);

    const error = await aborted;
    await first;
    await polite(site.url('/p3'));

    expect(error).toMatchObject({ name: 'AbortError' });
    expect(site.log.map((request) => request.path)).toEqual(['/robots.txt', '/p1', '/p3']);
  });

  it('rejects unknown pacing options and bad spacing values when the options are made', () => {
    expect(() => politeGot({ userAgent: USER_AGENT }, { spacing: 'end' as never })).toThrow(
      /`spacing` to be 'start' or 'response', got `"end"` \(string\)/,
    );
    expect(() => politeGot({ userAgent: USER_AGENT }, { spaceing: 'start' } as never)).toThrow(
      /Unknown politeGot pacing option `spaceing`/,
    );
  });
});
