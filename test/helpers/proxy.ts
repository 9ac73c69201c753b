/**
 * A tiny HTTP forward proxy on loopback for made-up host names, as a corporate or scraping proxy
 * resolves names the crawler's own resolver does not know: `shop.internal` reaches a test host only
 * through it (Node's resolver fails for `.internal`, a name reserved for private use). Requests come in
 * absolute form (`GET http://shop.internal:PORT/path`), or through a CONNECT tunnel to a known name
 * (Playwright's request API tunnels even plain HTTP): the tunnel is read as HTTP, so each request
 * inside it is forwarded and logged the same way. No TLS: the test sites are plain HTTP.
 * Every request it forwards is logged, so a test can tell what went through it and what went around.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ProxiedRequest {
  readonly method: string;
  /** The absolute URL asked for, e.g. `http://shop.internal:18666/robots.txt`. */
  readonly url: string;
  readonly host: string;
  /** Path with query. */
  readonly path: string;
}

export interface ForwardProxy {
  /** `http://127.0.0.N:PORT`, for clients that take a proxy URL. */
  readonly url: string;
  readonly ip: string;
  readonly port: number;
  /** Every request forwarded or refused, in arrival order. */
  readonly log: readonly ProxiedRequest[];
  /** Logged requests whose path (without query) is `path`. */
  requests(path: string): ProxiedRequest[];
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  /** Made-up host name -> loopback IP it resolves to at the proxy, e.g. `{ 'shop.internal': '127.0.0.9' }`. */
  readonly names: Record<string, string>;
  /** Loopback address to listen on. Default 127.0.0.1. */
  readonly ip?: string;
}

export async function startForwardProxy(options: ForwardProxyOptions): Promise<ForwardProxy> {
  const ip = options.ip ?? '127.0.0.1';
  const names = new Map(Object.entries(options.names));
  const log: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse, tunnelTo?: string) => {
    let target: URL;
    try {
      // In a tunnel, requests are in origin form: the tunnel says where they go.
      target = new URL(incoming.url ?? '', tunnelTo === undefined ? undefined : `http://${tunnelTo}`);
    } catch {
      outgoing.writeHead(400).end('proxy: absolute URL expected');
      return;
    }
    log.push({
      method: incoming.method ?? 'GET',
      url: target.href,
      host: target.host,
      path: `${target.pathname}${target.search}`,
    });
    const address = names.get(target.hostname);
    if (target.protocol !== 'http:' || address === undefined) {
      outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: cannot resolve ${target.host}`);
      return;
    }
    const { 'proxy-connection': _hop, 'proxy-authorization': _auth, ...headers } = incoming.headers;
    const upstream = httpRequest({
      host: address,
      port: target.port || 80,
      path: `${target.pathname}${target.search}`,
      method: incoming.method,
      headers,
      agent: false,
    });
    upstream.on('response', (response) => {
      outgoing.writeHead(response.statusCode ?? 502, response.headers);
      // An upstream reset mid-body ends the client's response too, not the test run.
      response.on('error', () => outgoing.destroy());
      response.pipe(outgoing);
    });
    upstream.on('error', () => {
      if (outgoing.headersSent) outgoing.destroy();
      else outgoing.writeHead(502).end('proxy: upstream failed');
    });
    incoming.pipe(upstream);
  };
  const server = createServer((incoming, outgoing) => forward(incoming, outgoing));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    // Node's server takes its own error listener off a socket it hands to 'connect': a client that
    // resets its tunnel (a browser closing, the crawl ending) would otherwise be an uncaught
    // ECONNRESET in the test run (seen once on Node 22, proxy.test.ts).
    socket.on('error', () => socket.destroy());
    const authority = request.url ?? '';
    const hostname = authority.replace(/:\d+$/, '');
    if (!names.has(hostname)) {
      log.push({ method: 'CONNECT', url: authority, host: authority, path: '' });
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) socket.unshift(head);
    // The tunnel carries plain HTTP: served by a server of its own, forwarded like the rest.
    const tunnel = createServer((incoming, outgoing) => forward(incoming, outgoing, authority));
    tunnel.emit('connection', socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, ip, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${ip}:${port}`,
    ip,
    port,
    log,
    requests: (path) => log.filter((entry) => (entry.path.split('?')[0] ?? entry.path) === path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
