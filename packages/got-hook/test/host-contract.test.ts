/**
 * got's own documented behaviour, through politeGot: each case runs on plain got and on the polite
 * client in the same test, and what a got user sees (the result, the error's code, got's retries,
 * what reached the server) must be the same, politeness aside (robots.txt requests, pacing).
 */
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isDeadlineExceededError, type PolitelyEvent } from '@politely/core';
import got, { type Got, TimeoutError } from 'got';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { html, text } from '../../../test/helpers/hosts.js';
import { installInstantTimers } from '../../../test/helpers/instant-timers.js';
import { getDisallowedDecision, politeGot, politenessOf } from '../src/index.js';
import { host, paths, politeOptions, rejectionOf, track, USER_AGENT } from './setup.js';

const ALLOW_ALL = text('User-agent: *\nDisallow: /private\n');

/** got itself, and got with politeGot (events collected), with the same extra options. */
function clients(extra: Parameters<Got['extend']>[0] = {}) {
  const events: PolitelyEvent[] = [];
  const options = politeOptions({ onEvent: (event) => void events.push(event) });
  return { plain: got.extend(extra), polite: got.extend(options, extra), events };
}

/** A loopback port nothing listens on (a server opened and closed): connections are refused. */
async function refusedPort(): Promise<number> {
  const closed = createNetServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const { port } = closed.address() as { port: number };
  closed.close();
  await once(closed, 'close');
  return port;
}

/** The enumerable own keys of a context, symbols included: what a strict deepEqual compares. */
function enumerableKeys(context: object): (string | symbol)[] {
  return Reflect.ownKeys(context).filter((key) => Object.prototype.propertyIsEnumerable.call(context, key));
}

