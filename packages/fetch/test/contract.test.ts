/**
 * politeFetch against Node's fetch, behaviour by behaviour (issue 45): each row is one call made both
 * ways against the same loopback hosts; what the caller sees and what the servers saw must be equal.
 * The four rows of `politeness by design` assert the difference docs/fetch.md names instead.
 */
import { createHash } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ContractCase,
  closedPort,
  type Fetch,
  runCase,
  type Sites,
  seeResponse as see,
  stableBoundary,
} from './contract-harness.js';
import { USER_AGENT } from './setup.js';

const HELLO_SHA256 = `sha256-${createHash('sha256').update('hello').digest('base64')}`;
/** One blob: URL for both sides (the URL is the response's url). */
const BLOB_URL = URL.createObjectURL(new Blob(['in a blob'], { type: 'text/plain' }));
const echo = (sites: { a: { url(path: string): string } }, path = '/echo') => sites.a.url(path);
const post = (body: unknown, extra: RequestInit = {}) => ({ method: 'POST', body, ...extra }) as RequestInit;
/** A one-chunk stream, as a fresh body for each side. */
const streamOf = (text: string) =>
  new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
/** The echo's JSON with a multipart boundary made stable. */
const json = async (response: Response) => JSON.parse(stableBoundary(await response.text()));

const requests: ContractCase[] = [
  { name: 'a GET Request', call: async (f, s) => see(await f(new Request(echo(s)))) },
  {
    name: "a Request's headers",
    call: async (f, s) => see(await f(new Request(echo(s), { headers: { 'x-a': '1' } }))),
  },
  { name: "a Request's string body", call: async (f, s) => see(await f(new Request(echo(s), post('x=1')))) },
  {
    name: "init's method and body over the Request's",
    call: async (f, s) => see(await f(new Request(echo(s), post('x')), { method: 'PUT', body: 'y' })),
  },
  {
    name: "a Request's URLSearchParams body and its content type",
    call: async (f, s) => see(await f(new Request(echo(s), post(new URLSearchParams({ q: '1' }))))),
  },
  {
    name: "a Request's referrer (Referer sent)",
    call: async (f, s) => see(await f(new Request(echo(s), { referrer: s.a.url('/from?q=1') }))),
  },
  {
    name: "a Request's referrer with referrerPolicy no-referrer",
    call: async (f, s) =>
      see(await f(new Request(echo(s), { referrer: s.a.url('/from'), referrerPolicy: 'no-referrer' }))),
  },
  {
    name: "a Request's referrer and unsafe-url policy across a cross-origin redirect",
    call: async (f, s) =>
      see(
        await f(
          new Request(s.a.url(`/go/302?to=${encodeURIComponent(s.b.url('/echo'))}`), {
            referrer: s.a.url('/from?q=1'),
            referrerPolicy: 'unsafe-url',
          }),
        ),
      ),
  },
  {
    name: "a Request's referrer across a cross-origin redirect (default policy)",
    call: async (f, s) =>
      see(
        await f(
          new Request(s.a.url(`/go/302?to=${encodeURIComponent(s.b.url('/echo'))}`), {
            referrer: s.a.url('/from?q=1'),
          }),
        ),
      ),
  },
  {
    name: "init's referrer across a same-origin redirect",
    call: async (f, s) => see(await f(s.a.url('/go/301?to=/echo'), { referrer: s.a.url('/from?q=1') })),
  },
  {
    name: "a Request's matching integrity",
    call: async (f, s) => see(await f(new Request(s.a.url('/hello'), { integrity: HELLO_SHA256 }))),
  },
  {
    name: "a Request's integrity mismatch rejects",
    call: async (f, s) => see(await f(new Request(s.a.url('/hello'), { integrity: 'sha256-AAAA' }))),
  },
  {
    name: 'integrity checked on the last response of a followed redirect',
    call: async (f, s) => see(await f(s.a.url('/go/302?to=/hello'), { integrity: HELLO_SHA256 })),
  },
  {
    name: 'integrity mismatch on the last response of a followed redirect rejects',
    call: async (f, s) => see(await f(s.a.url('/go/302?to=/hello'), { integrity: 'sha256-AAAA' })),
  },
  {
    name: "init's integrity mismatch rejects",
    call: async (f, s) => see(await f(s.a.url('/hello'), { integrity: 'sha256-AAAA' })),
  },
  {
    name: "a Request's keepalive",
    call: async (f, s) => see(await f(new Request(echo(s), { keepalive: true }))),
  },
  {
    name: "a Request's mode no-cors",
    call: async (f, s) => see(await f(new Request(s.a.url('/go/302?to=/echo'), { mode: 'no-cors' }))),
  },
  {
    name: "a Request's cache no-store (no-cache headers sent)",
    call: async (f, s) => see(await f(new Request(echo(s), { cache: 'no-store' } as RequestInit))),
  },
  {
    name: "a Request's cache no-cache (max-age=0 sent)",
    call: async (f, s) => see(await f(new Request(echo(s), { cache: 'no-cache' } as RequestInit))),
  },
  {
    name: "a Request's mode same-origin rejects a cross-origin hop",
    call: async (f, s) =>
      see(
        await f(
          new Request(s.a.url(`/go/302?to=${encodeURIComponent(s.b.url('/echo'))}`), { mode: 'same-origin' }),
        ),
      ),
  },
  {
    name: "a Request's credentials omit",
    call: async (f, s) => see(await f(new Request(echo(s), { credentials: 'omit' }))),
  },
  {
    name: "a Request's aborted signal rejects",
    call: async (f, s) => see(await f(new Request(echo(s), { signal: AbortSignal.abort() }))),
  },
  {
    name: "a Request's redirect manual",
    call: async (f, s) => see(await f(new Request(s.a.url('/go/302?to=/echo'), { redirect: 'manual' }))),
  },
  {
    name: "a Request's redirect error rejects",
    call: async (f, s) => see(await f(new Request(s.a.url('/go/302?to=/echo'), { redirect: 'error' }))),
  },
  {
    name: "a Request's body is used once sent",
    call: async (f, s) => {
      const request = new Request(echo(s), post('x'));
      await (await f(request)).text();
      return request.bodyUsed;
    },
  },
];

