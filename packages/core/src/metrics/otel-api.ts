/**
 * The global MeterProvider of `@opentelemetry/api`, when that optional peer is installed.
 *
 * Loaded synchronously, once, with `createRequire` (the package ships CommonJS beside its ESM build,
 * and both keep their global state under one registered symbol, so a provider an application set
 * through either copy is found): a `createPoliteness` call sees the provider at once, with no event
 * lost to an `import()` still on its way. Absent or broken, it is undefined and politely records
 * nothing, as if `metrics.enabled` were false. Instrumentation libraries read the global provider
 * when they are created (the OpenTelemetry convention), so an SDK must be registered before.
 */
import { createRequire } from 'node:module';
import type { MeterProviderLike } from './otel-shapes.js';

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
