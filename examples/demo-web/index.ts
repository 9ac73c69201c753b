/**
 * `startDemoWeb()`: the demo web on loopback, one IP per host (127.0.0.101, .102, ...), so per-host
 * pacing is real pacing. Used by `npm run demo`, the examples, the Crawlee comparison and the tests.
 */
import { type DemoRoute, type DemoServer, type ServedRequest, startDemoServer } from './server.js';
import { DEMO_SITE, type DemoHostKey, type HostBlueprint, type PageBlueprint } from './site.js';

export { captureDemoWeb } from './capture.js';
export {
  type DemoVerdict,
  type HostVerdict,
  type JudgeOptions,
  judgeDemoWeb,
  judgeHost,
  smallestGapMs,
} from './judge.js';
export type { ServedRequest } from './server.js';
export type { DemoHostKey, HostBlueprint, PageBlueprint, PageExpectation } from './site.js';
export { DEMO_SITE, robotsPaths } from './site.js';

export interface DemoHost {
  readonly key: DemoHostKey;
  readonly blueprint: HostBlueprint;
  /** `http://127.0.0.N:PORT` */
  readonly origin: string;
  /** The host part of a URL (`127.0.0.N`), the pacing key. */
  readonly hostname: string;
  url(path: string): string;
  /** Every request the server saw, in arrival order. */
  readonly log: readonly ServedRequest[];
}

export interface DemoWeb {
  readonly hosts: readonly DemoHost[];
  /** Every host's home page: crawling from these reaches every page of the site. */
  readonly startUrls: readonly string[];
  host(key: DemoHostKey): DemoHost;
  /** The host serving a URL, if any. */
  hostOf(url: string): DemoHost | undefined;
  close(): Promise<void>;
}

export interface DemoWebOptions {
  /** Last octet of the first host's loopback IP. Default 101 (hosts use 101..107). */
  readonly firstOctet?: number;
  /** Port every host listens on (each has its own IP). Default 0: a free port each. */
  readonly port?: number;
  /** Sees every request as it arrives, e.g. for live progress. */
  readonly onRequest?: (host: DemoHostKey, request: ServedRequest) => void;
}

const DEFAULT_FIRST_OCTET = 101;

export async function startDemoWeb(options: DemoWebOptions = {}): Promise<DemoWeb> {
  const firstOctet = options.firstOctet ?? DEFAULT_FIRST_OCTET;
  if (!Number.isInteger(firstOctet) || firstOctet < 1 || firstOctet + DEMO_SITE.length - 1 > 254) {
    throw new RangeError(
      `Expected \`firstOctet\` to be an integer from 1 to ${255 - DEMO_SITE.length}, got \`${String(firstOctet)}\` (${typeof firstOctet})`,
    );
  }
  // Routes are filled in once every server has its port, since pages link across hosts.
  const routeTables = DEMO_SITE.map(() => new Map<string, DemoRoute>());
  const servers: DemoServer[] = [];
  try {
    for (const [index, blueprint] of DEMO_SITE.entries()) {
      const onRequest = options.onRequest;
      servers.push(
        await startDemoServer({
          ip: `127.0.0.${firstOctet + index}`,
          routes: routeTables[index] ?? new Map(),
          ...(options.port === undefined ? {} : { port: options.port }),
          ...(onRequest === undefined ? {} : { onRequest: (request) => onRequest(blueprint.key, request) }),
        }),
      );
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.close()));
    throw error;
  }

  const hosts: DemoHost[] = DEMO_SITE.map((blueprint, index) => {
    const server = servers[index] as DemoServer;
    return {
      key: blueprint.key,
      blueprint,
      origin: server.origin,
      hostname: server.ip,
      url: (path: string) => `${server.origin}${path}`,
      log: server.log,
    };
  });
  const byKey = new Map(hosts.map((host) => [host.key, host]));
  const originOf = (key: DemoHostKey) => (byKey.get(key) as DemoHost).origin;
  for (const [index, blueprint] of DEMO_SITE.entries()) {
    fillRoutes(routeTables[index] as Map<string, DemoRoute>, blueprint, originOf);
  }

  return {
    hosts,
    startUrls: hosts.map((host) => host.url('/')),
    host: (key) => byKey.get(key) as DemoHost,
    hostOf: (url) => {
      const origin = new URL(url).origin;
      return hosts.find((host) => host.origin === origin);
    },
    close: async () => {
      await Promise.all(servers.map((server) => server.close()));
    },
  };
}

function fillRoutes(
  routes: Map<string, DemoRoute>,
  blueprint: HostBlueprint,
  originOf: (key: DemoHostKey) => string,
): void {
  const robots = blueprint.robots;
  switch (robots.kind) {
    case 'file':
      routes.set('/robots.txt', { kind: 'text', body: robots.body });
      break;
    case 'status':
      // A 404 is what the server answers anyway; only other statuses need a route.
      if (robots.status !== 404)
        routes.set('/robots.txt', { kind: 'text', status: robots.status, body: robots.body });
      break;
    case 'redirect':
      routes.set('/robots.txt', { kind: 'redirect', location: robots.to });
      routes.set(robots.to, { kind: 'text', body: robots.body });
      break;
  }
  for (const page of blueprint.pages) {
    routes.set(
      page.path,
      page.expect.outcome === 'redirect-blocked'
        ? { kind: 'redirect', location: page.expect.target }
        : { kind: 'html', body: renderPage(blueprint, page, originOf) },
    );
  }
  for (const target of blueprint.forbiddenTargets ?? []) {
    routes.set(target, {
      kind: 'html',
      body: `<!doctype html><title>Forbidden zone</title><h1>A polite crawler never gets here</h1>`,
    });
  }
}

function renderPage(
  blueprint: HostBlueprint,
  page: PageBlueprint,
  originOf: (key: DemoHostKey) => string,
): string {
  const items = page.links
    .map((link) => {
      const href = link.host === blueprint.key ? link.path : `${originOf(link.host)}${link.path}`;
      return `<li><a href="${href}">${link.host}${link.path}</a></li>`;
    })
    .join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${page.title}</title></head>
<body><h1>${page.title}</h1>
<p>This host demonstrates: ${blueprint.demonstrates}.</p>
<ul>
${items}
</ul></body></html>`;
}
