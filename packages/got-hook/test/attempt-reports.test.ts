/**
 * Every got attempt reports what happened to it through its own pass (core's send pass), read from
 * its ClientRequest: a streamed response's 429 backs its host off as a promise's does, and each failed
 * attempt of a retried call slows its host, not only the call's last one, while a call the caller
 * gives up does not. Hooks taken without the handler still report the response got hands them.
 */
import type { PolitelyEvent } from '@politely/core';
import got from 'got';
import { describe, expect, it } from 'vitest';
import { endless, html, text } from '../../../test/helpers/hosts.js';
import { getDisallowedDecision, politenessOf } from '../src/index.js';
import {
  atTheWire,
  gapBetween,
  host,
  longestGaps,
  paths,
  politeOptions,
  rejectionOf,
  requestsTo,
} from './setup.js';

const ROBOTS = { '/robots.txt': text('User-agent: *\nDisallow: /private\n') };

/** A polite got client and the events of its Politeness. */
function watchedClient(minDelayMs: number, retry: Record<string, unknown> = { limit: 0 }) {
  const options = politeOptions({ pacing: { minDelayMs } });
  const events: PolitelyEvent[] = [];
  politenessOf(options).subscribe((event) => events.push(event));
  return { client: got.extend(options, { retry, throwHttpErrors: false }), events };
}

describe('what each attempt reports to its pass', () => {
  it("a streamed response's 429 backs its host off, though got runs no afterResponse hook for streams", async () => {
    const site = await host({
      routes: { ...ROBOTS, '/busy': text('slow down', 429, { 'retry-after': '1' }) },
      fallback: html('ok'),
    });
    const { client, events } = watchedClient(0);

    const streamed: string[] = [];
    const seen = await atTheWire([site], async () => {
      for await (const chunk of client.stream(site.url('/busy'))) streamed.push(String(chunk));
      await client(site.url('/next'));
    });

    expect(streamed.join('')).toBe('slow down');
    expect(events.filter((event) => event.type === 'backoff')).toMatchObject([{ status: 429, ms: 1000 }]);
    expect(gapBetween(seen, '/busy', '/next')).toBeGreaterThanOrEqual(1000);
  });

  it("each failed attempt of got's retries slows the host before the next attempt takes its slot", async () => {
    const site = await host({
      routes: {
        ...ROBOTS,
        '/reset': (_req, res) => {
          res.destroy();
        },
      },
    });
    // got retries a reset at once (no backoff of its own): only the host's pace spaces the attempts.
    const { client, events } = watchedClient(100, {
      limit: 2,
      calculateDelay: ({ computedValue }: { computedValue: number }) => (computedValue ? 1 : 0),
    });

    const seen = await atTheWire([site], () => rejectionOf(client(site.url('/reset'))));

    expect(paths(site)).toEqual(['/robots.txt', '/reset', '/reset', '/reset']);
    // Each error doubles the host's penalty: 100 ms, then 200, 400 and 800 after the third.
    const slowed = events.filter((event) => event.type === 'pace-changed' && event.reason === 'errors');
    expect(slowed.map((event) => event.type === 'pace-changed' && event.penalty)).toEqual([2, 4, 8]);
    const [second, third] = longestGaps(requestsTo(seen, '/reset'));
    expect(second).toBeGreaterThanOrEqual(200);
    expect(third).toBeGreaterThanOrEqual(400);
  });
});

describe('what counts against the host', () => {
  const errorSpells = (events: readonly PolitelyEvent[]) =>
    events.filter((event) => event.type === 'pace-changed' && event.reason === 'errors');

  it('a body the server cuts short slows the host; one the caller gives up (a stream destroyed) does not', async () => {
    const site = await host({
      routes: {
        ...ROBOTS,
        '/cut': (req, res) => {
          res.writeHead(200).write('part of it');
          setTimeout(() => req.socket.destroy(), 50);
        },
        '/long': endless(),
      },
    });
    const { client, events } = watchedClient(100);

    await new Promise<void>((resolve) => {
      const stream = client.stream(site.url('/long'));
      stream.once('data', () => {
        stream.destroy();
        resolve();
      });
    });
    // The place the stream held is free once it is destroyed: the next call goes.
    await client(site.url('/next'));
    const givenUp = errorSpells(events).length;
    const cut = await rejectionOf(client(site.url('/cut')));

    expect(givenUp).toBe(0);
    expect(cut).toMatchObject({ name: 'ReadError', code: 'ECONNRESET' });
    expect(errorSpells(events)).toMatchObject([{ penalty: 2 }]);
  });

  it('a call the caller aborts while it awaits its response does not slow the host', async () => {
    const controller = new AbortController();
    // The server has the request and never answers: the caller gives up then.
    const site = await host({
      routes: { ...ROBOTS, '/hang': () => controller.abort() },
      fallback: html('ok'),
    });
    const { client, events } = watchedClient(100, { limit: 1 });

    const aborted = await rejectionOf(client(site.url('/hang'), { signal: controller.signal }));
    await client(site.url('/next'));

    expect(aborted).toMatchObject({ name: 'AbortError' });
    expect(paths(site)).toEqual(['/robots.txt', '/hang', '/next']);
    expect(errorSpells(events)).toEqual([]);
  });
});

describe('hooks taken without the handler', () => {
  it('still refuse disallowed URLs, and a 429 got hands afterResponse backs the host off', async () => {
    const site = await host({
      routes: { ...ROBOTS, '/busy': text('slow down', 429, { 'retry-after': '1' }) },
      fallback: html('ok'),
    });
    const { hooks } = politeOptions();
    const client = got.extend({ hooks }, { retry: { limit: 0 }, throwHttpErrors: false });

    const refused = await rejectionOf(client(site.url('/private/x')));
    const seen = await atTheWire([site], async () => {
      await client(site.url('/busy'));
      await client(site.url('/next'));
    });

    expect(getDisallowedDecision(refused)?.reason).toBe('disallowed');
    expect(paths(site)).toEqual(['/robots.txt', '/busy', '/next']);
    expect(gapBetween(seen, '/busy', '/next')).toBeGreaterThanOrEqual(1000);
  });
});
