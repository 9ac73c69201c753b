/**
 * OpenTelemetry metrics (issue 34, point 3), read as an operator reads them: through an SDK's
 * MeterProvider and a reader collected by hand, after a small crawl against loopback servers whose
 * own request logs say what was really sent.
 */
import { metrics } from '@opentelemetry/api';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  type MetricData,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { mergeOptions, type OptionOverrides } from '../../../../test/helpers/options.js';
import { sendGet } from '../../../../test/helpers/send.js';
import { createPoliteness, getDisallowedDecision, isClosedError, type Politeness } from '../../src/index.js';
import { createMetricsRecorder } from '../../src/metrics/recorder.js';
import { adapterKit } from '../../src/public/adapter.js';
import { createFrontier } from '../../src/public/frontier.js';

/** A reader collected on demand: what a Prometheus scrape or a periodic export would see. */
class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
  /** Every politely metric of the last collection, by name. */
  async politely(): Promise<Map<string, MetricData>> {
    const { resourceMetrics, errors } = await this.collect();
    expect(errors).toEqual([]);
    const found = new Map<string, MetricData>();
    for (const scope of resourceMetrics.scopeMetrics) {
      if (scope.scope.name !== '@politely/core') continue;
      for (const metric of scope.metrics) found.set(metric.descriptor.name, metric);
    }
    return found;
  }
}

const hosts: TestHost[] = [];
const instances: Politeness[] = [];
const providers: MeterProvider[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  await Promise.all(providers.splice(0).map((p) => p.shutdown()));
  metrics.disable();
});

async function site(ip: string, robots: string | undefined) {
  const routes = {
    '/robots.txt': robots === undefined ? { status: 404, body: 'no robots.txt' } : text(robots),
  };
  const started = await startHost({ ip, routes, fallback: text('<html>page</html>') });
  hosts.push(started);
  return started;
}

function sdk() {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  providers.push(provider);
  return { reader, provider };
}

function polite(options: OptionOverrides = {}) {
  const instance = createPoliteness(
    mergeOptions({ userAgent: 'MeterBot/1.0', pacing: { minDelayMs: 0 }, logger: false }, options),
  );
  instances.push(instance);
  return instance;
}

/** The value of each data point, keyed by its attributes written `k=v,k=v` ('' for none). */
function byAttributes(metric: MetricData | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const point of (metric?.dataPoints ?? []) as DataPoint<unknown>[]) {
    const key = Object.entries(point.attributes)
      .map(([k, v]) => `${k}=${String(v)}`)
      .sort()
      .join(',');
    out[key] = point.value;
  }
  return out;
}

const ROBOTS = 'User-agent: *\nDisallow: /private\n';

/**
 * Two sites with robots.txt, one without (404: unavailable, allow all). Admits every URL it is
 * allowed, sends it, and reports a refusal as an adapter would.
 */
async function crawl(p: Politeness) {
  const a = await site('127.0.0.241', ROBOTS);
  const b = await site('127.0.0.242', ROBOTS);
  const c = await site('127.0.0.243', undefined);
  const urls = [a.url('/1'), a.url('/2'), a.url('/private/x'), b.url('/1'), b.url('/private/y'), c.url('/1')];
  let admitted = 0;
  for (const url of urls) {
    try {
      await p.admit(url);
    } catch (error) {
      const decision = getDisallowedDecision(error);
      if (decision && !decision.allowed) adapterKit(p).reportSkip(decision, 'send');
      continue;
    }
    admitted++;
    await sendGet(url);
  }
  // A 429 without Retry-After (the default backoff) and a 503 with one.
  await p.observeResponse(a.url('/1'), 429, null);
  await p.observeResponse(b.url('/1'), 503, '1');
  const sent = [a, b, c].flatMap((h) => h.log.filter((r) => r.path !== '/robots.txt'));
  return { admitted, sent, a, b, c };
}

