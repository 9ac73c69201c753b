/**
 * The soak's loopback web, in a process of its own so serving never competes with the coordinator's
 * event loop: one HTTP server per simulated host, each on its own 127.x.y.z address and all on one
 * port (so one capture filter covers them). Each site has a robots.txt with Disallow lines (and a
 * Crawl-delay on some), and pages that link to pages (and to disallowed ones). It logs every request
 * with its own clock, used only when tcpdump cannot judge at the wire.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { FromWeb, SoakHost, ToWeb } from './protocol.js';

const send = (message: FromWeb) => process.send?.(message);

const log: string[] = [];
const servers: Server[] = [];
const nowMs = () => performance.timeOrigin + performance.now();

function robotsTxt(host: SoakHost): string {
  const lines = ['User-agent: *', 'Disallow: /private/', 'Disallow: /tmp/', 'Allow: /p/'];
  if (host.crawlDelaySeconds !== undefined) lines.push(`Crawl-delay: ${host.crawlDelaySeconds}`);
  return `${lines.join('\n')}\n`;
}

function page(host: SoakHost, n: number): string {
  const links = [2 * n + 1, 2 * n + 2].filter((child) => child < host.pages).map((child) => `/p/${child}`);
  // Links the crawler must never follow: robots.txt disallows them.
  links.push(`/private/${n}`, `/tmp/${n}?session=${n}`);
  return `<!doctype html><title>page ${n}</title>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}`;
}

function serverFor(host: SoakHost): Server {
  const robots = robotsTxt(host);
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    log.push(`${nowMs().toFixed(3)} ${host.ip} ${req.method} ${path}`);
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(robots);
      return;
    }
    const match = /^\/p\/(\d+)$/.exec(path);
    const n = match ? Number(match[1]) : -1;
    if (n >= 0 && n < host.pages) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(host, n));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  // Longer than the longest delay, so a crawler may keep its connection between two requests.
  server.keepAliveTimeout = 30_000;
  return server;
}

function listen(server: Server, ip: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, ip, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function closeAll(): Promise<void> {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
}

/** One port free on every address: a random one, tried again when any address has it taken. */
async function start(hosts: readonly SoakHost[]): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    try {
      for (const host of hosts) {
        const server = serverFor(host);
        servers.push(server);
        await listen(server, host.ip, port);
      }
      return port;
    } catch {
      await closeAll();
    }
  }
  throw new Error('no port free on every soak address after 20 tries');
}

process.on('message', (message: ToWeb) => {
  if (message.t === 'start') {
    start(message.hosts).then(
      (port) => send({ t: 'ready', port }),
      (error: unknown) => send({ t: 'error', message: String(error) }),
    );
  } else if (message.t === 'dump') {
    writeFileSync(message.file, log.join('\n'));
    send({ t: 'dumped' });
  }
});
// The coordinator gone (its IPC channel closed) ends the web with it: never a server left running.
process.on('disconnect', () => {
  void closeAll().then(() => process.exit(0));
});
