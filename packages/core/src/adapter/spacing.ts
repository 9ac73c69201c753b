/**
 * The `spacing` option, declared once for every adapter that sees its requests on the wire (the got
 * adapter, the Crawlee plugin, the page guard): its type, its doc comment and its table entry. What it
 * means is applied in one place, the hop lifecycle (hop.ts).
 */
import { type OptionSpec, oneOf } from '../kernel/option-table.js';

/**
 * How a host's gap is counted:
 *
 * - `'response'`: the next request to a host starts at least the delay after the previous response
 *   arrived (its headers: the server had the whole request by then). Covers latency the client
 *   cannot observe: a forwarding proxy that connects onward late, a server that queues the request.
 *   A long body's download overlaps the delay instead of adding to it.
 * - `'start'`: start to start, counted from when each request really went out (after connection
 *   setup). Faster on slow sites, but a proxy's hidden delay can bring two requests closer at the
 *   server than asked.
 */
export type Spacing = 'response' | 'start';

/** The `spacing` option as every adapter takes it (its options interface extends this one). */
export interface SpacingOptions {
  /**
   * What a host's next request (or browser navigation) counts its delay from. `'response'`: from the
   * previous response's arrival (its headers), as Yandex defines Crawl-delay; covers latency the
   * client or the browser cannot see, such as a proxy that holds a request before passing it on, and
   * a long body's download overlaps the delay. `'start'`: from when the previous request really went
   * out (after connection setup; a browser's as its network stack sends it); faster on a slow site,
   * but a proxy's hidden hold can bring two requests closer at the server than asked.
   * Default `'response'`.
   */
  readonly spacing?: Spacing;
}

/** The table entry of `spacing`, for every adapter's options table. */
export const SPACING_OPTION: OptionSpec<Spacing> = oneOf(['response', 'start'], { default: 'response' });