describe('metrics: a crawl seen through an OpenTelemetry SDK', () => {
  it('counts decisions, robots.txt fetches, skips and backoffs, and times every admit', async () => {
    const { reader, provider } = sdk();
    const p = polite({ metrics: { meterProvider: provider } });
    const { admitted, sent, a } = await crawl(p);
    const found = await reader.politely();
    const stats = p.stats();

    // Allowed decisions are what the servers saw, as stats() counts them.
    expect(sent).toHaveLength(4);
    expect(admitted).toBe(4);
    expect(byAttributes(found.get('politely.decisions'))).toEqual({
      'politely.decision.reason=allowed': stats.decisions.allowed,
      'politely.decision.reason=disallowed': stats.decisions.disallowed,
    });
    expect(stats.decisions).toMatchObject({ allowed: 4, disallowed: 2 });
    expect(byAttributes(found.get('politely.robots.fetches'))).toEqual({
      'politely.robots.outcome=ok': 2,
      'politely.robots.outcome=unavailable': 1,
    });
    expect(byAttributes(found.get('politely.skips'))).toEqual({ 'politely.skip.stage=send': 2 });
    expect(byAttributes(found.get('politely.backoffs'))).toMatchObject({
      'politely.backoff.cause=429': 1,
      'politely.backoff.cause=retry-after': 1,
    });
    expect(stats.backoffs).toBe(2);

    const wait = found.get('politely.pacing.wait_time');
    expect(wait?.descriptor.unit).toBe('s');
    const points = (wait?.dataPoints ?? []) as DataPoint<Histogram>[];
    expect(points).toHaveLength(1);
    // One record per admit, granted at once or after a wait (minDelayMs 0 here, so most at once).
    expect(points[0]?.value.count).toBe(admitted);
    expect(points[0]?.value.count).toBe(stats.reservations.immediate + stats.reservations.waited);
    expect(points[0]?.value.buckets.boundaries).toEqual([
      0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60,
    ]);
    expect(found.get('politely.decisions')?.descriptor.unit).toBe('{decision}');

    // Counts reach the SDK at each collection (a second adds only what came since) and at close.
    await p.check(a.url('/3'));
    await p.close();
    expect(byAttributes((await reader.politely()).get('politely.decisions'))).toEqual({
      'politely.decision.reason=allowed': stats.decisions.allowed + 1,
      'politely.decision.reason=disallowed': stats.decisions.disallowed,
    });
  });

  it('names no host unless hostAttribute is on, then every counted value carries politely.host', async () => {
    const off = sdk();
    const quiet = polite({ metrics: { meterProvider: off.provider } });
    await crawl(quiet);
    for (const metric of (await off.reader.politely()).values()) {
      for (const point of metric.dataPoints)
        expect(Object.keys(point.attributes)).not.toContain('politely.host');
    }
    await Promise.all([
      ...instances.splice(0).map((p) => p.close()),
      ...hosts.splice(0).map((h) => h.close()),
    ]);

    const on = sdk();
    const named = polite({ metrics: { meterProvider: on.provider, hostAttribute: true } });
    await crawl(named);
    const found = await on.reader.politely();
    expect(byAttributes(found.get('politely.decisions'))).toEqual({
      'politely.decision.reason=allowed,politely.host=127.0.0.241': 2,
      'politely.decision.reason=disallowed,politely.host=127.0.0.241': 1,
      'politely.decision.reason=allowed,politely.host=127.0.0.242': 1,
      'politely.decision.reason=disallowed,politely.host=127.0.0.242': 1,
      'politely.decision.reason=allowed,politely.host=127.0.0.243': 1,
    });
    expect(Object.keys(byAttributes(found.get('politely.pacing.wait_time'))).sort()).toEqual([
      'politely.host=127.0.0.241',
      'politely.host=127.0.0.242',
      'politely.host=127.0.0.243',
    ]);
    expect(byAttributes(found.get('politely.robots.fetches'))).toMatchObject({
      'politely.host=127.0.0.243,politely.robots.outcome=unavailable': 1,
    });
  });

  it('names at most metrics.maxHosts hosts; the others count as `other` (issue 43.5)', async () => {
    const on = sdk();
    const capped = polite({ metrics: { meterProvider: on.provider, hostAttribute: true, maxHosts: 2 } });
    await crawl(capped);
    const found = await on.reader.politely();
    // The crawl meets 127.0.0.241, then .242, then .243: the third has no series of its own.
    expect(byAttributes(found.get('politely.decisions'))).toEqual({
      'politely.decision.reason=allowed,politely.host=127.0.0.241': 2,
      'politely.decision.reason=disallowed,politely.host=127.0.0.241': 1,
      'politely.decision.reason=allowed,politely.host=127.0.0.242': 1,
      'politely.decision.reason=disallowed,politely.host=127.0.0.242': 1,
      'politely.decision.reason=allowed,politely.host=other': 1,
    });
    expect(Object.keys(byAttributes(found.get('politely.pacing.wait_time'))).sort()).toEqual([
      'politely.host=127.0.0.241',
      'politely.host=127.0.0.242',
      'politely.host=other',
    ]);
  });

  it('records through the global MeterProvider when none is passed, and nothing with enabled: false', async () => {
    const { reader, provider } = sdk();
    expect(metrics.setGlobalMeterProvider(provider)).toBe(true);
    const viaGlobal = polite();
    const a = await site('127.0.0.244', ROBOTS);
    await viaGlobal.check(a.url('/x'));
    await viaGlobal.check(a.url('/private/x'));
    const off = polite({ metrics: { enabled: false } });
    await off.check(a.url('/y'));
    expect(byAttributes((await reader.politely()).get('politely.decisions'))).toEqual({
      'politely.decision.reason=allowed': 1,
      'politely.decision.reason=disallowed': 1,
    });
    expect(off.stats().decisions.allowed).toBe(1);
  });

  it('gauges the hosts whose callers wait for a slot and the requests a frontier parked', async () => {
    const { reader, provider } = sdk();
    const p = polite({ metrics: { meterProvider: provider }, pacing: { minDelayMs: 30_000 } });
    const a = await site('127.0.0.245', 'User-agent: *\nAllow: /\n');
    const b = await site('127.0.0.246', 'User-agent: *\nAllow: /\n');
    // robots.txt took a's slot: the admit after it waits 30 s for the next one.
    await p.check(a.url('/1'));
    const waiting = p.admit(a.url('/2')).catch((error: unknown) => error);
    // The frontier parks what it cannot decide from memory (b's robots.txt is not fetched yet).
    const frontier = createFrontier(p);
    expect(await frontier.admit({ url: b.url('/1') })).toBeUndefined();
    expect(await frontier.admit({ url: b.url('/2') })).toBeUndefined();
    expect(frontier.size).toBe(2);
    // The admit is on its way to its slot: seen once it waits.
    await vi.waitFor(async () =>
      expect(byAttributes((await reader.politely()).get('politely.hosts.waiting'))).toEqual({ '': 1 }),
    );
    const found = await reader.politely();
    expect(byAttributes(found.get('politely.requests.parked'))).toEqual({ '': 2 });
    expect(byAttributes(found.get('politely.hosts.parked'))).toEqual({ '': 1 });
    await p.close();
    expect(isClosedError(await waiting)).toBe(true);
    await frontier.settled();
  });

  it("takes no recorder (so adds no listener) for the API's no-op meter, one for an SDK's", () => {
    metrics.disable();
    expect(createMetricsRecorder({ meterProvider: undefined, hostAttribute: false })).toBeUndefined();
    expect(
      createMetricsRecorder({ meterProvider: metrics.getMeterProvider(), hostAttribute: false }),
    ).toBeUndefined();
    const { provider } = sdk();
    const recorder = createMetricsRecorder({ meterProvider: provider, hostAttribute: false });
    expect(recorder).toBeDefined();
    recorder?.close();
    metrics.setGlobalMeterProvider(provider);
    expect(createMetricsRecorder({ meterProvider: undefined, hostAttribute: false })).toBeDefined();
  });

  it('a throwing SDK never fails a crawl', async () => {
    const throwing = () => {
      throw new Error('broken exporter');
    };
    const meter = {
      createCounter: () => ({ add: throwing }),
      createHistogram: () => ({ record: throwing }),
      createObservableGauge: () => ({}),
      addBatchObservableCallback: () => {},
      removeBatchObservableCallback: throwing,
    };
    const p = polite({ metrics: { meterProvider: { getMeter: () => meter } } });
    const a = await site('127.0.0.247', ROBOTS);
    await expect(p.admit(a.url('/x'))).resolves.toMatchObject({ allowed: true });
    await expect(p.observeResponse(a.url('/x'), 429, null)).resolves.toBe(5000);
    await expect(p.close()).resolves.toBeUndefined();
  });

  it('refuses a meterProvider that is no MeterProvider, naming the option', () => {
    expect(() =>
      createPoliteness({ userAgent: 'MeterBot/1.0', metrics: { meterProvider: {} as never } }),
    ).toThrow(/metrics\.meterProvider/);
  });
});
