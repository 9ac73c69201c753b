/**
 * How the got adapter counts a host's gap, validated once when `politeGot` is called.
 *
 * - `'response'` (default): the next request to a host starts at least the delay after the previous
 *   response arrived (its headers: the server had the whole request by then), and not before that
 *   response was read to its end: one request per host in flight in this process, as Yandex defines
 *   Crawl-delay (from the end of loading one page). Covers latency the client cannot observe: a
 *   forwarding proxy that connects onward late, a server that queues the request. A long body's
 *   download overlaps the delay instead of adding to it.
 * - `'start'`: start to start, counted from when each request really went out (after connection
 *   setup); the next request to a host reserves once the previous one is on the wire, so requests may
 *   overlap. Faster on slow sites, but a proxy's hidden delay can bring two requests closer at the
 *   server than asked.
 */
export type Spacing = 'start' | 'response';

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
