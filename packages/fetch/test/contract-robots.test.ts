/**
 * What fetch's contract asks of a host that gives no answer, beyond what Node's fetch shows (issue
 * 45.5-7): the robots.txt refusal is in the cause chain, the page is never sent while robots.txt is
 * unreachable, a host that came back is asked again, and a long poll answered by a second call to the
 * same host ends.
 */
import { createServer, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { getDisallowedDecision, politenessOf } from '../src/index.js';
import { closedPort } from './contract-harness.js';
import { host, paths, polite, rejectionOf } from './setup.js';

describe('fetch contract: a host without an answer', () => {
  it('rejects as fetch does, with the robots.txt refusal in the cause chain; the page is never sent', async () => {
    const port = await closedPort();
    const fetch = polite();

    const error = await rejectionOf(fetch(`http://127.0.0.1:${port}/page`));

    expect(error).toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    });
    expect(getDisallowedDecision(error)).toMatchObject({
      reason: 'unreachable',
      url: `http://127.0.0.1:${port}/page`,
      robots: { status: 0, code: 'ECONNREFUSED' },
    });
  });

  it('never sends the page while its robots.txt gets no answer', async () => {
    const site = await host({
      routes: { '/robots.txt': (req) => void req.socket.destroy() },
      fallback: { body: 'page' },
    });

    const error = await rejectionOf(polite()(site.url('/page')));

    expect(error).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(getDisallowedDecision(error)).toMatchObject({ reason: 'unreachable', robots: { status: 0 } });
    expect(paths(site)).toEqual(['/robots.txt']);
  });

  it('asks robots.txt again once the server is up, instead of a cached refusal', async () => {
    const port = await closedPort();
    const fetch = polite();
    const refused = await rejectionOf(fetch(`http://127.0.0.1:${port}/page`));

    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(req.url === '/robots.txt' ? 404 : 200).end('up');
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${port}/page`);

      expect([response.status, await response.text()]).toEqual([200, 'up']);
      expect(seen).toEqual(['/robots.txt', '/page']);
      expect(refused.cause).toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a long poll answered by a second call to the same host ends', async () => {
    const waiting: ServerResponse[] = [];
    const site = await host({
      routes: {
        '/poll': (_req, res) => {
          waiting.push(res);
        },
        '/send': (_req, res) => {
          for (const poll of waiting.splice(0)) poll.end('message');
          res.end('sent');
        },
      },
    });
    const fetch = polite();
    const events: string[] = [];
    politenessOf(fetch).subscribe((event) => events.push(event.type));

    const poll = fetch(site.url('/poll'));
    for (let i = 0; i < 200 && waiting.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const sent = await fetch(site.url('/send'));
    const polled = await poll;

    expect([await polled.text(), await sent.text()]).toEqual(['message', 'sent']);
    expect(paths(site)).toEqual(['/robots.txt', '/poll', '/send']);
    expect(events).toContain('in-flight-shared');
  }, 20_000);
});