describe('got host contract: dependent requests to the same host', () => {
  it('a got stream piped into got.stream.put() on the same host completes, as on plain got', async () => {
    const uploads: string[] = [];
    const site = await host({
      routes: {
        '/robots.txt': ALLOW_ALL,
        '/source': html('payload'),
        '/post': async (req, res) => {
          let body = '';
          for await (const chunk of req) body += chunk;
          uploads.push(body);
          res.end(`got ${body}`);
        },
      },
    });
    const { plain, polite, events } = clients();
    for (const client of [plain, polite]) {
      const put = client.stream.put(site.url('/post'));
      const answer: Buffer[] = [];
      put.on('data', (chunk: Buffer) => answer.push(chunk));
      await pipeline(client.stream(site.url('/source')), put);
      await once(put, 'end').catch(() => undefined);
      expect(Buffer.concat(answer).toString()).toBe('got payload');
    }
    expect(uploads).toEqual(['payload', 'payload']);
    expect(events).toContainEqual(expect.objectContaining({ type: 'in-flight-shared' }));
  });

  it('a server handler calling the same host through the same client completes, as on plain got', async () => {
    let client: Got = got;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/robots.txt') res.end('User-agent: *\nAllow: /\n');
      else if (req.url === '/inner') res.end('inner');
      else client.stream(`http://127.0.0.1:${port}/inner`).pipe(res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      const { plain, polite } = clients();
      for (const each of [plain, polite]) {
        client = each;
        expect((await each(`http://127.0.0.1:${port}/outer`)).body).toBe('inner');
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('independent requests still go one at a time (maxConcurrentPerHost 1)', async () => {
    let open = 0;
    let most = 0;
    const site = await host({
      routes: { '/robots.txt': ALLOW_ALL },
      fallback: async (_req, res) => {
        open++;
        most = Math.max(most, open);
        await new Promise((resolve) => setTimeout(resolve, 100));
        open--;
        res.end('ok');
      },
    });
    const { polite } = clients();
    await Promise.all(['/a', '/b', '/c'].map((path) => polite(site.url(path))));
    expect(most).toBe(1);
  });
});

describe('got host contract: transport', () => {
  it('UNIX socket URLs: robots.txt is asked over the same socket, and obeyed', async () => {
    const socketPath = join(tmpdir(), `politely-got-${process.pid}-${Date.now()}.sock`);
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end(req.url === '/robots.txt' ? 'User-agent: *\nDisallow: /private\n' : 'ok');
    });
    server.listen(socketPath);
    await once(server, 'listening');
    try {
      const { plain, polite } = clients({ enableUnixSockets: true, retry: { limit: 0 } });
      expect((await plain(`http://unix:${socketPath}:/page`)).body).toBe('ok');
      expect((await polite(`http://unix:${socketPath}:/page`)).body).toBe('ok');
      const refused = await rejectionOf(polite(`http://unix:${socketPath}:/private`));
      expect(refused.code).toBe('ERR_ROBOTS_DISALLOWED');
      expect(seen).toEqual(['/page', '/robots.txt', '/page']);
    } finally {
      server.close();
      await rm(socketPath, { force: true });
    }
  });

  it('a request function returning undefined falls back to http.request, as got does', async () => {
    const site = await host({ routes: { '/robots.txt': ALLOW_ALL, '/page': html('ok') } });
    const { plain, polite } = clients({ request: () => undefined });
    expect((await plain(site.url('/page'))).body).toBe('ok');
    expect((await polite(site.url('/page'))).body).toBe('ok');
    expect(paths(site)).toEqual(['/page', '/robots.txt', '/page']);
  });

  it("robots.txt refused at the transport fails with got's code (ECONNREFUSED), retried by got, the refusal as cause", async () => {
    const port = await refusedPort();
    const url = `http://127.0.0.1:${port}/page`;
    const retries = { plain: 0, polite: 0 };
    const retry = { limit: 2, backoffLimit: 20 };
    const count = (name: keyof typeof retries) => ({ hooks: { beforeRetry: [() => void retries[name]++] } });
    const { plain, polite } = clients({ retry });
    const plainError = await rejectionOf(plain(url, count('plain')));
    const politeError = await rejectionOf(polite(url, count('polite')));
    expect(politeError.code).toBe(plainError.code);
    expect(politeError.code).toBe('ECONNREFUSED');
    expect(retries).toEqual({ plain: 2, polite: 2 });
    expect(getDisallowedDecision(politeError)).toMatchObject({
      reason: 'unreachable',
      robots: { status: 0, code: 'ECONNREFUSED' },
    });
  });

  it('calls at once going different ways: robots.txt refused other ways does not fail the call going its own, as on plain got', async () => {
    const deadPort = await refusedPort();
    const site = await host({ routes: { '/robots.txt': ALLOW_ALL, '/page': html('ok') } });
    // One call's request function sends everything to a closed port; the other goes the usual way.
    const toDeadPort = (_url: URL, options: RequestOptions, callback?: (response: IncomingMessage) => void) =>
      httpRequest({ ...options, port: deadPort }, callback);
    const { plain, polite } = clients({ retry: { limit: 0 } });
    for (const client of [plain, polite]) {
      // Two refused ways first: the call going the usual way waits on each of their flights in turn.
      const [refused, refusedToo, served] = await Promise.allSettled([
        client(site.url('/page'), { request: toDeadPort as never }),
        client(site.url('/page'), {
          request: ((...args: Parameters<typeof toDeadPort>) => toDeadPort(...args)) as never,
        }),
        client(site.url('/page')),
      ]);
      expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'ECONNREFUSED' } });
      expect(refusedToo).toMatchObject({ status: 'rejected', reason: { code: 'ECONNREFUSED' } });
      expect(served).toMatchObject({ status: 'fulfilled', value: { body: 'ok' } });
    }
    expect(paths(site)).toEqual(['/page', '/robots.txt', '/page']);
  });

  it('a first transport failure of robots.txt is not kept: once the host is up, the next request goes', async () => {
    const probe = createNetServer();
    probe.listen(0, '127.0.0.2');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    probe.close();
    await once(probe, 'close');
    const { polite } = clients({ retry: { limit: 0 } });
    const down = await rejectionOf(polite(`http://127.0.0.2:${port}/page`));
    expect(down.code).toBe('ECONNREFUSED');
    const server = createServer((req, res) => res.end(req.url === '/robots.txt' ? '' : 'back'));
    server.listen(port, '127.0.0.2');
    await once(server, 'listening');
    try {
      expect((await polite(`http://127.0.0.2:${port}/page`)).body).toBe('back');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("got's timeout.lookup bounds robots.txt: ETIMEDOUT, as plain got, not robots.timeoutMs", async () => {
    const { plain, polite } = clients({
      dnsLookup: (() => {}) as never, // a resolver that never answers
      timeout: { lookup: 50 },
      retry: { limit: 0 },
    });
    const plainError = await rejectionOf(plain('http://never-resolves.test/page'));
    const politeError = await rejectionOf(polite('http://never-resolves.test/page'));
    expect(plainError.code).toBe('ETIMEDOUT');
    expect(politeError.code).toBe('ETIMEDOUT');
    for (const error of [plainError, politeError]) {
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({
        name: 'TimeoutError',
        event: 'lookup',
        message: "Timeout awaiting 'lookup' for 50ms",
      });
    }
    expect(getDisallowedDecision(politeError)?.robots?.error).toBe("Timeout awaiting 'lookup' for 50ms");
  });
});

describe('got host contract: time limits', () => {
  it("a caller's short timeout.request decides nothing for others: got's ETIMEDOUT for it, the page for the rest", async () => {
    let answerRobots!: () => void;
    const robotsAsked = new Promise<void>((resolve) => {
      answerRobots = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const site = await host({
      routes: {
        '/robots.txt': async (_req, res) => {
          answerRobots();
          await released;
          res.end('User-agent: *\nAllow: /\n');
        },
        '/page': html('ok'),
      },
    });
    const { polite } = clients({ retry: { limit: 0 } });
    const patient = polite(site.url('/page'));
    await robotsAsked;
    const hurried = await rejectionOf(polite(site.url('/page'), { timeout: { request: 50 } }));
    release();
    expect(hurried.code).toBe('ETIMEDOUT');
    expect(hurried).toBeInstanceOf(TimeoutError);
    expect((await patient).body).toBe('ok');
    expect((await polite(site.url('/page'))).body).toBe('ok');
    expect(site.requests('/robots.txt')).toHaveLength(1);
  });
});

describe('got host contract: the wall clock', () => {
  it('a clock set back an hour (an NTP step, a fake clock a test installs) holds no host: the next request goes, as on plain got', async () => {
    const site = await host({ routes: { '/robots.txt': ALLOW_ALL, '/page': html('ok') } });
    const { plain, polite } = clients({ retry: { limit: 0 } });
    expect((await polite(site.url('/page'))).body).toBe('ok');
    // Only Date is faked, and it keeps moving (as a wall clock does after a step).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 3_600_000, shouldAdvanceTime: true });
    try {
      expect((await plain(site.url('/page'))).body).toBe('ok');
      expect((await polite(site.url('/page'))).body).toBe('ok');
    } finally {
      vi.useRealTimers();
    }
    expect(paths(site)).toEqual(['/robots.txt', '/page', '/page', '/page']);
  });
});

describe("got host contract: got's own timeout errors", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("timeout.request spent waiting for robots.txt is got's TimeoutError, retried by got as on plain got", async () => {
    const site = await host({
      routes: {
        '/robots.txt': () => undefined, // never answers
        '/page': () => undefined, // never answers
      },
    });
    const retries = { plain: 0, polite: 0 };
    const count = (name: keyof typeof retries) => ({ hooks: { beforeRetry: [() => void retries[name]++] } });
    const { plain, polite } = clients({ timeout: { request: 50 }, retry: { limit: 1, backoffLimit: 10 } });
    const plainError = await rejectionOf(plain(site.url('/page'), count('plain')));
    const politeError = await rejectionOf(polite(site.url('/page'), count('polite')));
    for (const error of [plainError, politeError]) {
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
        event: 'request',
        message: "Timeout awaiting 'request' for 50ms",
      });
    }
    expect(retries).toEqual({ plain: 1, polite: 1 });
    expect(isDeadlineExceededError(politeError)).toBe(true);
    expect(site.requests('/page')).toHaveLength(2); // plain got's two attempts; the polite ones never went
  });

  it('a resolver that answers at once is not timed by timeout.lookup: the page comes, as on plain got (got issue 857)', async () => {
    const site = await host({
      routes: {
        // Answered later than the lookup limit, so a limit wrongly left running would fire first.
        '/robots.txt': async (_req, res) => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          res.end('User-agent: *\nAllow: /\n');
        },
        '/page': html('ok'),
      },
    });
    const ip = new URL(site.url('/')).hostname;
    // Answers in the same step, so the socket has its address before anyone could listen for 'lookup'.
    const dnsLookup = (_name: string, options: unknown, callback?: unknown) => {
      const answer = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      if (typeof options === 'object' && (options as { all?: boolean }).all)
        answer(null, [{ address: ip, family: 4 }]);
      else answer(null, ip, 4);
    };
    const { plain, polite } = clients({
      dnsLookup: dnsLookup as never,
      agent: { http: new Agent() }, // no keep-alive: every request looks its host up
      timeout: { lookup: 1 },
      retry: { limit: 0 },
    });
    const url = site.url('/page').replace(ip, 'site.test');
    expect((await plain(url)).body).toBe('ok');
    expect((await polite(url)).body).toBe('ok');
  });

  it("under a fake clock the test moves for the page's socket (as got's own suite does), timeout.lookup ends as on plain got", async () => {
    const { plain, polite } = clients({
      dnsLookup: (() => {}) as never, // a resolver that never answers
      timeout: { lookup: 50 },
      retry: { limit: 0 },
    });
    vi.useFakeTimers();
    try {
      const runClockOnSocket = (client: Got) =>
        client('http://never-resolves.test/page').on('request', (request) =>
          request.on('socket', () => vi.runAllTimers()),
        );
      const plainError = await rejectionOf(runClockOnSocket(plain));
      const politeError = await rejectionOf(runClockOnSocket(polite));
      for (const error of [plainError, politeError]) {
        expect(error).toBeInstanceOf(TimeoutError);
        expect(error).toMatchObject({ event: 'lookup', message: "Timeout awaiting 'lookup' for 50ms" });
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("under a setTimeout that runs at once (as in got's own suite), the request times out as on plain got, at once", async () => {
    const { plain, polite } = clients({
      dnsLookup: (() => {}) as never, // a resolver that never answers
      timeout: { lookup: 1, connect: 1, socket: 1, send: 1, response: 1, request: 1 },
      retry: { limit: 0 },
    });
    installInstantTimers();
    const startedAt = performance.now();
    const plainError = await rejectionOf(plain('http://never-resolves.test/page'));
    const politeError = await rejectionOf(polite('http://never-resolves.test/page'));
    vi.unstubAllGlobals();
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect(plainError).toBeInstanceOf(TimeoutError);
    expect(politeError).toBeInstanceOf(TimeoutError);
    expect(politeError.code).toBe(plainError.code);
  });
});

describe('got host contract: options as given', () => {
  it('a user-agent header set to undefined sends none, as got does', async () => {
    const site = await host({ routes: { '/robots.txt': ALLOW_ALL, '/page': html('ok') } });
    const { plain, polite } = clients({ headers: { 'user-agent': undefined } });
    await plain(site.url('/page'));
    await polite(site.url('/page'));
    const pages = site.requests('/page');
    expect(pages.map((request) => request.headers['user-agent'])).toEqual([undefined, undefined]);
    expect(site.requests('/robots.txt')[0]?.headers['user-agent']).toBe(USER_AGENT);
  });

  it('options.context holds only what the caller put there, on every attempt', async () => {
    const site = await host({ routes: { '/robots.txt': ALLOW_ALL, '/page': text('busy', 503) } });
    const seen: unknown[][] = [];
    const { plain, polite } = clients({
      context: { foo: 'bar' },
      retry: { limit: 1, backoffLimit: 10 },
      hooks: {
        beforeRequest: [(options) => void seen.push(enumerableKeys(options.context))],
      },
    });
    await rejectionOf(plain(site.url('/page')));
    await rejectionOf(polite(site.url('/page')));
    expect(seen).toEqual([['foo'], ['foo'], ['foo'], ['foo']]);
  });

  it("a beforeRetry hook of the caller's sees options.context as the caller gave it, as on plain got", async () => {
    const site = await host({ routes: { '/robots.txt': ALLOW_ALL, '/page': text('busy', 503) } });
    const seen: unknown[][] = [];
    const { plain, polite } = clients({
      context: { foo: 'bar' },
      retry: { limit: 1, backoffLimit: 10 },
      hooks: {
        beforeRetry: [(error) => void seen.push(enumerableKeys(error.options.context))],
      },
    });
    await rejectionOf(plain(site.url('/page')));
    await rejectionOf(polite(site.url('/page')));
    expect(seen).toEqual([['foo'], ['foo']]);
    expect(paths(site)).toEqual(['/page', '/page', '/robots.txt', '/page', '/page']);
  });
});

describe("got host contract: the caller's beforeRequest hooks", () => {
  const toPrivate = (options: { url?: URL | string | undefined }) => {
    if (String(options.url).endsWith('/page')) options.url = new URL('/private', options.url);
  };

  it('a hook after politely (a later extend, or per call) that rewrites the URL: the URL sent is the one checked', async () => {
    const site = await host({
      routes: { '/robots.txt': ALLOW_ALL, '/page': html('page'), '/private': html('secret') },
    });
    const { plain, polite } = clients();
    const later = polite.extend({ hooks: { beforeRequest: [toPrivate] } });
    expect((await plain(site.url('/page'), { hooks: { beforeRequest: [toPrivate] } })).body).toBe('secret');
    const perCall = await rejectionOf(polite(site.url('/page'), { hooks: { beforeRequest: [toPrivate] } }));
    const extended = await rejectionOf(later(site.url('/page')));
    for (const error of [perCall, extended]) {
      expect(getDisallowedDecision(error)).toMatchObject({ allowed: false, reason: 'disallowed' });
      expect(getDisallowedDecision(error)?.url).toMatch(/\/private$/);
    }
    // Only plain got's request reached /private; the polite client asked robots.txt once and sent nothing else.
    expect(paths(site)).toEqual(['/private', '/robots.txt']);
  });

  it("a caller's hook that throws fails the call with its error, as on plain got: robots.txt is not asked", async () => {
    const port = await refusedPort();
    const thrower = () => {
      throw new Error('from the hook');
    };
    const { plain, polite, events } = clients({ retry: { limit: 0 }, hooks: { beforeRequest: [thrower] } });
    const url = `http://127.0.0.1:${port}/page`;
    const plainError = await rejectionOf(plain(url));
    const politeError = await rejectionOf(polite(url));
    expect(politeError.message).toBe(plainError.message);
    expect(politeError.message).toBe('from the hook');
    expect(events.filter((event) => event.type === 'robots-fetch')).toEqual([]);
  });

  it('a redirect hop is checked after the hooks too: what is sent is what was checked', async () => {
    const site = await host({
      routes: {
        '/robots.txt': ALLOW_ALL,
        '/start': (_req, res) => void res.writeHead(302, { location: '/page' }).end(),
        '/page': html('page'),
        '/private': html('secret'),
      },
    });
    const { polite } = clients({ retry: { limit: 0 } });
    const later = polite.extend({ hooks: { beforeRequest: [() => undefined] } });
    expect((await later(site.url('/start'))).body).toBe('page');
    const error = await rejectionOf(later(site.url('/start'), { hooks: { beforeRequest: [toPrivate] } }));
    expect(getDisallowedDecision(error)?.url).toMatch(/\/private$/);
    expect(paths(site)).toEqual(['/robots.txt', '/start', '/page', '/start']);
  });
});

describe('got host contract: the response verdict on every path', () => {
  it('with purpose ai-train, a page answered tdm-reservation: 1 is withheld from the promise and the stream alike', async () => {
    const site = await host({
      routes: {
        '/robots.txt': ALLOW_ALL,
        '/reserved': { status: 200, body: 'reserved body', headers: { 'tdm-reservation': '1' } },
      },
    });
    const politeness = track(
      politenessOf(politeGot({ userAgent: USER_AGENT, purpose: 'ai-train', pacing: { minDelayMs: 0 } })),
    );
    const client = got.extend(politeGot(politeness), { retry: { limit: 0 } });
    const fromPromise = await rejectionOf(client(site.url('/reserved')));
    expect(fromPromise.code).toBe('ERR_TDM_RESERVED');
    const stream = client.stream(site.url('/reserved'));
    const bytes: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => bytes.push(chunk));
    const [fromStream] = (await once(stream, 'error')) as [Error & { code?: string }];
    expect(fromStream.code).toBe('ERR_TDM_RESERVED');
    expect(bytes).toHaveLength(0);
    expect(politeness.stats().skipped.response).toBe(2);
  });
});
