/**
 * The request handler you gave stays Crawlee's: the plugin's wrappers (page directives, refused
 * navigations, browser pages) go around it, and what Crawlee reads off a handler still reads yours.
 * - Crawlee 3's deprecated names are kept: a `handlePageFunction` (HTTP and browser crawlers) or
 *   `handleRequestFunction` (BasicCrawler) is wrapped under its own name, so Crawlee uses it and warns
 *   about the name as it does without the plugin.
 * - A Router's `getSchema` is forwarded: Crawlee validates and coerces `userData` on `addRequests` by
 *   calling `crawler.userRequestHandler.getSchema(label)`, which on BasicCrawler and the HTTP crawlers
 *   is the handler in the options, ours.
 * - `this` is the crawler, as Crawlee calls the handler (each wrapper passes it on).
 */

/** The option names Crawlee 3 takes the request handler under, the current one first. */
const HANDLER_KEYS = ['requestHandler', 'handlePageFunction', 'handleRequestFunction'] as const;
export type HandlerKey = (typeof HANDLER_KEYS)[number];

/** Where your handler is: the first of Crawlee's names holding one (`requestHandler` when none does). */
export function handlerKeyOf(options: Partial<Record<HandlerKey, unknown>>): HandlerKey {
  return HANDLER_KEYS.find((key) => typeof options[key] === 'function') ?? 'requestHandler';
}

/**
 * Puts the plugin's wrapped handler (in `options.requestHandler`) under the name yours was given with,
 * and forwards your Router's `getSchema` to it.
 */
export function keepUsersHandler<T extends object>(options: T, key: HandlerKey, theirs: unknown): T {
  const out = options as Partial<Record<HandlerKey, unknown>>;
  const wrapped = out.requestHandler;
  if (typeof wrapped !== 'function') return options;
  const getSchema = (theirs as { getSchema?: unknown } | undefined)?.getSchema;
  if (typeof getSchema === 'function') {
    // Crawlee calls it unbound (`const getSchema = handler.getSchema; getSchema(label)`).
    Object.defineProperty(wrapped, 'getSchema', {
      value: (label?: string | symbol) => getSchema.call(theirs, label),
      configurable: true,
    });
  }
  if (key !== 'requestHandler') {
    delete out.requestHandler;
    out[key] = wrapped;
  }
  return options;
}
