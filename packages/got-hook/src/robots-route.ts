/**
 * robots.txt goes out the way the pages go: through the got options of the request that needs it, so
 * the instance's agents (an `http-proxy-agent`, an SSRF-guarding agent), `dnsLookup` / `dnsCache`,
 * `https` options, `localAddress`, custom `request` function, timeouts and custom headers apply to it
 * too. A site that answers by region, or a name only a proxy resolves, then sees one crawler, not two.
 *
 * got builds each request's Node options itself (`createNativeRequestOptions`, `getRequestFunction`:
 * public on got's Options from 12 to 16); this sends one hop with them, never through got's hooks (ours
 * would check robots.txt for robots.txt, and got's redirects and retries would step over core's hop
 * limit and its backoff). Core follows redirects one hop at a time, cuts the body at its byte limit and
 * bounds the whole fetch; the request is handed from the hook to the fetch through AsyncLocalStorage,
 * as the fetch runs inside `politeness.check` (a Politeness has one `fetch` for every request).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import type { FetchLike } from '@politely/core';
import type { FetchLikeResponse } from '@politely/core/fetch';
import type { GotRequestOptionsLike } from './got-shapes.js';
import { timeoutError } from './got-timeout.js';

/** The part of got's Options (14 to 16) that says how a request reaches the network. */
interface GotTransportLike {
  readonly url?: URL | string | undefined;
  readonly agent?: { readonly http?: unknown; readonly https?: unknown } | undefined;
  readonly request?: unknown;
  readonly createConnection?: unknown;
  readonly dnsLookup?: unknown;
  readonly localAddress?: unknown;
  readonly timeout?: Readonly<Partial<Record<'lookup' | 'connect' | 'secureConnect' | 'socket', number>>>;
  createNativeRequestOptions(): RequestOptions & Record<string, unknown>;
  getRequestFunction(): RequestFunction | undefined;
  /** got's own choice when the request function returns nothing (14.x to 16.x): Node's, by protocol. */
  getFallbackRequestFunction?(): RequestFunction | undefined;
}

type RequestFunction = (
  url: URL,
  options: RequestOptions,
  callback?: (response: IncomingMessage) => void,
) => ClientRequest | Promise<ClientRequest | undefined> | undefined;

/**
 * Headers of the page's request that belong to it alone: its body, its conditions, its credentials
 * (got adds `authorization` from the URL's userinfo and `cookie` from its jar for the page's path),
 * and what core sets itself (User-Agent, Accept). `accept-encoding` goes too: the body is read as sent.
 */
const PAGE_ONLY_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'authorization',
  'content-length',
  'content-type',
  'cookie',
  'expect',
  'host',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'range',
  'referer',
  'transfer-encoding',
  'user-agent',
]);

/**
 * Node's own options a got hop carries for its own URL (HTTP/2 timers): never reused. `socketPath` (a
 * UNIX socket URL, `http://unix:/run/app.sock:/page`) is kept for robots.txt of the same origin: the
 * site behind the socket answers it, as for the page.
 */
const PAGE_ONLY_NATIVE = ['path', 'host', 'timeout', '_timeoutPhase', '_socketTimeout'];

export interface RobotsRoute {
  /** Runs `work` (a robots.txt check) with robots.txt sent through `options`' transport. */
  through<T>(options: GotRequestOptionsLike, work: () => T): T;
  /** The Politeness's `fetch`: through the current request's got options, else Node's fetch. */
  readonly fetch: FetchLike;
  /**
   * core's `robots.route`: the way the current request goes out, as a key (its agents, request
   * function, createConnection, dnsLookup, localAddress, UNIX socket), so that a robots.txt that got
   * no answer one way holds only requests going that way; undefined outside a got request.
   */
  readonly route: () => string | undefined;
}

/** A number per object or function (the key of a route), never keeping it alive. */
const ids = new WeakMap<object, number>();
let lastId = 0;
function idOf(value: unknown): string {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return String(value);
  let id = ids.get(value);
  if (id === undefined) {
    id = ++lastId;
    ids.set(value, id);
  }
  return `#${id}`;
}

