/**
 * One demo host: a node:http server on its own loopback IP that answers from a fixed route table and
 * logs every request it sees (path, time, User-Agent), so the demo and its tests judge a crawl by what
 * the server actually received rather than by what the crawler believes it did.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedRequest {
  readonly method: string;
  /** Path with query, as sent on the request line. */
  readonly path: string;
  /** Epoch ms (sub-millisecond precision) when the server saw the request line. */
  readonly at: number;
  readonly userAgent: string;
}

export type DemoRoute =
  | { readonly kind: 'html'; readonly body: string }
  | { readonly kind: 'text'; readonly body: string; readonly status?: number }
  | { readonly kind: 'redirect'; readonly location: string; readonly status?: number };

export interface DemoServer {
  readonly ip: string;
  readonly port: number;
  /** `http://127.0.0.N:PORT` */
  readonly origin: string;
  /** Every request, in arrival order. */
  readonly log: readonly ServedRequest[];
  close(): Promise<void>;
}

export interface DemoServerOptions {
  readonly ip: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Routes by exact path (query ignored); anything else is a 404. */
  readonly routes: ReadonlyMap<string, DemoRoute>;
  /** Called for each request as it arrives (live progress). */
  readonly onRequest?: (request: ServedRequest) => void;
}

const epochMs = () => performance.timeOrigin + performance.now();

export async function startDemoServer(options: DemoServerOptions): Promise<DemoServer> {
  const log: ServedRequest[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const request: ServedRequest = {
      method: req.method ?? 'GET',
      path,
      at: epochMs(),
      userAgent: req.headers['user-agent'] ?? '',
    };
    log.push(request);
    options.onRequest?.(request);
    respond(res, options.routes.get(path.split('?')[0] ?? path));
  });
  // Crawlers keep connections alive; without this, close() would wait for their idle sockets.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.ip, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    ip: options.ip,
    port,
    origin: `http://${options.ip}:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function respond(res: ServerResponse, route: DemoRoute | undefined): void {
  if (route === undefined) {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
    return;
  }
  switch (route.kind) {
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(route.body);
      return;
    case 'text':
      res.writeHead(route.status ?? 200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(route.body);
      return;
    case 'redirect':
      res.writeHead(route.status ?? 301, { location: route.location });
      res.end();
      return;
  }
}
