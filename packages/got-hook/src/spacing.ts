/**
 * How the got adapter counts a host's gap (core's `Spacing`), validated once when `politeGot` is
 * called. With `'response'` (the default) the next request to a host also waits until the previous
 * response was read to its end: one request per host in flight in this process, as Yandex defines
 * Crawl-delay (from the end of loading one page). With `'start'` the next request reserves once the
 * previous one is on the wire, so requests may overlap.
 */
import { checkOptions, type OptionTable, oneOf, type Spacing } from '@politely/core/adapter';

export type { Spacing };

export interface GotPacingOptions {
  readonly spacing?: Spacing;
}

export interface ResolvedPacingOptions {
  readonly spacing: Spacing;
}

export const DEFAULT_SPACING: Spacing = 'response';

const PACING_OPTIONS = {
  spacing: oneOf(['start', 'response'], { default: DEFAULT_SPACING }),
} as const satisfies OptionTable<GotPacingOptions>;

export function resolvePacingOptions(options: GotPacingOptions): ResolvedPacingOptions {
  return checkOptions('politeGot pacing', PACING_OPTIONS, options);
}
