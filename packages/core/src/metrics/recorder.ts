/**
 * OpenTelemetry metrics for one Politeness (issue 34, point 3). Counters are fed by the instance's
 * event bus (`listener`, subscribed only when metrics are on: with them off no listener is added and
 * no event is built for them); what no event says, the facade reports here directly: the wait each
 * granted pacing slot took (`waited`) and the callers waiting for one (`waiting`). The gauges are
 * read when the reader collects, from the facade's waiting callers and the frontiers built on the
 * instance (`observeParked`).
 *
 * Every call is guarded: an SDK that throws must never fail or stall a crawl.
 */
import type { EventSink, PolitelyEvent } from '../kernel/events.js';
import { HOST_ATTRIBUTE, INSTRUMENTS, WAIT_BUCKETS_S } from './instruments.js';
import {
  type BatchObservableCallbackLike,
  type CounterLike,
  globalMeterProvider,
  type MeterLike,
  type MeterProviderLike,
  type MetricAttributes,
  noopCounter,
  packageVersion,
} from './otel-api.js';

/** What a frontier shows the parked gauges: read at each collection while the frontier lives. */
export interface ParkedSource {
  /** Requests parked now. */
  readonly size: number;
  /** Hosts with requests parked now. */
  readonly parkedHosts: number;
}

export interface MetricsRecorder {
  /** Subscribe it to the instance's event bus. */
  readonly listener: EventSink;
  /** A pacing slot for the host was granted after `waitMs` (0: at once). */
  waited(host: string, waitMs: number): void;
  /** A caller starts waiting for the host's slot; call the returned function when it stops. */
  waiting(host: string): () => void;
  /** Counts a frontier's parked requests in the gauges for as long as it is not garbage. */
  observeParked(source: ParkedSource): void;
  /** Stops the gauges' callbacks (the instance closed). */
  close(): void;
}

export interface MetricsSettings {
  /** The provider passed in the options; undefined: the global one (`@opentelemetry/api`). */
  readonly meterProvider: MeterProviderLike | undefined;
  /** Every instrument but the gauges carries `politely.host`. */
  readonly hostAttribute: boolean;
  /** Hosts named by `politely.host` at most (the first this many met); the rest are `other`. */
  readonly maxHosts?: number;
}

/** What `politely.host` says for the hosts past `metrics.maxHosts`. */
export const OTHER_HOSTS = 'other';

/** The instrumentation scope's name: the package, as OpenTelemetry instrumentation libraries name theirs. */
export const METER_NAME = '@politely/core';

/**
 * The recorder, or undefined when nothing would be recorded: neither a provider passed nor the API
 * installed, the provider failed to give a meter, or the meter is the API's no-op one (no SDK
 * registered). In each case the instance gets no listener, so it costs what metrics off cost.
 */
export function createMetricsRecorder(settings: MetricsSettings): MetricsRecorder | undefined {
  try {
    const provider = settings.meterProvider ?? globalMeterProvider();
    if (!provider) return undefined;
    const meter = provider.getMeter(METER_NAME, packageVersion());
    const decisions = meter.createCounter(INSTRUMENTS.decisions.name, {
      unit: INSTRUMENTS.decisions.unit,
      description: INSTRUMENTS.decisions.description,
    });
    // A no-op meter records nothing, yet listening would build every event for it (measured: bench/
    // metrics.ts, RESULTS.md): it gets no recorder. The global provider is read once, at creation,
    // so an SDK registered later would not have been seen by this instance anyway.
    const noop = noopCounter();
    if (noop !== undefined && decisions === noop) return undefined;
    return new Recorder(
      meter,
      decisions,
      settings.hostAttribute ? (settings.maxHosts ?? Number.POSITIVE_INFINITY) : 0,
    );
  } catch {
    return undefined;
  }
}

class Recorder implements MetricsRecorder {
  readonly listener: EventSink = (event) => this.#onEvent(event);
  /**
   * The hosts with series of their own: the first `#maxHosts` met, for the instance's life. A series
   * once exported stays in the SDK (cumulative temporality), so only a fixed set bounds them.
   */
  readonly #named = new Set<string>();
  readonly #maxHosts: number;
  readonly #decisions: CounterLike;
  readonly #robotsFetches: CounterLike;
  readonly #skips: CounterLike;
  readonly #backoffs: CounterLike;
  readonly #waitTime;
  readonly #gauges: object[];
  readonly #meter: MeterLike;
  readonly #collect: BatchObservableCallbackLike;
  /** Callers waiting for a slot, by host (a host is in the map while it has one). */
  readonly #waiting = new Map<string, number>();
  readonly #parked = new Set<WeakRef<ParkedSource>>();
  /** One frozen attribute set per value, when no host is added: nothing is built per record. */
  readonly #shared = new Map<string, MetricAttributes>();

