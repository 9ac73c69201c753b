/**
 * The OpenTelemetry metrics API as politely uses it: the global MeterProvider of
 * `@opentelemetry/api`, when that optional peer is installed, and the few shapes of the API politely
 * calls, written out here rather than imported: a published type naming the optional peer would
 * break the type check of a project that does not install it. An SDK's MeterProvider (and the API's
 * own global or no-op one) fits them; the names follow the API's (api/src/metrics/Meter.ts).
 *
 * Loaded synchronously, once, with `createRequire` (the package ships CommonJS beside its ESM build,
 * and both keep their global state under one registered symbol, so a provider an application set
 * through either copy is found): a `createPoliteness` call sees the provider at once, with no event
 * lost to an `import()` still on its way. Absent or broken, it is undefined and politely records
 * nothing, as if `metrics.enabled` were false. Instrumentation libraries read the global provider
 * when they are created (the OpenTelemetry convention), so an SDK must be registered before.
 */
import { createRequire } from 'node:module';

interface MetricsApiLike {
  readonly metrics: { getMeterProvider(): MeterProviderLike };
  readonly createNoopMeter?: () => { createCounter(name: string): unknown };
}

const require = createRequire(import.meta.url);
let api: MetricsApiLike | null | undefined;

function loadApi(): MetricsApiLike | null {
  if (api !== undefined) return api;
  try {
    const loaded = require('@opentelemetry/api') as Partial<MetricsApiLike>;
    api = typeof loaded.metrics?.getMeterProvider === 'function' ? (loaded as MetricsApiLike) : null;
  } catch {
    // Not installed (it is an optional peer): no metrics, nothing else changes.
    api = null;
  }
  return api;
}

/** The global MeterProvider (the API's no-op one when no SDK registered one), or undefined without the API. */
export function globalMeterProvider(): MeterProviderLike | undefined {
  return loadApi()?.metrics.getMeterProvider();
}

/**
 * The counter the API's no-op meter hands out (one shared object for every name: NoopMeter.ts), to
 * tell a no-op meter by what it returns; undefined without the API.
 */
export function noopCounter(): unknown {
  try {
    return loadApi()?.createNoopMeter?.().createCounter('politely.probe');
  } catch {
    return undefined;
  }
}

/** This package's version, the meter's instrumentation scope version ('' if unreadable). */
export function packageVersion(): string {
  try {
    // src/metrics and dist/metrics are both two levels below the package root.
    const manifest = require('../../package.json') as { readonly version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : '';
  } catch {
    return '';
  }
}

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
