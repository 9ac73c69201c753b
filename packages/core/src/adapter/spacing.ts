/**
 * How an adapter counts a host's gap, for adapters that can see their requests on the wire (the got
 * adapter and the Crawlee plugin's HTTP client take it as their `spacing` option):
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
