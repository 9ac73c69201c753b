/**
 * politeFetch's overhead on a warm cache: the same local servers (10 loopback hosts in their own process, see got.ts),
 * bare fetch against fetch behind a no-op async wrapper and against politeFetch (`minDelayMs: 0` and `latencyFactor: 0`, so
 * only the robots check, the slot and the per-hop bookkeeping remain), rounds rotated so every client
 * sees the same machine load. Prints req/s of each and the ratios.
 * Run alone: `tsx bench/fetch.ts`.
 */
import { pathToFileURL } from 'node:url';
import { politeFetch, politenessOf } from '@politely/fetch';
import { load1, median, PACING_NOT_MEASURED, startServerProcess } from './got.js';
import { rotatedRates } from './rotated-rounds.js';

const SEQUENTIAL_REQUESTS = 1500;
const CONCURRENT_REQUESTS = 3000;
/** One worker per host: with the default in-flight cap (1 per host) polite and bare send the same. */
const IN_FLIGHT = 10;
const ROUNDS = 7;

type Fetch = typeof globalThis.fetch;

/** One request, body read to the end (as a scraper would), so the connection goes back to the pool. */
async function get(fetch: Fetch, url: string): Promise<void> {
  const response = await fetch(url);
  await response.arrayBuffer();
}

const modes = [
  {
    name: `sequential (${SEQUENTIAL_REQUESTS} requests)`,
    async run(fetch: Fetch, url: (index: number) => string): Promise<number> {
      for (let index = 0; index < SEQUENTIAL_REQUESTS; index++) await get(fetch, url(index));
      return SEQUENTIAL_REQUESTS;
    },
  },
  {
    name: `concurrent (${CONCURRENT_REQUESTS} requests, ${IN_FLIGHT} in flight, one per host)`,
    async run(fetch: Fetch, url: (index: number) => string): Promise<number> {
      const worker = async (_: unknown, host: number) => {
        for (let index = host; index < CONCURRENT_REQUESTS; index += IN_FLIGHT) await get(fetch, url(index));
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      return CONCURRENT_REQUESTS;
    },
  },
] as const;

export async function runFetchBench(): Promise<void> {
  const server = await startServerProcess();
  const url = server.url;
  // Every option at its default but the delay (the in-flight cap too: one request per host in flight).
  const polite = politeFetch({ userAgent: 'PolitelyBench/1.0', pacing: { minDelayMs: 0, latencyFactor: 0 } });
  // A do-nothing async wrapper: separates what any wrapper's extra ticks cost from politely's own work.
  const noopWrapper: Fetch = async (input, init) => fetch(input, init);
  const clients = { bare: fetch as Fetch, noopWrapper, polite };
  const names = ['bare', 'noopWrapper', 'polite'] as const;

  try {
    for (let host = 0; host < IN_FLIGHT; host++) await get(polite, url(host)); // robots.txt warm
    console.log(
      `\n## fetch + politeFetch overhead (warm cache, minDelayMs: 0, ${IN_FLIGHT} loopback hosts, server in its own process)\n`,
    );
    console.log(PACING_NOT_MEASURED);
    console.log(
      '| mode | bare fetch req/s | fetch + no-op async wrapper req/s | politeFetch req/s | politeFetch / bare | politeFetch / no-op wrapper | load (1 min) |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const mode of modes) {
      const rates = await rotatedRates(clients, (client) => mode.run(client, url), ROUNDS);
      const [bare, noop, politeRate] = names.map((name) => median(rates[name])) as [number, number, number];
      console.log(
        `| ${mode.name} | ${bare.toFixed(0)} | ${noop.toFixed(0)} | ${politeRate.toFixed(0)} | ${(politeRate / bare).toFixed(3)} | ${(politeRate / noop).toFixed(3)} | ${load1()} |`,
      );
    }
    console.log(
      `\nmedian of ${ROUNDS} rounds per client, order rotated each round; target: politeFetch / bare at least 0.90 (sequential)`,
    );
  } finally {
    await politenessOf(polite).close();
    server.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runFetchBench();
}
