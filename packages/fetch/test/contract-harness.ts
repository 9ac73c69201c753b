/**
 * The fetch contract: one case is one call, made through Node's fetch and through one politeFetch
 * (`pacing.minDelayMs: 0`, robots.txt 404) against the same loopback servers. What the caller sees
 * (the response, or the rejection and its cause) and what the servers saw (every request but
 * robots.txt, its User-Agent aside) are compared whole.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import type { TestHost } from '../../../test/helpers/hosts.js';
import type { PoliteFetchOptions } from '../src/index.js';
import { host, polite } from './setup.js';

export type Fetch = typeof globalThis.fetch;

/** Two hosts (b for cross-origin hops) that answer every path of {@link contractRoutes}. */
export interface Sites {
  readonly a: TestHost;
  readonly b: TestHost;
  /** Requests each host had in flight at once, at most. */
  readonly maxInFlight: { a: number; b: number };
}

export interface ContractCase {
  readonly name: string;
  /** The call, made once with Node's fetch and once with a politeFetch; returns what the caller sees. */
  readonly call: (fetch: Fetch, sites: Sites) => Promise<unknown>;
  /** The fetch both sides go through (politeFetch wraps it): Node's global one by default. */
  readonly inner?: Fetch;
  readonly options?: Partial<PoliteFetchOptions>;
  /** Politeness by design (docs/fetch.md): the difference asserted instead of equality. */
  readonly byDesign?: (node: Seen, polite: Seen, sites: Sites) => void;
}

export interface Seen {
  readonly outcome: unknown;
  readonly wire: readonly WireRequest[];
}

interface WireRequest {
  readonly host: 'a' | 'b';
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, unknown>;
}

/** Runs a case both ways against one pair of fresh hosts. */
export async function runCase(
  contractCase: ContractCase,
): Promise<{ node: Seen; polite: Seen; sites: Sites }> {
  const maxInFlight = { a: 0, b: 0 };
  const a = await host({ fallback: contractRoutes(() => maxInFlight, 'a') });
  const b = await host({ fallback: contractRoutes(() => maxInFlight, 'b') });
  const sites: Sites = { a, b, maxInFlight };
  const inner = contractCase.inner ?? ((input, init) => globalThis.fetch(input, init));
  const node = await observe(() => contractCase.call(inner, sites), sites);
  maxInFlight.a = 0;
  maxInFlight.b = 0;
  const politeFetch = polite<Fetch>({ fetch: inner, ...contractCase.options });
  const politeSeen = await observe(() => contractCase.call(politeFetch, sites), sites);
  return { node, polite: politeSeen, sites };
}

async function observe(call: () => Promise<unknown>, sites: Sites): Promise<Seen> {
  const from = { a: sites.a.log.length, b: sites.b.log.length };
  let outcome: unknown;
  try {
    outcome = { resolved: await call() };
  } catch (error) {
    outcome = { rejected: describeError(error) };
  }
  const wire: WireRequest[] = [];
  for (const name of ['a', 'b'] as const) {
    for (const request of sites[name].log.slice(from[name])) {
      if (request.path === '/robots.txt') continue;
      const { 'user-agent': _userAgent, ...headers } = request.headers;
      // A multipart boundary is random per body.
      if (headers['content-type']) headers['content-type'] = stableBoundary(headers['content-type']);
      wire.push({ host: name, method: request.method, path: request.path, headers });
    }
  }
  return { outcome, wire };
}

export const stableBoundary = (text: string) => text.replace(/-{2,}[\w-]*formdata[\w-]*\d+/gi, 'BOUNDARY');

/** An error as its catcher reads it: class, message and the cause chain's codes and messages. */
export function describeError(error: unknown): unknown {
  if (!(error instanceof Error) && !(error instanceof DOMException)) return { thrown: String(error) };
  const cause = (error as { cause?: unknown }).cause;
  return {
    name: error.name,
    message: error.message,
    ...((error as { code?: unknown }).code !== undefined ? { code: (error as { code?: unknown }).code } : {}),
    ...(cause !== undefined ? { cause: describeError(cause) } : {}),
  };
}

/** A response as its caller reads it, the body included (as text unless `read` says otherwise). */
export async function seeResponse(
  response: Response,
  read: (response: Response) => Promise<unknown> = (r) => r.text(),
): Promise<unknown> {
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    url: response.url,
    redirected: response.redirected,
    type: response.type,
    contentType: response.headers.get('content-type'),
    body: await read(response),
  };
}

/** A port on 127.0.0.1 nothing listens on (taken, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Every contract path, on both hosts:
 * - `/go/<status>?to=<url>`: a redirect (`&policy=` adds a Referrer-Policy);
 * - `/chain/<n>`: n redirects, then the echo;
 * - `/slow?ms=`: the echo after a delay; `/reset`: the connection dropped;
 * - `/stream`: three chunks; `/big`: 1 MiB; `/hello`: `hello`; `/status/<n>`: that status;
 * - anything else: the echo (method, path, body and content type as JSON).
 */
function contractRoutes(inFlight: () => Sites['maxInFlight'], name: 'a' | 'b') {
  let current = 0;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    current++;
    inFlight()[name] = Math.max(inFlight()[name], current);
    res.on('close', () => current--);
    const url = new URL(req.url ?? '/', 'http://x');
    const [, first, second] = url.pathname.split('/');
    if (first === 'go') {
      const policy = url.searchParams.get('policy');
      res.writeHead(Number(second), {
        ...(url.searchParams.has('to') ? { location: url.searchParams.get('to') ?? '' } : {}),
        ...(policy ? { 'referrer-policy': policy } : {}),
      });
      res.end('moved');
      return;
    }
    if (first === 'chain') {
      const left = Number(second);
      res.writeHead(302, { location: left > 1 ? `/chain/${left - 1}` : '/echo' });
      res.end();
      return;
    }
    if (first === 'reset') {
      req.socket.destroy();
      return;
    }
    if (first === 'stream') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (const chunk of ['a', 'b', 'c']) {
        res.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      res.end();
      return;
    }
    if (first === 'big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(1 << 20, 120));
      return;
    }
    if (first === 'hello') {
      res.writeHead(200, {
        'content-type': 'text/plain',
        'x-multi': ['1', '2'],
        'set-cookie': ['s=1', 't=2'],
      });
      res.end('hello');
      return;
    }
    if (first === 'status') {
      res.writeHead(Number(second), { 'content-type': 'text/plain' });
      res.end(req.method === 'HEAD' ? undefined : `status ${second}`);
      return;
    }
    if (first === 'robots.txt') {
      res.writeHead(404);
      res.end();
      return;
    }
    if (first === 'slow')
      await new Promise((resolve) => setTimeout(resolve, Number(url.searchParams.get('ms'))));
    const body = await readBody(req);
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      req.method === 'HEAD'
        ? undefined
        : JSON.stringify({
            method: req.method,
            path: req.url,
            body,
            contentType: req.headers['content-type'] ?? null,
          }),
    );
  };
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', () => resolve(body));
  });
}