const bodies: ContractCase[] = [
  { name: 'a string body', call: async (f, s) => see(await f(echo(s), post('x=1'))) },
  { name: 'an empty string body', call: async (f, s) => see(await f(echo(s), post(''))) },
  {
    name: 'a URLSearchParams body',
    call: async (f, s) => see(await f(echo(s), post(new URLSearchParams({ a: '1', b: 'x y' })))),
  },
  {
    name: 'a FormData body',
    call: async (f, s) => {
      const form = new FormData();
      form.append('a', '1');
      form.append('file', new Blob(['data'], { type: 'text/plain' }), 'f.txt');
      return see(await f(echo(s), post(form)), json);
    },
  },
  {
    name: 'a Blob body with its type',
    call: async (f, s) => see(await f(echo(s), post(new Blob(['blob'], { type: 'text/x-blob' })))),
  },
  {
    name: 'an ArrayBuffer body',
    call: async (f, s) => see(await f(echo(s), post(new TextEncoder().encode('ab').buffer))),
  },
  {
    name: 'a Uint8Array body',
    call: async (f, s) => see(await f(echo(s), post(new TextEncoder().encode('u8')))),
  },
  {
    name: 'a DataView body',
    call: async (f, s) => see(await f(echo(s), post(new DataView(new TextEncoder().encode('dv').buffer)))),
  },
  {
    name: 'a ReadableStream body (duplex half)',
    call: async (f, s) =>
      see(await f(echo(s), { ...post(streamOf('stream')), duplex: 'half' } as RequestInit)),
  },
  {
    name: 'an async iterable body (duplex half)',
    call: async (f, s) => {
      async function* chunks() {
        yield new TextEncoder().encode('it');
        yield new TextEncoder().encode('er');
      }
      return see(await f(echo(s), { ...post(chunks()), duplex: 'half' } as RequestInit));
    },
  },
  {
    name: 'a stream body without duplex rejects',
    call: async (f, s) => see(await f(echo(s), post(streamOf('x')))),
  },
  { name: 'a null body', call: async (f, s) => see(await f(echo(s), post(null))) },
  { name: 'a GET with a body rejects', call: async (f, s) => see(await f(echo(s), { body: 'x' })) },
  {
    name: 'a HEAD with a body rejects',
    call: async (f, s) => see(await f(echo(s), { method: 'HEAD', body: 'x' })),
  },
];