  /** `maxHosts` 0: no host attribute at all. */
  constructor(meter: MeterLike, decisions: CounterLike, maxHosts: number) {
    this.#meter = meter;
    this.#maxHosts = maxHosts;
    const counter = (spec: { readonly name: string; readonly unit: string; readonly description: string }) =>
      meter.createCounter(spec.name, { unit: spec.unit, description: spec.description });
    this.#decisions = decisions;
    this.#robotsFetches = counter(INSTRUMENTS.robotsFetches);
    this.#skips = counter(INSTRUMENTS.skips);
    this.#backoffs = counter(INSTRUMENTS.backoffs);
    this.#waitTime = meter.createHistogram(INSTRUMENTS.waitTime.name, {
      unit: INSTRUMENTS.waitTime.unit,
      description: INSTRUMENTS.waitTime.description,
      advice: { explicitBucketBoundaries: [...WAIT_BUCKETS_S] },
    });
    const gauge = (spec: { readonly name: string; readonly unit: string; readonly description: string }) =>
      meter.createObservableGauge(spec.name, { unit: spec.unit, description: spec.description });
    const hostsWaiting = gauge(INSTRUMENTS.hostsWaiting);
    const requestsParked = gauge(INSTRUMENTS.requestsParked);
    const hostsParked = gauge(INSTRUMENTS.hostsParked);
    this.#gauges = [hostsWaiting, requestsParked, hostsParked];
    this.#collect = (result) => {
      result.observe(hostsWaiting, this.#waiting.size);
      let requests = 0;
      let hosts = 0;
      for (const ref of this.#parked) {
        const source = ref.deref();
        if (!source) {
          this.#parked.delete(ref);
          continue;
        }
        requests += source.size;
        hosts += source.parkedHosts;
      }
      result.observe(requestsParked, requests);
      result.observe(hostsParked, hosts);
    };
    meter.addBatchObservableCallback(this.#collect, this.#gauges);
  }

  waited(host: string, waitMs: number): void {
    guarded(() => this.#waitTime.record(Math.max(0, waitMs) / 1000, this.#attributes(undefined, '', host)));
  }

  waiting(host: string): () => void {
    this.#waiting.set(host, (this.#waiting.get(host) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.#waiting.get(host) ?? 1) - 1;
      if (left > 0) this.#waiting.set(host, left);
      else this.#waiting.delete(host);
    };
  }

  observeParked(source: ParkedSource): void {
    this.#parked.add(new WeakRef(source));
  }

  close(): void {
    guarded(() => this.#meter.removeBatchObservableCallback(this.#collect, this.#gauges));
    this.#parked.clear();
    this.#waiting.clear();
  }

  #onEvent(event: PolitelyEvent): void {
    switch (event.type) {
      case 'decision': {
        const { decision } = event;
        this.#add(this.#decisions, 'politely.decision.reason', decision.reason, decision.hostKey);
        return;
      }
      case 'robots-fetch':
        // The outcome as the event names it, whatever values it gains (a conditional refresh's
        // not-modified answer): the attribute's set is the event's.
        this.#add(this.#robotsFetches, 'politely.robots.outcome', event.outcome, hostOfOrigin(event.origin));
        return;
      case 'skip':
        this.#add(this.#skips, 'politely.skip.stage', event.stage, event.host);
        return;
      case 'backoff':
        this.#add(this.#backoffs, 'politely.backoff.cause', event.cause, event.host);
        return;
      case 'pace-changed': {
        // A pace that went up because of the host's answers is a backoff too; one going back down
        // (recovered, a quota's reset, faster answers) is not.
        if (event.toMs <= event.fromMs) return;
        if (event.reason === 'errors' || event.reason === 'rate-limit' || event.reason === 'latency') {
          this.#add(this.#backoffs, 'politely.backoff.cause', event.reason, event.host);
        }
        return;
      }
      default:
        return;
    }
  }

  #add(counter: CounterLike, key: string, value: string, host: string | undefined): void {
    guarded(() => counter.add(1, this.#attributes(key, value, host)));
  }

  #attributes(key: string | undefined, value: string, host: string | undefined): MetricAttributes {
    if (this.#maxHosts > 0 && host !== undefined) {
      if (!this.#named.has(host)) {
        if (this.#named.size < this.#maxHosts) this.#named.add(host);
        else host = OTHER_HOSTS;
      }
      return key === undefined ? { [HOST_ATTRIBUTE]: host } : { [key]: value, [HOST_ATTRIBUTE]: host };
    }
    const id = key === undefined ? '' : `${key}=${value}`;
    let shared = this.#shared.get(id);
    if (!shared) {
      shared = Object.freeze(key === undefined ? {} : { [key]: value });
      this.#shared.set(id, shared);
    }
    return shared;
  }
}

function hostOfOrigin(origin: string): string | undefined {
  try {
    return new URL(origin).hostname;
  } catch {
    return undefined;
  }
}

/** An SDK's trouble is never the crawl's. */
function guarded(record: () => void): void {
  try {
    record();
  } catch {
    // Metrics are advice: a throwing exporter or SDK must not fail the request being measured.
  }
}
