/**
 * Argument checks shared by every scheduler backend, so a bad host or delay fails the same way
 * (a TypeError naming the argument and echoing its value) whichever backend answers.
 */
import { shown } from '../kernel/shown.js';
import type { ReserveOptions } from './types.js';

export function checkHost(host: unknown): asserts host is string {
  if (typeof host !== 'string' || host.length === 0) {
    throw new TypeError(`Expected \`host\` to be a non-empty string, got ${shown(host)}`);
  }
}

/** A duration in ms: finite and >= 0. */
export function checkDuration(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`Expected \`${name}\` to be a finite number >= 0 (ms), got ${shown(value)}`);
  }
}

export function checkReserveOptions(options: ReserveOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected reserve \`options\` to be an object, got ${shown(options)}`);
  }
  const { maxWaitMs, signal } = options;
  if (
    maxWaitMs !== undefined &&
    (typeof maxWaitMs !== 'number' || Number.isNaN(maxWaitMs) || maxWaitMs < 0)
  ) {
    throw new TypeError(`Expected \`maxWaitMs\` to be a number >= 0 (ms), got ${shown(maxWaitMs)}`);
  }
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new TypeError(`Expected \`signal\` to be an AbortSignal, got ${shown(signal)}`);
  }
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function'
  );
}