const redirects: ContractCase[] = [
  {
    name: '301 turns POST into GET',
    call: async (f, s) => see(await f(s.a.url('/go/301?to=/echo'), post('x'))),
  },
  {
    name: '302 turns POST into GET',
    call: async (f, s) => see(await f(s.a.url('/go/302?to=/echo'), post('x'))),
  },
  {
    name: '303 turns PUT into GET',
    call: async (f, s) => see(await f(s.a.url('/go/303?to=/echo'), { method: 'PUT', body: 'x' })),
  },
  {
    name: '303 keeps HEAD',
    call: async (f, s) => see(await f(s.a.url('/go/303?to=/echo'), { method: 'HEAD' })),
  },
  {
    name: '307 keeps POST, body and content type',
    call: async (f, s) =>
      see(await f(s.a.url('/go/307?to=/echo'), post('x', { headers: { 'content-type': 'text/x' } }))),
  },
  {
    name: '308 keeps PUT and body',
    call: async (f, s) => see(await f(s.a.url('/go/308?to=/echo'), { method: 'PUT', body: 'x' })),
  },
  {
    name: '301 drops the body headers with the body',
    call: async (f, s) =>
      see(await f(s.a.url('/go/301?to=/echo'), post('x', { headers: { 'content-type': 'text/x' } }))),
  },
  { name: 'a chain of 3 followed', call: async (f, s) => see(await f(s.a.url('/chain/3'))) },
  { name: '20 redirects followed', call: async (f, s) => see(await f(s.a.url('/chain/20'))) },
  { name: 'the 21st redirect rejects', call: async (f, s) => see(await f(s.a.url('/chain/21'))) },
  {
    name: 'manual returns the 3xx with its Location',
    call: async (f, s) => {
      const response = await f(s.a.url('/go/302?to=/echo'), { redirect: 'manual' });
      return { ...((await see(response)) as object), location: response.headers.get('location') };
    },
  },
  {
    name: 'error rejects on a 3xx',
    call: async (f, s) => see(await f(s.a.url('/go/302?to=/echo'), { redirect: 'error' })),
  },
  { name: 'a relative Location', call: async (f, s) => see(await f(s.a.url('/go/301/x?to=../echo'))) },
  {
    name: "the request's fragment kept",
    call: async (f, s) => see(await f(`${s.a.url('/go/301?to=/echo')}#part`)),
  },
  {
    name: 'a cross-origin hop drops Authorization and Cookie',
    call: async (f, s) =>
      see(
        await f(s.a.url(`/go/302?to=${encodeURIComponent(s.b.url('/echo'))}`), {
          headers: { authorization: 'Bearer t', cookie: 'c=1', 'x-kept': '1' },
        }),
      ),
  },
  {
    name: 'a same-origin hop keeps Authorization',
    call: async (f, s) =>
      see(await f(s.a.url('/go/302?to=/echo'), { headers: { authorization: 'Bearer t' } })),
  },
  {
    name: 'an unparsable Location rejects',
    call: async (f, s) => see(await f(s.a.url('/go/302?to=http://[bad'))),
  },
  { name: 'a Location to data: rejects', call: async (f, s) => see(await f(s.a.url('/go/302?to=data:,x'))) },
  { name: 'a 302 without Location is the answer', call: async (f, s) => see(await f(s.a.url('/go/302'))) },
  {
    name: 'a stream body rejects on a 307',
    call: async (f, s) =>
      see(await f(s.a.url('/go/307?to=/echo'), { ...post(streamOf('x')), duplex: 'half' } as RequestInit)),
  },
];

