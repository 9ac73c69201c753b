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
  /**
   * What the next request to a host counts its delay from. `'response'` (default): from the arrival of
   * the previous response, read to its end, so one request per host is in flight in this process and a
   * proxy's hidden hold cannot bring two requests closer at the server than asked. `'start'`: from when
   * the previous request went out; faster on a slow site, but requests may overlap, and a proxy that
   * holds requests before passing them on can bring two closer at the server than asked.
   */
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