function routeKeyOf(transport: GotTransportLike): string {
  const url = transport.url === undefined ? undefined : new URL(transport.url);
  const socket = url?.hostname === 'unix' ? /^(.+?):/.exec(url.pathname)?.[1] : undefined;
  return [
    idOf(transport.agent?.http),
    idOf(transport.agent?.https),
    idOf(transport.request),
    idOf(transport.createConnection),
    idOf(transport.dnsLookup),
    idOf(transport.localAddress),
    socket ?? '',
  ].join('|');
}

export function createRobotsRoute(): RobotsRoute {
  const current = new AsyncLocalStorage<GotTransportLike>();
  // Checks under way with a transport. With none, the storage is disabled: on Node 20 an enabled
  // AsyncLocalStorage turns on promise hooks for the whole process, a cost on every promise of every
  // request (issue 42), while only a robots.txt fetch reads it. A check counts as over once it has
  // its verdict (its robots.txt fetch is over then); one that gave up (its time limit, its signal)
  // may leave a fetch going that still reads the transport, so it never counts as over: the storage
  // then stays on, as it always was before.
  let routing = 0;
  const settle = () => {
    if (--routing === 0) current.disable();
  };
  return {
    through: (options, work) => {
      const transport = options as unknown as Partial<GotTransportLike>;
      // Options of another shape (a got too old or too new to build native options) keep Node's fetch.
      if (
        typeof transport.createNativeRequestOptions !== 'function' ||
        typeof transport.getRequestFunction !== 'function'
      ) {
        return work();
      }
      routing++;
      const result = current.run(transport as GotTransportLike, work);
      if (result instanceof Promise) result.then(settle, () => {});
      else settle();
      return result;
    },
    fetch: (url, init) => {
      const transport = current.getStore();
      // A check made outside a got request (`politenessOf(options).check(...)`, a prefetch).
      if (transport === undefined) return globalThis.fetch(url, init);
      return sendThroughGot(transport, url, init);
    },
    route: () => {
      const transport = current.getStore();
      return transport === undefined ? undefined : routeKeyOf(transport);
    },
  };
}

/**
 * The timers robots.txt's phase limits run on, taken when this module loads: robots.txt is politely's
 * request, which no caller sees, so a clock a test fakes process-wide (and moves for the requests it
 * sees, as got's own suite does) would never move for it, and its limits would never fire. The page's
 * own limits stay got's, on whatever timers the process has.
 */
const { setTimeout: realSetTimeout, clearTimeout: realClearTimeout } = globalThis;