const aborts: ContractCase[] = [
  {
    name: 'an aborted signal rejects',
    call: async (f, s) => see(await f(echo(s), { signal: AbortSignal.abort() })),
  },
  {
    name: "an aborted signal's reason is the rejection",
    call: async (f, s) => see(await f(echo(s), { signal: AbortSignal.abort(new Error('mine')) })),
  },
  {
    name: 'a string reason is the rejection',
    call: async (f, s) => see(await f(echo(s), { signal: AbortSignal.abort('why') })),
  },
  {
    name: 'AbortSignal.timeout rejects with a TimeoutError',
    call: async (f, s) => see(await f(s.a.url('/slow?ms=2000'), { signal: AbortSignal.timeout(100) })),
  },
  {
    name: 'an abort while the server answers',
    call: async (f, s) => {
      const controller = new AbortController();
      const from = s.a.log.length;
      const pending = f(s.a.url('/slow?ms=2000'), { signal: controller.signal });
      await arrived(s, '/slow', from);
      controller.abort();
      return see(await pending);
    },
  },
  {
    name: 'an abort while the body is read',
    call: async (f, s) => {
      const controller = new AbortController();
      const response = await f(s.a.url('/stream'), { signal: controller.signal });
      controller.abort();
      return see(response);
    },
  },
];

/**
 * What retry code reads of a failure to connect: the TypeError and its cause's code. (politeFetch's
 * cause says it was robots.txt that failed, and holds the refusal: contract-robots.test.ts.)
 */
async function transportFailure(pending: Promise<Response>): Promise<unknown> {
  const error = await pending.then(
    () => undefined,
    (rejected: Error) => rejected,
  );
  return { name: error?.name, message: error?.message, causeCode: (error?.cause as { code?: string })?.code };
}

const errors: ContractCase[] = [
  { name: 'an invalid URL rejects', call: async (f) => see(await f('http://')) },
  { name: 'a relative URL rejects', call: async (f) => see(await f('/relative')) },
  { name: 'an ftp: URL rejects', call: async (f) => see(await f('ftp://127.0.0.1/x')) },
  { name: 'a bad port rejects', call: (f) => transportFailure(f('http://127.0.0.1:1/x')) },
  {
    name: 'connection refused rejects with cause ECONNREFUSED',
    call: async (f) => transportFailure(f(`http://127.0.0.1:${await closedPort()}/x`)),
  },
  { name: 'a dropped connection rejects', call: async (f, s) => see(await f(s.a.url('/reset'))) },
  {
    name: 'an invalid header name rejects',
    call: async (f, s) => see(await f(echo(s), { headers: { 'x a': '1' } })),
  },
  {
    name: 'a header value with a newline rejects',
    call: async (f, s) => see(await f(echo(s), { headers: { 'x-a': 'a\nb' } })),
  },
  { name: 'a forbidden method rejects', call: async (f, s) => see(await f(echo(s), { method: 'CONNECT' })) },
  {
    name: 'an invalid method rejects',
    call: async (f, s) => see(await f(echo(s), { method: 'BAD METHOD' })),
  },
  { name: 'a 404 resolves, not ok', call: async (f, s) => see(await f(s.a.url('/status/404'))) },
  { name: 'a 500 resolves, not ok', call: async (f, s) => see(await f(s.a.url('/status/500'))) },
];

