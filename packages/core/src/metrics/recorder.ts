/**
 * OpenTelemetry metrics for one Politeness. The facade hands the recorder what it
 * counts directly, only when metrics are on: each decision (`decided`: no event is built for it) and
 * the few events the other counters count (`listener`), the wait each granted pacing slot took
 * (`waited`) and the callers waiting for one (`waiting`). The gauges are read when the reader
 * collects, from the facade's waiting callers and the frontiers built on the instance
 * (`observeParked`).
 *
 * Counts are tallied here, per attribute set, and handed to the SDK's counters at each collection (one
 * `add` per attribute set, in the gauges' batch callback, which the SDK runs before it reads the
 * counters) and at close: a decision costs an increment instead of an SDK `add`, which hashes its
 * attributes each time. Every attribute set is built once and reused.
 *
 * Every call is guarded: an SDK that throws must never fail or stall a crawl.
 */
import type { Decision } from '../kernel/decision.js';
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
  /** Hand it every event but decisions (their counts come from `decided`). */
  readonly listener: EventSink;
  /** A decision was made and counted (check, admit, a queue's). */
  decided(decision: Decision): void;
  /** A pacing slot for the host was granted after `waitMs` (0: at once). */
  waited(host: string, waitMs: number): void;
  /** A caller starts waiting for the host's slot; call the returned function when it stops. */
  waiting(host: string): () => void;
  /** Counts a frontier's parked requests in the gauges for as long as it is not garbage. */
  observeParked(source: ParkedSource): void;
  /** Hands the counts over one last time and stops the gauges' callbacks (the instance closed). */
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
  readonly #namedHosts = new Set<string>();
  readonly #maxHosts: number;
  readonly #decisions: CounterTally;
  readonly #robotsFetches: CounterTally;
  readonly #skips: CounterTally;
  readonly #backoffs: CounterTally;
  readonly #waitTime;
  readonly #gauges: object[];
  readonly #meter: MeterLike;
  readonly #collect: BatchObservableCallbackLike;
  /** Callers waiting for a slot, by host (a host is in the map while it has one). */
  readonly #waiting = new Map<string, number>();
  readonly #parked = new Set<WeakRef<ParkedSource>>();
  /** Every attribute set counted so far, with what it counted since the last collection. */
  readonly #tallies: Tally[] = [];
  /** The wait histogram's attribute set per host named (none: `NO_ATTRIBUTES`). */
  readonly #hostAttributes = new Map<string, MetricAttributes>();
  #closed = false;

  /** `maxHosts` 0: no host attribute at all. */
  constructor(meter: MeterLike, decisions: CounterLike, maxHosts: number) {
    this.#meter = meter;
    this.#maxHosts = maxHosts;
    const counter = (spec: { readonly name: string; readonly unit: string; readonly description: string }) =>
      meter.createCounter(spec.name, { unit: spec.unit, description: spec.description });
    const tallied = (instrument: CounterLike, attribute: string): CounterTally => ({
      counter: instrument,
      attribute,
      byValue: new Map(),
    });
    this.#decisions = tallied(decisions, 'politely.decision.reason');
    this.#robotsFetches = tallied(counter(INSTRUMENTS.robotsFetches), 'politely.robots.outcome');
    this.#skips = tallied(counter(INSTRUMENTS.skips), 'politely.skip.stage');
    this.#backoffs = tallied(counter(INSTRUMENTS.backoffs), 'politely.backoff.cause');
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
      this.#flush();
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

  decided(decision: Decision): void {
    this.#add(this.#decisions, decision.reason, decision.hostKey);
  }

  waited(host: string, waitMs: number): void {
    if (this.#closed) return;
    const named = this.#hostNamed(host);
    let attributes = NO_ATTRIBUTES;
    if (named !== undefined) {
      const known = this.#hostAttributes.get(named);
      attributes = known ?? Object.freeze({ [HOST_ATTRIBUTE]: named });
      if (!known) this.#hostAttributes.set(named, attributes);
    }
    try {
      this.#waitTime.record(Math.max(0, waitMs) / 1000, attributes);
    } catch {
      // Metrics are advice: a throwing exporter or SDK must not fail the request being measured.
    }
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
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    guarded(() => this.#meter.removeBatchObservableCallback(this.#collect, this.#gauges));
    this.#parked.clear();
    this.#waiting.clear();
  }

  #onEvent(event: PolitelyEvent): void {
    switch (event.type) {
      case 'robots-fetch':
        // The outcome as the event names it, whatever values it gains (a conditional refresh's
        // not-modified answer): the attribute's set is the event's.
        this.#add(this.#robotsFetches, event.outcome, hostOfOrigin(event.origin));
        return;
      case 'skip':
        this.#add(this.#skips, event.stage, event.host);
        return;
      case 'backoff':
        this.#add(this.#backoffs, event.cause, event.host);
        return;
      case 'pace-changed': {
        // A pace that went up because of the host's answers is a backoff too; one going back down
        // (recovered, a quota's reset, faster answers) is not.
        if (event.toMs <= event.fromMs) return;
        if (event.reason === 'errors' || event.reason === 'rate-limit' || event.reason === 'latency') {
          this.#add(this.#backoffs, event.reason, event.host);
        }
        return;
      }
      default:
        return;
    }
  }

  /** Counts one for `value` (and the host, when hosts are named), handed to the SDK at the next collection. */
  #add(tally: CounterTally, value: string, host: string | undefined): void {
    if (this.#closed) return;
    const named = this.#hostNamed(host) ?? '';
    let byHost = tally.byValue.get(value);
    if (!byHost) {
      byHost = new Map();
      tally.byValue.set(value, byHost);
    }
    let counted = byHost.get(named);
    if (!counted) {
      const attributes: Record<string, string> = { [tally.attribute]: value };
      if (named !== '') attributes[HOST_ATTRIBUTE] = named;
      counted = { counter: tally.counter, attributes: Object.freeze(attributes), count: 0 };
      byHost.set(named, counted);
      this.#tallies.push(counted);
    }
    counted.count++;
  }

  /** Hands the counts tallied since the last collection to the SDK, one `add` per attribute set. */
  #flush(): void {
    for (const tally of this.#tallies) {
      const { count } = tally;
      if (count === 0) continue;
      tally.count = 0;
      guarded(() => tally.counter.add(count, tally.attributes));
    }
  }

  /** The value of `politely.host` for `host`, or undefined when hosts are not named. */
  #hostNamed(host: string | undefined): string | undefined {
    if (this.#maxHosts === 0 || host === undefined) return undefined;
    if (this.#namedHosts.has(host)) return host;
    if (this.#namedHosts.size < this.#maxHosts) {
      this.#namedHosts.add(host);
      return host;
    }
    return OTHER_HOSTS;
  }
}

/** One counter's tallies: by value of its attribute, then by host named ('' for none). */
interface CounterTally {
  readonly counter: CounterLike;
  readonly attribute: string;
  readonly byValue: Map<string, Map<string, Tally>>;
}

/** What one attribute set of a counter counted since the last collection. */
interface Tally {
  readonly counter: CounterLike;
  readonly attributes: MetricAttributes;
  count: number;
}

const NO_ATTRIBUTES: MetricAttributes = Object.freeze({});

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
