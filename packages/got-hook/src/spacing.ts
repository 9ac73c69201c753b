/**
 * How the got adapter counts a host's gap (core's `Spacing`), validated once when `politeGot` is
 * called. With `'response'` (the default) the next request to a host also waits until the previous
 * response was read to its end: one request per host in flight in this process, as Yandex defines
 * Crawl-delay (from the end of loading one page). With `'start'` the next request reserves once the
 * previous one is on the wire, so requests may overlap.
 */
import type { Spacing } from '@politely/core';

export type { Spacing };

export interface GotPacingOptions {
  readonly spacing?: Spacing;
}

export interface ResolvedPacingOptions {
  readonly spacing: Spacing;
}

export const DEFAULT_SPACING: Spacing = 'response';

export function resolvePacingOptions(options: GotPacingOptions): ResolvedPacingOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected politeGot pacing options to be an object, got \`${String(options)}\``);
  }
  for (const key of Object.keys(options)) {
    if (key !== 'spacing') throw new TypeError(`Unknown politeGot pacing option \`${key}\``);
  }
  const spacing = options.spacing ?? DEFAULT_SPACING;
  if (spacing !== 'start' && spacing !== 'response') {
    throw new TypeError(
      `Expected \`spacing\` to be 'start' or 'response', got \`${String(spacing)}\` (${typeof spacing})`,
    );
  }
  return { spacing };
}
