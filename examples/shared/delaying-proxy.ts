/**
 * A forwarding HTTP proxy on loopback that holds every request 0-300 ms (by default) before it opens
 * a new connection onward, as a rotating proxy does: the client's own connection to the proxy
 * completes at once, so the client cannot observe the hold; only the server (and the response's late
 * arrival) can. Requests are forwarded by their absolute URL (`GET http://host/path`) or, in origin
 * form, by their Host header. No CONNECT: plain HTTP only.
 */
import {
  type Agent,
  type ClientRequestArgs,
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';

export interface DelayingProxyOptions {
  /** Loopback address to listen on. Default 127.0.0.1. */
  readonly ip?: string;
  /** How long to hold each request before connecting onward, in ms. Default: uniform 0-300. */
  readonly holdMs?: () => number;
}

export interface DelayingProxy {
  readonly ip: string;
  readonly port: number;
  /** `http://127.0.0.1:PORT`, for clients that take a proxy URL. */
  readonly url: string;
  /** Holds applied so far, in order (ms). */
  readonly holds: readonly number[];
  /**
   * A keep-alive agent whose connections all go to this proxy, whatever host a request is for
   * (requests keep their origin-form line and Host header): `got(url, { agent: { http: agent } })`.
   */
  agent(): Agent;
  close(): Promise<void>;
}

export async function startDelayingProxy(options: DelayingProxyOptions = {}): Promise<DelayingProxy> {
  const ip = options.ip ?? '127.0.0.1';
  const holdMs = options.holdMs ?? (() => Math.random() * 300);
  const holds: number[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((incoming, outgoing) => {
    const target = targetOf(incoming.url ?? '/', incoming.headers.host);
    if (target === undefined) {
      outgoing.writeHead(400).end('proxy: no target');
      return;
    }
    const hold = holdMs();
    holds.push(hold);
    setTimeout(() => {
      // A new connection onward for every request (agent: false), opened only after the hold.
      const upstream = httpRequest(target, {
        method: incoming.method,
        headers: incoming.headers,
        agent: false,
      });
      upstream.on('response', (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      });
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    }, hold);
  });
  server.keepAliveTimeout = 1_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, ip, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const agents: HttpAgent[] = [];
  return {
    ip,
    port,
    url: `http://${ip}:${port}`,
    holds,
    agent() {
      const agent = new ProxyAgent(ip, port);
      agents.push(agent);
      return agent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const agent of agents) agent.destroy();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The absolute URL of a proxied request: its absolute-form target, or its path on the Host header. */
function targetOf(requestTarget: string, host: string | undefined): URL | undefined {
  try {
    if (/^https?:\/\//i.test(requestTarget)) return new URL(requestTarget);
    return host ? new URL(requestTarget, `http://${host}`) : undefined;
  } catch {
    return undefined;
  }
}

/** Every connection goes to the proxy; the agent still pools them per target host, as usual. */
class ProxyAgent extends HttpAgent {
  readonly #ip: string;
  readonly #port: number;
  constructor(ip: string, port: number) {
    super({ keepAlive: true });
    this.#ip = ip;
    this.#port = port;
  }
  override createConnection(_options: ClientRequestArgs): Socket {
    return connect(this.#port, this.#ip);
  }
}