const streaming: ContractCase[] = [
  {
    name: 'the body read with a reader',
    call: async (f, s) =>
      see(await f(s.a.url('/stream')), async (response) => {
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        let text = '';
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          text += new TextDecoder().decode(read.value);
        }
        return text;
      }),
  },
  {
    name: 'the body iterated',
    call: async (f, s) =>
      see(await f(s.a.url('/stream')), async (response) => {
        let text = '';
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          text += new TextDecoder().decode(chunk);
        }
        return text;
      }),
  },
  {
    name: 'a 1 MiB body as an ArrayBuffer',
    call: async (f, s) => see(await f(s.a.url('/big')), async (r) => (await r.arrayBuffer()).byteLength),
  },
  { name: 'a body as JSON', call: async (f, s) => see(await f(echo(s)), (r) => r.json()) },
  {
    name: 'a body as a Blob',
    call: async (f, s) =>
      see(await f(s.a.url('/hello')), async (r) => {
        const blob = await r.blob();
        return [blob.type, blob.size];
      }),
  },
  {
    name: 'a body cancelled, then bodyUsed',
    call: async (f, s) =>
      see(await f(s.a.url('/stream')), async (r) => {
        await r.body?.cancel();
        return r.bodyUsed;
      }),
  },
  {
    name: 'a body read twice rejects',
    call: async (f, s) => see(await f(echo(s)), async (r) => [await r.text(), await r.text()]),
  },
];

const clones: ContractCase[] = [
  {
    name: 'a clone reads the same body',
    call: async (f, s) => {
      const response = await f(echo(s));
      const clone = response.clone();
      return [await see(response), await see(clone)];
    },
  },
  {
    name: 'a clone after a followed redirect stays redirected, with the last url',
    call: async (f, s) => see((await f(s.a.url('/go/301?to=/echo'))).clone()),
  },
  {
    name: "a clone's clone after a cross-origin redirect",
    call: async (f, s) =>
      see((await f(s.a.url(`/go/302?to=${encodeURIComponent(s.b.url('/echo'))}`))).clone().clone()),
  },
  {
    name: "a clone's headers",
    call: async (f, s) =>
      [...(await f(s.a.url('/hello'))).clone().headers].filter(([name]) => name !== 'date'),
  },
];

const headers: ContractCase[] = [
  {
    name: 'a record',
    call: async (f, s) => see(await f(echo(s), { headers: { 'X-A': '1', accept: 'text/x' } })),
  },
  {
    name: 'pairs',
    call: async (f, s) =>
      see(
        await f(echo(s), {
          headers: [
            ['x-a', '1'],
            ['x-b', '2'],
          ],
        }),
      ),
  },
  {
    name: 'a Headers object',
    call: async (f, s) => see(await f(echo(s), { headers: new Headers({ 'x-a': '1' }) })),
  },
  {
    name: 'repeated cookie pairs joined as one cookie header',
    call: async (f, s) =>
      see(
        await f(echo(s), {
          headers: [
            ['cookie', 'a=1'],
            ['cookie', 'b=2'],
          ],
        }),
      ),
  },
  {
    name: 'repeated pairs of another name',
    call: async (f, s) =>
      see(
        await f(echo(s), {
          headers: [
            ['x-a', '1'],
            ['X-A', '2'],
          ],
        }),
      ),
  },
  {
    name: 'a Headers object with appended cookies',
    call: async (f, s) => {
      const given = new Headers();
      given.append('cookie', 'a=1');
      given.append('cookie', 'b=2');
      return see(await f(echo(s), { headers: given }));
    },
  },
  {
    name: 'a pair of the wrong length rejects',
    call: async (f, s) => see(await f(echo(s), { headers: [['x-a']] as unknown as [string, string][] })),
  },
  {
    name: 'a pair of three rejects',
    call: async (f, s) =>
      see(await f(echo(s), { headers: [['x-a', '1', '2']] as unknown as [string, string][] })),
  },
  {
    name: "the caller's User-Agent is sent",
    call: async (f, s) => {
      await (await f(echo(s), { headers: { 'user-agent': 'Mine/1' } })).text();
      return s.a.log.at(-1)?.headers['user-agent'];
    },
  },
  {
    name: "the response's repeated headers and set-cookies",
    call: async (f, s) => {
      const response = await f(s.a.url('/hello'));
      return [response.headers.get('x-multi'), response.headers.getSetCookie(), await response.text()];
    },
  },
];

