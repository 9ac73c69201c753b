/**
 * Options for tests that start from defaults of their own and take a test's overrides: the groups
 * (`robots`, `pacing`, `memory`) are merged one level deep, so `{ pacing: { maxWaitMs } }` given by a
 * test keeps the helper's `pacing.minDelayMs` instead of replacing the whole group.
 */
import type { InternalPolitenessOptions, PolitenessOptions } from '../../packages/core/src/facade/options.js';

const GROUPS = ['robots', 'pacing', 'memory', 'metrics'] as const;

/** Options of a Politeness with every field optional (a test's overrides). */
export type OptionOverrides = Partial<InternalPolitenessOptions>;

/** `base` with `over` laid on it, group by group. */
export function mergeOptions<T extends OptionOverrides>(base: T, over: OptionOverrides = {}): T {
  const merged: Record<string, unknown> = { ...base, ...over };
  for (const group of GROUPS) {
    if (base[group] !== undefined && over[group] !== undefined) {
      merged[group] = { ...base[group], ...over[group] };
    }
  }
  return merged as T;
}

/**
 * Options with internals (an injected clock) as the public type createPoliteness and the adapters
 * take: `clock` is accepted there but no part of PolitenessOptions.
 */
export function internalOptions(options: InternalPolitenessOptions): PolitenessOptions {
  return options;
}
