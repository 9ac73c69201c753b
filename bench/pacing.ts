/**
 * Pacing judged at the wire (tcpdump on lo, the kernel's time of each request line), with two CPU
 * burners beside every run: per scenario, the page requests, the gaps below the asked delay
 * (violations, no tolerance), the smallest gap, and efficiency per host ((pages - 1) x delay / time
 * taken; 1 is as fast as politeness allows, 1/1.1 = 0.91 is the target floor).
 *
 * Extend it with a driver (a function that crawls a list of hosts' pages with a given delay and
 * network) and scenarios that use it, as the got, politeFetch and Crawlee rows do.
 * Run alone: `npm run bench -- pacing`, or `tsx bench/pacing.ts [filter]`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type Agent, Agent as HttpAgent } from 'node:http';
import { pathToFileURL } from 'node:url';
import { CheerioCrawler } from '@crawlee/cheerio';
import { ProxyConfiguration } from '@crawlee/core';
import { withPoliteness } from '@politely/crawlee';
import { politeFetch, politenessOf as politenessOfFetch } from '@politely/fetch';
import { type GotPacingOptions, politeGot, politenessOf } from '@politely/got';
import got from 'got';
import { memoryConfiguration, quietInMemoryCrawlee } from '../examples/demo/crawlee-env.js';
import { markdownTable } from '../examples/demo/table.js';
import { startDelayingProxy } from '../examples/shared/delaying-proxy.js';
import { slowConnectAgent } from '../examples/shared/slow-connect-agent.js';
import { burnCpu, judgePacing, startWireCapture, type WireTarget } from '../test/helpers/wire.js';
import { summarizePacing } from './wire-summary.js';

/** How requests reach the servers. */
export type Network =
  | 'direct'
  /** Each new connection costs 120 ms before the request can be written (a TLS handshake's worth). */
  | 'slow-connect'
  /** Through a forwarding proxy that holds every request 0-300 ms before connecting onward. */
  | 'proxy';

export interface DriverContext {
  /** The delay asked (minDelayMs; the sites send no Crawl-delay). */
  readonly delayMs: number;
  readonly network: Network;
  /** The http agent that realises the network for clients that take one (got); undefined: direct. */
  readonly agent: Agent | undefined;
  /** The proxy's URL when network is 'proxy' (for clients configured by proxy URL, e.g. Crawlee). */
  readonly proxyUrl: string | undefined;
}

/** A crawler under test: crawls every page of every host (each inner list is one host's pages). */
export interface PacingDriver {
  readonly name: string;
  crawl(hosts: readonly (readonly string[])[], context: DriverContext): Promise<void>;
}

export interface PacingScenario {
  readonly driver: PacingDriver;
  readonly delayMs: number;
  readonly hosts: number;
  readonly pages: number;
  readonly network: Network;
}

export interface ScenarioResult {
  readonly scenario: PacingScenario;
  readonly judgedBy: 'tcpdump' | 'server-log';
  readonly pages: number;
  readonly violations: readonly number[];
  readonly smallestGapMs: number | undefined;
  readonly worstEfficiency: number | undefined;
  readonly medianEfficiency: number | undefined;
  /** The slowest host's first-to-last span over its bound, (pages - 1) x delay (target: at most 1.1). */
  readonly slowestOverBound: number | undefined;
  readonly elapsedMs: number;
}

const USER_AGENT = 'PolitelyPacingBench/1.0 (+http://127.0.0.1/bot)';
const BURNERS = 2;

/** got with a loop per host, as a scraper would write it: all hosts at once, each host's pages in turn. */
export function gotDriver(pacing: GotPacingOptions | 'impolite'): PacingDriver {
  const name =
    pacing === 'impolite' ? 'got, no politeness' : `got, spacing '${pacing.spacing ?? 'response'}'`;
  return {
    name,
    async crawl(hosts, context) {
      const base = got.extend({
        retry: { limit: 0 },
        ...(context.agent ? { agent: { http: context.agent } } : {}),
      });
      if (pacing === 'impolite') {
        await Promise.all(
          hosts.map(async (pages) => {
            for (const url of pages) await base(url);
          }),
        );
        return;
      }
      const options = politeGot(
        { userAgent: USER_AGENT, pacing: { minDelayMs: context.delayMs, maxWaitMs: 600_000 } },
        pacing,
      );
      const client = base.extend(options);
      try {
        await Promise.all(
          hosts.map(async (pages) => {
            for (const url of pages) await client(url);
          }),
        );
      } finally {
        await politenessOf(options).close();
      }
    },
  };
}

/**
 * politeFetch (Node's global fetch) with a loop per host, each body read to its end. Direct network
 * only: Node's fetch takes no http Agent, so the slow-connect and proxy networks are got's rows.
 */
