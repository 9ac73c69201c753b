/**
 * The few shapes of the OpenTelemetry metrics API that politely uses, written out here rather than
 * imported: `@opentelemetry/api` is an optional peer, and a published type naming it would break the
 * type check of a project that does not install it. An SDK's MeterProvider (and the API's own
 * global or no-op one) fits them; the names follow the API's (api/src/metrics/Meter.ts).
 */

/** Attribute values politely sets: strings only, from bounded sets (see docs/metrics.md). */
export type MetricAttributes = Readonly<Record<string, string>>;

export interface InstrumentOptionsLike {
  readonly description?: string;
  readonly unit?: string;
  /** Histogram bucket boundaries advice (API 1.7+; an SDK view may override them). */
  readonly advice?: { readonly explicitBucketBoundaries?: number[] };
}

export interface CounterLike {
  add(value: number, attributes?: MetricAttributes): void;
}

export interface HistogramLike {
  record(value: number, attributes?: MetricAttributes): void;
}

/** An observable instrument, as the meter hands it to a batch callback's result. */
export type ObservableLike = object;

export interface BatchObservableResultLike {
  observe(observable: ObservableLike, value: number, attributes?: MetricAttributes): void;
}

export type BatchObservableCallbackLike = (result: BatchObservableResultLike) => void;

export interface MeterLike {
  createCounter(name: string, options?: InstrumentOptionsLike): CounterLike;
  createHistogram(name: string, options?: InstrumentOptionsLike): HistogramLike;
  createObservableGauge(name: string, options?: InstrumentOptionsLike): ObservableLike;
  addBatchObservableCallback(callback: BatchObservableCallbackLike, observables: ObservableLike[]): void;
  removeBatchObservableCallback(callback: BatchObservableCallbackLike, observables: ObservableLike[]): void;
}

/** An OpenTelemetry MeterProvider: an SDK's `MeterProvider`, or `metrics.getMeterProvider()`. */
export interface MeterProviderLike {
  getMeter(name: string, version?: string, options?: { readonly schemaUrl?: string }): MeterLike;
}