function sendThroughGot(
  transport: GotTransportLike,
  url: string,
  init: Parameters<FetchLike>[1],
): Promise<FetchLikeResponse> {
  const target = new URL(url);
  const page = transport.url === undefined ? undefined : new URL(transport.url);
  const pageProtocol = page?.protocol;
  const native = transport.createNativeRequestOptions();
  for (const key of PAGE_ONLY_NATIVE) delete native[key];
  if (target.origin !== page?.origin) delete native.socketPath;
  const headers: Record<string, string | string[] | number> = {};
  for (const [name, value] of Object.entries(native.headers ?? {})) {
    if (value !== undefined && !PAGE_ONLY_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  Object.assign(headers, init.headers);
  // got picked the agent and the request function for the page's protocol; a robots.txt redirect
  // to the other one takes the instance's agent for that protocol and Node's request for it.
  const sameProtocol = target.protocol === pageProtocol;
  const agent = sameProtocol
    ? native.agent
    : transport.agent?.[target.protocol === 'https:' ? 'https' : 'http'];
  const send: RequestFunction | undefined =
    sameProtocol || transport.request ? transport.getRequestFunction() : undefined;
  const nodeRequest: RequestFunction = target.protocol === 'https:' ? httpsRequest : httpRequest;
  // A request function that returns nothing hands the request to got's fallback, as got does.
  const fallback: RequestFunction =
    (sameProtocol ? transport.getFallbackRequestFunction?.() : undefined) ?? nodeRequest;
  const options: RequestOptions = {
    ...native,
    method: 'GET',
    headers,
    ...(agent === undefined ? {} : { agent: agent as RequestOptions['agent'] }),
  };
  if (agent === undefined) delete options.agent;

  return new Promise<FetchLikeResponse>((resolve, reject) => {
    let clientRequest: ClientRequest | undefined;
    const timers: ReturnType<typeof realSetTimeout>[] = [];
    const fail = (error: unknown) => {
      cleanUp();
      clientRequest?.destroy();
      reject(error);
    };
    const onAbort = () => fail(init.signal.reason);
    const cleanUp = () => {
      for (const timer of timers) realClearTimeout(timer);
      init.signal.removeEventListener('abort', onAbort);
    };
    if (init.signal.aborted) {
      reject(init.signal.reason);
      return;
    }
    init.signal.addEventListener('abort', onAbort, { once: true });
    const onResponse = (response: IncomingMessage) => {
      cleanUp();
      // Aborting the fetch later (core's deadline, a cut body) still ends the download.
      init.signal.addEventListener('abort', () => response.destroy(), { once: true });
      // Core reads the body as an async iterator, which sees its errors; this keeps a reset between
      // here and that read (or after core let the body go) from being an uncaught 'error'.
      response.on('error', () => {});
      resolve({
        status: response.statusCode ?? 0,
        headers: { get: (name) => headerValue(response.headers[name.toLowerCase()]) },
        body: response,
      });
    };
    const limit = (phase: string, ms: number | undefined): (() => void) | undefined => {
      // got times a phase whatever its limit, 0 included (at the next turn of the loop).
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return undefined;
      const timer = realSetTimeout(() => fail(timeoutError(phase, ms)), ms);
      timers.push(timer);
      return () => realClearTimeout(timer);
    };
    const attach = (created: ClientRequest | undefined) => {
      if (created === undefined) {
        fail(new TypeError("got's request function returned nothing"));
        return;
      }
      clientRequest = created;
      created.once('response', onResponse);
      created.on('error', fail);
      const { socket: socketMs } = transport.timeout ?? {};
      if (isLimit(socketMs)) created.setTimeout(socketMs, () => fail(timeoutError('socket', socketMs)));
      created.once('socket', (socket: Socket) => watchConnection(socket, target, options, transport, limit));
      created.end();
    };
    try {
      // A request function may return a promise, or nothing: got then sends with its fallback.
      Promise.resolve((send ?? fallback)(target, options)).then(
        (created) => attach(created ?? (fallback(target, options) as ClientRequest | undefined)),
        fail,
      );
    } catch (error) {
      fail(error);
    }
  });
}

/**
 * got's `timeout.lookup`, `timeout.connect` and `timeout.secureConnect` for robots.txt, as got times a
 * page (its timed-out.ts: lookup until the socket's 'lookup', connect from the lookup, or from the
 * socket for an IP or a UNIX socket, until 'connect', secureConnect from 'connect' to
 * 'secureConnect'); a socket reused from the agent's pool has none of these phases. `timeout.request`
 * is the caller's and never bounds this shared fetch; robots.timeoutMs does.
 */
function watchConnection(
  socket: Socket,
  target: URL,
  options: RequestOptions,
  transport: GotTransportLike,
  limit: (phase: string, ms: number | undefined) => (() => void) | undefined,
): void {
  if (!socket.connecting) return;
  const { lookup, connect, secureConnect } = transport.timeout ?? {};
  const direct = options.socketPath !== undefined || isIP(target.hostname.replace(/^\[|\]$/g, '')) !== 0;
  const timeConnect = () => {
    const cancel = limit('connect', connect);
    if (cancel) socket.once('connect', cancel);
  };
  if (direct) timeConnect();
  else {
    // A lookup that finished before the socket was handed out (a resolver that answers at once: the
    // socket has its address) is not timed, as got does not time it (got issue 857).
    const lookedUp = (socket.address() as { address?: string }).address !== undefined;
    const cancel = lookedUp ? undefined : limit('lookup', lookup);
    socket.once('lookup', (error: Error | null) => {
      cancel?.();
      if (error === null) timeConnect();
    });
  }
  if (target.protocol === 'https:') {
    socket.once('connect', () => {
      const cancel = limit('secureConnect', secureConnect);
      if (cancel) socket.once('secureConnect', cancel);
    });
  }
}

function isLimit(ms: number | undefined): ms is number {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0;
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