export function fetchDriver(): PacingDriver {
  return {
    name: 'politeFetch',
    async crawl(hosts, context) {
      if (context.network !== 'direct')
        throw new Error('the politeFetch driver runs on the direct network only');
      const fetch = politeFetch({
        userAgent: USER_AGENT,
        pacing: { minDelayMs: context.delayMs, maxWaitMs: 600_000 },
      });
      try {
        await Promise.all(
          hosts.map(async (pages) => {
            for (const url of pages) await (await fetch(url)).arrayBuffer();
          }),
        );
      } finally {
        await politenessOfFetch(fetch).close();
      }
    },
  };
}

/**
 * CheerioCrawler with `withPoliteness`, every host's pages queued at once. Direct or through the proxy
 * (Crawlee's `proxyConfiguration`, by URL); the slow-connect network needs an http Agent, which
 * Crawlee's HTTP client does not take.
 */
export function crawleeDriver(): PacingDriver {
  return {
    name: 'CheerioCrawler + withPoliteness',
    async crawl(hosts, context) {
      if (context.network === 'slow-connect')
        throw new Error('the Crawlee driver runs direct or through the proxy only');
      quietInMemoryCrawlee('off');
      const config = memoryConfiguration();
      const crawler = new CheerioCrawler(
        withPoliteness(
          {
            maxConcurrency: 50,
            maxRequestRetries: 0,
            requestHandler: async () => {},
            ...(context.proxyUrl
              ? { proxyConfiguration: new ProxyConfiguration({ proxyUrls: [context.proxyUrl] }) }
              : {}),
          },
          { userAgent: USER_AGENT, pacing: { minDelayMs: context.delayMs, maxWaitMs: 600_000 } },
          { config },
        ),
        config,
      );
      await crawler.run(hosts.flat());
    },
  };
}

const response = gotDriver({ spacing: 'response' });
const start = gotDriver({ spacing: 'start' });
const impolite = gotDriver('impolite');
const fetchRows = fetchDriver();
const crawlee = crawleeDriver();

/** The default scenarios: got at several delays and networks, then the 50 x 20 web of issue 9 item 7. */
export const scenarios: PacingScenario[] = [
  ...[response, start].flatMap((driver) => [
    ...[50, 100, 200].map((delayMs) => ({
      driver,
      delayMs,
      hosts: 5,
      pages: 15,
      network: 'direct' as const,
    })),
    ...[50, 100, 200].map((delayMs) => ({
      driver,
      delayMs,
      hosts: 5,
      pages: 15,
      network: 'slow-connect' as const,
    })),
    { driver, delayMs: 1000, hosts: 3, pages: 5, network: 'slow-connect' as const },
    ...[100, 200].map((delayMs) => ({ driver, delayMs, hosts: 5, pages: 15, network: 'proxy' as const })),
    { driver, delayMs: 1000, hosts: 3, pages: 5, network: 'proxy' as const },
  ]),
  ...[50, 100, 200].map((delayMs) => ({
    driver: fetchRows,
    delayMs,
    hosts: 5,
    pages: 15,
    network: 'direct' as const,
  })),
  // Crawlee's HTTP crawler, direct and through the proxy whose holds the client cannot see.
  { driver: crawlee, delayMs: 200, hosts: 5, pages: 15, network: 'direct' as const },
  { driver: crawlee, delayMs: 200, hosts: 5, pages: 15, network: 'proxy' as const },
  { driver: crawlee, delayMs: 1000, hosts: 3, pages: 5, network: 'proxy' as const },
  // The same small web without politeness: how fast a loop per host goes on this machine at all.
  { driver: impolite, delayMs: 50, hosts: 5, pages: 15, network: 'direct' as const },
  // As fast as politeness allows (issue 9 item 7): every host within 1.1x of (pages - 1) x delay, and
  // the same crawl without politeness beside it, to show where the machine itself is the limit.
  ...[response, start, fetchRows, impolite].flatMap((driver) => [
    { driver, delayMs: 200, hosts: 10, pages: 20, network: 'direct' as const },
    { driver, delayMs: 500, hosts: 50, pages: 20, network: 'direct' as const },
  ]),
];

