/**
 * What OpenTelemetry metrics cost (issue 34, point 3): the same loop of `check` + `admit` over many
 * hosts (robots.txt warm in memory, `minDelayMs: 0`, so no wait: only the decision, the slot and the
 * bookkeeping remain) on four Politeness instances side by side: metrics off (`enabled: false`, as
 * without the API installed: no listener), the API's no-op meter (API installed, no SDK), an SDK
 * MeterProvider with a reader (what an operator runs), and that with the host attribute; a second
 * "off" instance beside the first shows how far equal instances drift on this machine. Rounds are
 * rotated so each sees the same machine load; medians and ratios to "off" are printed.
 * The second table is the path a user takes: got + politeGot requests over HTTP to a local server in
 * its own process (bench/got.ts), with plain got beside them in the same rotated rounds, for each
 * metrics setting.
 * Run alone: `tsx bench/metrics.ts`.
 */
import { Agent } from 'node:http';
import { pathToFileURL } from 'node:url';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { createPoliteness, type Politeness } from '@politely/core';
import type { FetchLike } from '@politely/core/fetch';
import { politeGot, politenessOf } from '@politely/got';
import got, { type Got } from 'got';
import { median, startServerProcess } from './got.js';
import { rotatedRates } from './rotated-rounds.js';

const HOSTS = 1000;
const OPERATIONS = 5000;
const ROUNDS = 7;

/** A reader nobody collects from until the end: recording is what is measured, not exporting. */
class IdleReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** robots.txt from memory: no socket in the loop. */
const robotsFetch: FetchLike = async () => ({
  status: 200,
  headers: { get: () => null },
  body: (async function* () {
    yield new TextEncoder().encode('User-agent: *\nDisallow: /private\n');
  })(),
});

const url = (index: number) => `http://h${index % HOSTS}.bench.test/page/${index}`;

async function loop(politeness: Politeness): Promise<number> {
  for (let index = 0; index < OPERATIONS; index++) {
    await politeness.check(url(index));
    await politeness.admit(url(index));
  }
  return OPERATIONS;
}

export async function runMetricsBench(): Promise<void> {
  metrics.disable(); // no SDK registered globally: the API hands out its no-op meter
  const reader = new IdleReader();
  const provider = new MeterProvider({ readers: [reader] });
  const hostReader = new IdleReader();
  const hostProvider = new MeterProvider({ readers: [hostReader] });
  const base = {
    userAgent: 'PolitelyBench/1.0',
    logger: false as const,
    robots: { fetch: robotsFetch },
    pacing: { minDelayMs: 0, latencyFactor: 0 },
  };
  const instances = {
    off: createPoliteness({ ...base, metrics: { enabled: false } }),
    // A second identical "off": how far two equal instances drift apart is the run's noise floor.
    offAgain: createPoliteness({ ...base, metrics: { enabled: false } }),
    noop: createPoliteness(base),
    sdk: createPoliteness({ ...base, metrics: { meterProvider: provider } }),
    sdkHost: createPoliteness({ ...base, metrics: { meterProvider: hostProvider, hostAttribute: true } }),
  };
  const names = Object.keys(instances) as (keyof typeof instances)[];
  try {
    const rates = await rotatedRates(instances, loop, ROUNDS);
    const off = median(rates.off);
    console.log(
      `\n## metrics: check + admit per second (${HOSTS} hosts, robots.txt warm, minDelayMs 0, median of ${ROUNDS} rounds of ${OPERATIONS})\n`,
    );
    console.log('| metrics | check + admit / s | against off |');
    console.log('| --- | ---: | ---: |');
    const label = {
      off: 'off (`enabled: false`; as without the API)',
      offAgain: 'off again (a second identical instance: the noise floor)',
      noop: "API installed, no SDK (the API's no-op meter)",
      sdk: 'SDK MeterProvider with a reader',
      sdkHost: 'SDK MeterProvider, `hostAttribute: true`',
    };
    for (const name of names) {
      const rate = median(rates[name]);
      console.log(`| ${label[name]} | ${Math.round(rate)} | ${(rate / off).toFixed(3)} |`);
    }
    const { resourceMetrics } = await reader.collect();
    const points = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).length;
    console.log(`\n(the SDK's reader holds ${points} politely instruments after the run)`);
  } finally {
    await Promise.all(Object.values(instances).map((p) => p.close()));
    await provider.shutdown();
    await hostProvider.shutdown();
  }
  await gotRows();
}

const GOT_REQUESTS = 1000;
const GOT_ROUNDS = 7;

/** The user's path: got + politeGot over HTTP, plain got beside it, for each metrics setting. */
async function gotRows(): Promise<void> {
  metrics.disable();
  const server = await startServerProcess();
  const reader = new IdleReader();
  const provider = new MeterProvider({ readers: [reader] });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = got.extend({ agent: { http: agent }, retry: { limit: 0 } });
  const polite = (metricsOptions: object) =>
    base.extend(
      politeGot({
        userAgent: 'PolitelyBench/1.0',
        logger: false,
        pacing: { minDelayMs: 0, latencyFactor: 0 },
        metrics: metricsOptions,
      }),
    );
  const clients: Record<string, Got> = {
    plain: base,
    off: polite({ enabled: false }),
    noop: polite({}),
    sdk: polite({ meterProvider: provider }),
  };
  const names = Object.keys(clients);
  const url = (index: number) => `http://127.0.0.1:${server.port}/page/${index}`;
  const run = async (client: Got) => {
    for (let index = 0; index < GOT_REQUESTS; index++) await client(url(index));
    return GOT_REQUESTS;
  };
  try {
    const rates: Record<string, number[]> = await rotatedRates(clients, run, GOT_ROUNDS);
    console.log(
      `\n## metrics on the user's path: got + politeGot, ${GOT_REQUESTS} sequential requests to a local server (its own process), minDelayMs 0, median of ${GOT_ROUNDS} rotated rounds\n`,
    );
    console.log('| client | req/s | against politeGot, metrics off | against plain got |');
    console.log('| --- | ---: | ---: | ---: |');
    const label: Record<string, string> = {
      plain: 'plain got',
      off: 'got + politeGot, metrics off',
      noop: "got + politeGot, API's no-op meter (no SDK)",
      sdk: 'got + politeGot, SDK MeterProvider with a reader',
    };
    const off = median(rates.off ?? []);
    const plain = median(rates.plain ?? []);
    for (const name of names) {
      const rate = median(rates[name] ?? []);
      console.log(
        `| ${label[name]} | ${Math.round(rate)} | ${(rate / off).toFixed(3)} | ${(rate / plain).toFixed(3)} |`,
      );
    }
  } finally {
    await Promise.all(
      Object.entries(clients)
        .filter(([name]) => name !== 'plain')
        .map(([, client]) => politenessOf(client)?.close()),
    );
    await provider.shutdown();
    agent.destroy();
    server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runMetricsBench();
