/**
 * The home page check behind Google's unreachable timeline: which answers count as the site answering,
 * read from a real loopback server.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hang, redirect, startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { probeSite } from '../../src/fetch/site-probe.js';

describe('probeSite(origin)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost({ ip: '127.0.0.88' });
  });
  afterAll(() => host.close());
  const probe = () => probeSite(host.origin, { userAgent: 'ProbeBot/1.0', timeoutMs: 300 });

  it('a page, a redirect or a client error is the server answering', async () => {
    for (const route of [text('home'), redirect('/en/'), text('gone', 404), text('no', 403)]) {
      host.route('/', route);
      expect((await probe()).answered).toBe(true);
    }
    const asked = host.requests('/');
    expect(asked.at(-1)?.headers['user-agent']).toBe('ProbeBot/1.0');
    expect(asked.every((r) => r.method === 'GET')).toBe(true);
  });

  it('a stall of our own process past the timeout still asks the site before giving up', async () => {
    host.route('/', hang());
    const before = host.requests('/').length;
    const pending = probe();
    // The process descheduled for longer than the timeout (a loaded machine), right after the probe began.
    const end = performance.now() + 500;
    while (performance.now() < end) {
      // spinning on purpose
    }
    expect(await pending).toEqual({ answered: false, status: 0 });
    await expect.poll(() => host.requests('/').length).toBe(before + 1);
  });

  it('5xx, 429, a dropped connection and a timeout are not', async () => {
    const drop = (req: { socket: { destroy(): void } }, _res: ServerResponse) => req.socket.destroy();
    const cases = [
      [text('oops', 500), 500],
      [text('busy', 503), 503],
      [text('slow down', 429), 429],
      [drop, 0],
      [hang(), 0],
    ] as const;
    for (const [route, status] of cases) {
      host.route('/', route);
      expect(await probe()).toEqual({ answered: false, status });
    }
  });

  it('a fetch that ignores its signal still ends at the timeout', async () => {
    const deaf = () => new Promise<never>(() => {});
    const probed = probeSite('http://deaf.test', { fetch: deaf, userAgent: 'ProbeBot/1.0', timeoutMs: 20 });
    expect(await probed).toEqual({ answered: false, status: 0 });
  });
});