const urls: ContractCase[] = [
  { name: 'a data: URL', call: async (f) => see(await f('data:text/plain,hello%20there')) },
  { name: 'a base64 data: URL', call: async (f) => see(await f('data:text/plain;base64,aGVsbG8=')) },
  {
    name: 'a blob: URL',
    call: async (f) => see(await f(BLOB_URL)),
  },
  { name: 'a file: URL rejects', call: async (f) => see(await f('file:///etc/hostname')) },
  { name: 'about:blank rejects', call: async (f) => see(await f('about:blank')) },
  { name: 'a URL object', call: async (f, s) => see(await f(new URL(echo(s)))) },
  {
    name: 'a URL with spaces and unicode in the query',
    call: async (f, s) => see(await f(`${echo(s)}?q=a b&é=1`)),
  },
];

const methods: ContractCase[] = [
  { name: 'HEAD', call: async (f, s) => see(await f(echo(s), { method: 'HEAD' })) },
  { name: 'PUT', call: async (f, s) => see(await f(echo(s), { method: 'PUT', body: 'x' })) },
  { name: 'DELETE', call: async (f, s) => see(await f(echo(s), { method: 'DELETE' })) },
  { name: 'PATCH', call: async (f, s) => see(await f(echo(s), { method: 'PATCH', body: 'x' })) },
  { name: 'OPTIONS', call: async (f, s) => see(await f(echo(s), { method: 'OPTIONS' })) },
  {
    name: 'lower-case post normalized',
    call: async (f, s) => see(await f(echo(s), { method: 'post', body: 'x' })),
  },
  {
    name: 'lower-case patch kept as given',
    call: async (f, s) => see(await f(echo(s), { method: 'patch', body: 'x' })),
  },
  { name: 'a custom method', call: async (f, s) => see(await f(echo(s), { method: 'PURGE' })) },
];

const agent = new Agent({ connections: 2 });
const unresolvable = new Agent({
  connect: {
    // Resolution fails here, without asking a DNS server.
    lookup: ((hostname: string, _options: unknown, callback: (error: Error) => void) =>
      callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }),
      )) as never,
  },
});
afterAll(() => Promise.all([agent.close(), unresolvable.close()]));
const dispatchers: ContractCase[] = [
  {
    name: "undici's fetch with a dispatcher in init",
    inner: undiciFetch as unknown as Fetch,
    call: async (f, s) => see(await f(echo(s), { dispatcher: agent } as unknown as RequestInit)),
  },
  {
    name: "undici's fetch through a dispatcher for every request",
    inner: ((input, init) => undiciFetch(input as string, { ...init, dispatcher: agent } as never)) as Fetch,
    call: async (f, s) => see(await f(echo(s))),
  },
  {
    name: 'an unresolvable host rejects with cause ENOTFOUND',
    inner: ((input, init) =>
      undiciFetch(input as string, { ...init, dispatcher: unresolvable } as never)) as Fetch,
    call: (f) => transportFailure(f('http://nowhere.test/x')),
  },
];

