/**
 * The got hook's overhead on a warm cache: the same local servers (one process, 10 loopback hosts),
 * plain got against got + politeGot (`minDelayMs: 0` and `latencyFactor: 0`, every other option at
 * its default, so only the robots check and the slot bookkeeping remain), measured in one run, rounds
 * rotated so all see the same machine load. Prints req/s of each, the ratios and the load.
 * Run alone: `tsx bench/got.ts`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { politeGot, politenessOf } from '@politely/got';
import got, { type Got } from 'got';
import { rotatedRates } from './rotated-rounds.js';

/** Loopback hosts the server process listens on (127.0.0.1-10), each paced on its own. */
const SERVER_HOSTS = 10;
const SEQUENTIAL_REQUESTS = 1500;
const CONCURRENT_REQUESTS = 3000;
/** One worker per host: with the default in-flight cap (1 per host) polite and plain send the same. */
const IN_FLIGHT = 10;
const ROUNDS = 7;

interface Mode {
  readonly name: string;
  run(client: Got, url: (index: number) => string): Promise<number>;
}

const modes: readonly Mode[] = [
  {
    name: `sequential (${SEQUENTIAL_REQUESTS} requests)`,
    async run(client, url) {
      for (let index = 0; index < SEQUENTIAL_REQUESTS; index++) await client(url(index));
      return SEQUENTIAL_REQUESTS;
    },
  },
  {
    name: `concurrent (${CONCURRENT_REQUESTS} requests, ${IN_FLIGHT} in flight, one per host)`,
    async run(client, url) {
      const worker = async (_: unknown, host: number) => {
        for (let index = host; index < CONCURRENT_REQUESTS; index += IN_FLIGHT) await client(url(index));
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      return CONCURRENT_REQUESTS;
    },
  },
];

/** Said above the overhead tables: they time requests, not the spacing between them. */
export const PACING_NOT_MEASURED =
  'Overhead per request only: no delay is asked (minDelayMs 0), so pacing is not measured here. ' +
  'Pacing at the wire (violations, efficiency) for got and politeFetch: `npm run bench -- pacing`.\n';

export async function runGotBench(): Promise<void> {
  const server = await startServerProcess();
  const url = server.url;

  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const base = got.extend({ agent: { http: agent }, retry: { limit: 0 } });
  // Every option at its default but the delay (the in-flight cap too: the concurrent rows keep one
  // request per host in flight, so it holds none of them back).
  const polite = politeGot({ userAgent: 'PolitelyBench/1.0', pacing: { minDelayMs: 0, latencyFactor: 0 } });
  // A do-nothing async hook: separates what any async hook costs in got from what politely's work costs.
  const noopHook = base.extend({ hooks: { beforeRequest: [async () => {}] } });
  const clients = { plain: base, noopHook, polite: base.extend(polite) };
  const names = ['plain', 'noopHook', 'polite'] as const;

  try {
    for (let host = 0; host < SERVER_HOSTS; host++) await clients.polite(url(host)); // robots.txt warm
    console.log(
      `\n## got + politeGot overhead (warm cache, minDelayMs: 0, ${SERVER_HOSTS} loopback hosts, server in its own process)\n`,
    );
    console.log(PACING_NOT_MEASURED);
    console.log(
      '| mode | plain got req/s | got + no-op async hook req/s | got + politeGot req/s | politeGot / plain | politeGot / no-op hook | load (1 min) |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const mode of modes) {
      const rates = await rotatedRates(clients, (client) => mode.run(client, url), ROUNDS);
      const [plain, noop, politeRate] = names.map((name) => median(rates[name])) as [number, number, number];
      console.log(
        `| ${mode.name} | ${plain.toFixed(0)} | ${noop.toFixed(0)} | ${politeRate.toFixed(0)} | ${(politeRate / plain).toFixed(3)} | ${(politeRate / noop).toFixed(3)} | ${load1()} |`,
      );
    }
    console.log(
      `\nmedian of ${ROUNDS} rounds per client, order rotated each round; target: politeGot / plain at least 0.90 (sequential)`,
    );
    // The hook's own work, without got around it: one admit (robots check + slot) on a warm cache.
    const politeness = politenessOf(polite);
    const target = new URL(url(1));
    const calls = 10_000;
    const started = performance.now();
    for (let index = 0; index < calls; index++) await politeness.admit(target);
    const admitUs = ((performance.now() - started) * 1000) / calls;
    console.log(`politeness.admit on a warm cache: ${admitUs.toFixed(1)} µs per request`);
  } finally {
    await politenessOf(polite).close();
    agent.destroy();
    server.stop();
  }
}

/**
 * The server runs in its own process: in the client's process it would share one event loop with the
 * client, and the hook's extra ticks would change how the two interleave rather than measure the hook.
 */
const SERVER_SOURCE = `
const { createServer } = require('node:http');
const handle = (req, res) => {
  if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\\nDisallow: /private\\n');
  else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
};
const hosts = Array.from({ length: ${SERVER_HOSTS} }, (_, i) => '127.0.0.' + (i + 1));
Promise.all(hosts.map((host) => new Promise((listening) => {
  const server = createServer(handle);
  server.listen(0, host, () => listening(host + ':' + server.address().port));
}))).then((origins) => process.stdout.write(JSON.stringify(origins) + '\\n'));
`;

/** One process serving 10 loopback hosts (127.0.0.1-10); `url(i)` is a page on host i mod 10. */
export async function startServerProcess(): Promise<{
  port: number;
  url(index: number): string;
  stop(): void;
}> {
  const child = spawn(process.execPath, ['-e', SERVER_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  const origins = JSON.parse(chunk.toString()) as string[];
  return {
    port: Number(origins[0]?.split(':')[1]),
    url: (index) => `http://${origins[index % origins.length]}/page/${index}`,
    stop: () => child.kill(),
  };
}

/** The 1-minute load average, printed beside each timed row. */
export const load1 = () => loadavg()[0]?.toFixed(2) ?? '?';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runGotBench();
}
