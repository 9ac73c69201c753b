/**
 * Real HTTP servers for tests, one loopback IP per simulated host (127.0.0.2, 127.0.0.3, ...), each
 * with a server-side request log so tests assert what the server actually saw.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedRequest {
  readonly method: string;
  /** Path with query, as sent on the request line. */
  readonly path: string;
  /** Epoch ms (sub-millisecond precision) when the server saw the request. */
  readonly at: number;
  readonly headers: IncomingHttpHeaders;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface RouteSpec {
  readonly status?: number;
  /** A list sends the header once per value, in order. */
  readonly headers?: Record<string, string | string[]>;
  readonly body?: string | Uint8Array;
  /** Wait this long before answering. */
  readonly delayMs?: number;
}

export type Route = Handler | RouteSpec;

export interface TestHost {
  readonly ip: string;
  readonly port: number;
  /** `http://127.0.0.N:PORT` */
  readonly origin: string;
  url(path: string): string;
  /** Every request, in arrival order. */
  readonly log: readonly LoggedRequest[];
  /** Requests whose path (without query) equals `path`, or all when omitted. */
  requests(path?: string): LoggedRequest[];
  /** Replace or add a route while running. */
  route(path: string, route: Route): void;
  close(): Promise<void>;
}

export interface HostOptions {
  /** Loopback address to bind; default 127.0.0.1. */
  readonly ip?: string;
  /** Routes by exact path (without query). Unknown paths get 404, or `fallback`. */
  readonly routes?: Record<string, Route>;
  readonly fallback?: Route;
}

const nowMs = () => performance.timeOrigin + performance.now();

export async function startHost(options: HostOptions = {}): Promise<TestHost> {
  const ip = options.ip ?? '127.0.0.1';
  const routes = new Map<string, Route>(Object.entries(options.routes ?? {}));
  const log: LoggedRequest[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    log.push({ method: req.method ?? 'GET', path, at: nowMs(), headers: req.headers });
    const bare = path.split('?')[0] ?? path;
    const route = routes.get(bare) ?? options.fallback ?? { status: 404, body: 'not found' };
    void serve(route, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, ip, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${ip}:${port}`;
  return {
    ip,
    port,
    origin,
    url: (path) => `${origin}${path}`,
    log,
    requests: (path) =>
      path === undefined ? [...log] : log.filter((r) => (r.path.split('?')[0] ?? r.path) === path),
    route: (path, route) => {
      routes.set(path, route);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serve(route: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (typeof route === 'function') {
    await route(req, res);
    return;
  }
  if (route.delayMs) await new Promise((r) => setTimeout(r, route.delayMs));
  res.writeHead(route.status ?? 200, { 'content-type': 'text/plain', ...route.headers });
  res.end(route.body ?? '');
}

/** Starts hosts on consecutive loopback IPs from `firstIp` (default 127.0.0.2). */
export async function startHosts(count: number, routes: (index: number) => HostOptions, firstOctet = 2) {
  const hosts: TestHost[] = [];
  for (let i = 0; i < count; i++) {
    hosts.push(await startHost({ ip: `127.0.0.${firstOctet + i}`, ...routes(i) }));
  }
  return hosts;
}

// Route builders for the common cases.
export const text = (body: string, status = 200, headers: Record<string, string> = {}): RouteSpec => ({
  status,
  body,
  headers,
});
export const html = (body: string, status = 200): RouteSpec => ({
  status,
  body,
  headers: { 'content-type': 'text/html; charset=utf-8' },
});
export const redirect = (location: string, status = 301): RouteSpec => ({ status, headers: { location } });
/** Never answers: the connection stays open until the client gives up or the server closes. */
export const hang = (): Handler => () => {};
/** Sends headers and a first chunk, then never ends the body. */
export const endless = (): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('User-agent: *\nDisallow: /never-ending/\n');
};

/** Smallest gap in ms between consecutive requests of a log (Infinity for fewer than two). */
export function smallestGapMs(requests: readonly LoggedRequest[]): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < requests.length; i++) {
    const current = requests[i];
    const previous = requests[i - 1];
    if (current && previous) smallest = Math.min(smallest, current.at - previous.at);
  }
  return smallest;
}
