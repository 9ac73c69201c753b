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
import type { FetchLike } from '@politely/core';
import type { FetchLikeResponse } from '@politely/core/fetch';
import type { GotRequestOptionsLike } from './got-shapes.js';

/** The part of got's Options (14 to 16) that says how a request reaches the network. */
interface GotTransportLike {
  readonly url?: URL | string | undefined;
  readonly agent?: { readonly http?: unknown; readonly https?: unknown } | undefined;
  readonly request?: unknown;
  readonly timeout?: { readonly request?: number | undefined; readonly socket?: number | undefined };
  createNativeRequestOptions(): RequestOptions & Record<string, unknown>;
  getRequestFunction(): RequestFunction | undefined;
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

/** Node's own options a got hop carries for its own URL (unix sockets, HTTP/2 timers): never reused. */
const PAGE_ONLY_NATIVE = ['path', 'socketPath', 'host', 'timeout', '_timeoutPhase', '_socketTimeout'];

export interface RobotsRoute {
  /** Runs `work` (a robots.txt check) with robots.txt sent through `options`' transport. */
  through<T>(options: GotRequestOptionsLike, work: () => T): T;
  /** The Politeness's `fetch`: through the current request's got options, else Node's fetch. */
  readonly fetch: FetchLike;
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
  };
}

function sendThroughGot(
  transport: GotTransportLike,
  url: string,
  init: Parameters<FetchLike>[1],
): Promise<FetchLikeResponse> {
  const target = new URL(url);
  const pageProtocol = transport.url === undefined ? undefined : new URL(transport.url).protocol;
  const native = transport.createNativeRequestOptions();
  for (const key of PAGE_ONLY_NATIVE) delete native[key];
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
  const fallback: RequestFunction = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    ...native,
    method: 'GET',
    headers,
    ...(agent === undefined ? {} : { agent: agent as RequestOptions['agent'] }),
  };
  if (agent === undefined) delete options.agent;

  return new Promise<FetchLikeResponse>((resolve, reject) => {
    let clientRequest: ClientRequest | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (error: unknown) => {
      cleanUp();
      clientRequest?.destroy();
      reject(error);
    };
    const onAbort = () => fail(init.signal.reason);
    const cleanUp = () => {
      if (timer !== undefined) clearTimeout(timer);
      init.signal.removeEventListener('abort', onAbort);
    };
    if (init.signal.aborted) {
      reject(init.signal.reason);
      return;
    }
    init.signal.addEventListener('abort', onAbort, { once: true });
    // got's own limits for the instance: the whole request, and a socket idle that long.
    const { request: requestMs, socket: socketMs } = transport.timeout ?? {};
    if (isLimit(requestMs)) {
      timer = setTimeout(() => fail(timeoutError('request', requestMs)), requestMs);
      timer.unref?.();
    }
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
    const attach = (created: ClientRequest | undefined) => {
      if (created === undefined) {
        fail(new TypeError("got's request function returned nothing"));
        return;
      }
      clientRequest = created;
      created.once('response', onResponse);
      created.on('error', fail);
      if (isLimit(socketMs)) created.setTimeout(socketMs, () => fail(timeoutError('socket', socketMs)));
      created.end();
    };
    try {
      const created = (send ?? fallback)(target, options);
      if (created instanceof Promise) created.then(attach, fail);
      else attach(created);
    } catch (error) {
      fail(error);
    }
  });
}

function isLimit(ms: number | undefined): ms is number {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0;
}

function timeoutError(phase: string, ms: number): Error {
  return Object.assign(new Error(`Timeout awaiting '${phase}' for ${ms}ms`), { code: 'ETIMEDOUT' });
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