/** Waits (bounded) until a request for `path` reached host a after `from` log entries. */
async function arrived(sites: Sites, path: string, from: number): Promise<void> {
  for (let i = 0; i < 300 && !sites.a.log.slice(from).some((r) => r.path.startsWith(path)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const politeness: ContractCase[] = [
  {
    name: 'the User-Agent is set',
    call: async (f, s) => {
      await (await f(echo(s))).text();
      return s.a.log.at(-1)?.headers['user-agent'];
    },
    byDesign: (node, polite) => {
      expect(node.outcome).toEqual({ resolved: expect.stringMatching(/^node/) });
      expect(polite.outcome).toEqual({ resolved: USER_AGENT });
      expect(polite.wire).toEqual(node.wire);
    },
  },
  {
    name: 'two calls to one host are spaced, not concurrent',
    call: async (f, s) => {
      const both = await Promise.all([f(s.a.url('/slow?ms=100')), f(s.a.url('/slow?ms=100'))]);
      return [await Promise.all(both.map((r) => see(r))), s.maxInFlight.a];
    },
    byDesign: (node, polite) => {
      const [nodeSeen, nodeInFlight] = (node.outcome as { resolved: [unknown, number] }).resolved;
      const [politeSeen, politeInFlight] = (polite.outcome as { resolved: [unknown, number] }).resolved;
      expect([nodeInFlight, politeInFlight]).toEqual([2, 1]);
      expect(politeSeen).toEqual(nodeSeen);
    },
  },
  {
    name: 'a host is paced by its latency',
    call: async (f, s) => {
      const first = await see(await f(s.a.url('/slow?ms=100')));
      return [first, await see(await f(echo(s)))];
    },
    byDesign: (node, polite, sites) => {
      expect(polite.outcome).toEqual(node.outcome);
      expect(polite.wire).toEqual(node.wire);
      const politeSent = sites.a.log.filter((request) => request.path !== '/robots.txt').slice(2);
      // The asked floor: the 100 ms answer, then at least that latency again before the next call.
      expect((politeSent[1]?.at ?? 0) - (politeSent[0]?.at ?? 0)).toBeGreaterThanOrEqual(200);
    },
  },
  {
    name: "a Request's stream body is read before it is sent",
    call: async (f, s) => {
      const before = s.a.log.length;
      let order = 'the body was read whole first';
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('first '));
        },
        async pull(controller) {
          for (let i = 0; i < 100 && s.a.log.slice(before).every((r) => r.path === '/robots.txt'); i++) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          if (s.a.log.slice(before).some((r) => r.path !== '/robots.txt'))
            order = 'the server saw the request first';
          controller.enqueue(new TextEncoder().encode('second'));
          controller.close();
        },
      });
      const response = await f(new Request(echo(s), { ...post(body), duplex: 'half' } as RequestInit));
      return [await see(response), order];
    },
    byDesign: (node, polite) => {
      const [nodeSeen, nodeOrder] = (node.outcome as { resolved: [unknown, string] }).resolved;
      const [politeSeen, politeOrder] = (polite.outcome as { resolved: [unknown, string] }).resolved;
      expect([nodeOrder, politeOrder]).toEqual([
        'the server saw the request first',
        'the body was read whole first',
      ]);
      expect(politeSeen).toEqual(nodeSeen);
      // Read whole, the body goes with its length instead of chunked.
      expect(node.wire[0]?.headers['transfer-encoding']).toBe('chunked');
      expect(polite.wire[0]?.headers['content-length']).toBe(String('first second'.length));
    },
  },
];

const table: Record<string, ContractCase[]> = {
  'Request objects': requests,
  'body kinds': bodies,
  'redirect modes and hop rules': redirects,
  aborts,
  'errors and their causes': errors,
  streaming,
  clones,
  'headers of each shape': headers,
  'data:, blob: and file: URLs': urls,
  methods,
  dispatchers,
  'politeness by design (docs/fetch.md)': politeness,
};

describe('fetch contract: politeFetch does what Node fetch does', () => {
  for (const [kind, cases] of Object.entries(table)) {
    describe(kind, () => {
      it.each(cases.map((contractCase) => [contractCase.name, contractCase] as const))(
        '%s',
        async (_name, contractCase) => {
          const { node, polite, sites } = await runCase(contractCase);
          if (contractCase.byDesign) contractCase.byDesign(node, polite, sites);
          else expect(polite).toEqual(node);
        },
      );
    });
  }
});