export async function runScenario(scenario: PacingScenario): Promise<ScenarioResult> {
  const web = await startWebProcess(scenario.hosts);
  const proxy = scenario.network === 'proxy' ? await startDelayingProxy() : undefined;
  const agent =
    scenario.network === 'slow-connect'
      ? slowConnectAgent(120)
      : proxy
        ? proxy.agent()
        : new HttpAgent({ keepAlive: true });
  const targets: WireTarget[] = web.ports.map((port, i) => ({ ip: ipOf(i), port }));
  const urls = targets.map((t) =>
    Array.from({ length: scenario.pages }, (_, p) => `http://${t.ip}:${t.port}/page/${p}`),
  );
  const burners = burnCpu(BURNERS, undefined, { always: true });
  try {
    const capture = await startWireCapture(targets);
    const started = performance.now();
    await scenario.driver.crawl(urls, {
      delayMs: scenario.delayMs,
      network: scenario.network,
      agent,
      proxyUrl: proxy?.url,
    });
    const elapsedMs = performance.now() - started;
    const seen = await capture.stop();
    const judged = [...judgePacing(seen, scenario.delayMs).values()];
    const summary = summarizePacing(judged);
    const spans = judged.map((h) => (h.times.at(-1) ?? 0) - (h.times[0] ?? 0));
    const boundMs = (scenario.pages - 1) * scenario.delayMs;
    return {
      scenario,
      judgedBy: capture.source,
      pages: summary.requests,
      violations: summary.violations,
      smallestGapMs: summary.smallestGapMs,
      worstEfficiency: summary.worstEfficiency,
      medianEfficiency: summary.medianEfficiency,
      slowestOverBound: spans.length && boundMs > 0 ? Math.max(...spans) / boundMs : undefined,
      elapsedMs,
    };
  } finally {
    burners.stop();
    agent.destroy();
    await proxy?.close();
    web.stop();
  }
}

export async function runPacingBench(filter?: string): Promise<ScenarioResult[]> {
  console.log(`\n## Pacing at the wire (${BURNERS} CPU burners beside every run)\n`);
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) {
    const label = describe(scenario);
    if (filter && !label.includes(filter)) continue;
    const result = await runScenario(scenario);
    results.push(result);
    console.log(`  ${label}: ${summary(result)}`);
  }
  const rows = results.map((r) => [
    describe(r.scenario),
    String(r.pages),
    String(r.violations.length),
    r.smallestGapMs === undefined ? '-' : `${r.smallestGapMs.toFixed(1)} ms`,
    r.worstEfficiency === undefined
      ? '-'
      : `${r.worstEfficiency.toFixed(2)} / ${(r.medianEfficiency ?? 0).toFixed(2)}`,
    r.slowestOverBound === undefined ? '-' : `${r.slowestOverBound.toFixed(2)}x`,
    `${(r.elapsedMs / 1000).toFixed(1)} s`,
    r.judgedBy,
  ]);
  console.log(
    `\n${markdownTable(
      [
        { title: 'scenario' },
        { title: 'pages', align: 'right' },
        { title: 'gaps < asked', align: 'right' },
        { title: 'smallest gap', align: 'right' },
        { title: 'efficiency worst / median', align: 'right' },
        { title: 'slowest host / bound', align: 'right' },
        { title: 'wall time', align: 'right' },
        { title: 'judged by' },
      ],
      rows,
    )}\n`,
  );
  return results;
}

function describe(s: PacingScenario): string {
  return `${s.driver.name}, ${s.network}, ${s.delayMs} ms, ${s.hosts} x ${s.pages}`;
}

function summary(r: ScenarioResult): string {
  const violations = r.violations.length
    ? `${r.violations.length} gaps < asked (smallest ${Math.min(...r.violations).toFixed(1)} ms)`
    : '0 gaps < asked';
  return `${r.pages} pages, ${violations}, efficiency worst ${r.worstEfficiency?.toFixed(2) ?? '-'}, median ${r.medianEfficiency?.toFixed(2) ?? '-'}, slowest host ${r.slowestOverBound?.toFixed(2) ?? '-'}x bound, ${(r.elapsedMs / 1000).toFixed(1)} s`;
}

/** Simulated hosts on 127.0.0.150 and up: clear of the tests (.2-.99) and the demo webs (.101-.147). */
const FIRST_OCTET = 150;
const ipOf = (index: number) => `127.0.0.${FIRST_OCTET + index}`;

/** The sites, in their own process so their event loop is not the crawler's: robots.txt allows all. */
const WEB_SOURCE = `
const http = require('node:http');
const [first, count] = process.argv.slice(1).map(Number);
const page = '<!doctype html><title>page</title><p>' + 'x'.repeat(2000) + '</p>';
Promise.all(Array.from({ length: count }, (_, i) => new Promise((resolve) => {
  const server = http.createServer((req, res) => {
    if (req.url === '/robots.txt') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('User-agent: *\\nAllow: /\\n'); return; }
    res.writeHead(200, { 'content-type': 'text/html' }); res.end(page);
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.' + (first + i), () => resolve(server.address().port));
}))).then((ports) => process.stdout.write(JSON.stringify(ports) + '\\n'));
`;

async function startWebProcess(count: number): Promise<{ ports: number[]; stop(): void }> {
  const child = spawn(process.execPath, ['-e', WEB_SOURCE, String(FIRST_OCTET), String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return { ports: JSON.parse(chunk.toString()) as number[], stop: () => child.kill() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runPacingBench(process.argv[2]);
}
