/**
 * Page-level robots rules in Crawlee: `pageDirectives(context)` in a request handler gives what the
 * page says to our crawler (its X-Robots-Tag headers and the robots meta tags of its head, parsed by
 * core's `readPageDirectives`), and with `respectNofollow` (default on) a page that says `nofollow`
 * enqueues nothing through `context.enqueueLinks`.
 *
 * Where it reads from: HTTP crawlers (Http, Cheerio, JSDOM) the response's headers (`rawHeaders`, so
 * several X-Robots-Tag headers stay apart) and the body as fetched, whose head core scans. Not
 * Cheerio's `$`: Crawlee loads it with htmlparser2, which has no head insertion mode, so a page that
 * never writes `<head>` would show no head meta tags there while got and fetch users see them.
 * Browser crawlers (Playwright, Puppeteer): the navigation response's headers and the meta tags of the
 * live `document.head` (one evaluate, when first asked), so a tag the page's scripts add counts too.
 * Nothing is read until the handler asks or `enqueueLinks` is called.
 */
import type { Log } from '@crawlee/core';
import { type PageDirectives, readPageDirectives } from '@politely/core';
import type { PageDirectivesSource } from '@politely/core/engine';

/** What a crawler hands its request handler, as far as reading directives goes. */
interface DirectivesContext {
  readonly request: { readonly url: string };
  readonly response?: unknown;
  readonly body?: unknown;
  readonly page?: unknown;
  enqueueLinks?: (options?: unknown) => Promise<unknown>;
  readonly crawler?: { router?: (context: never) => unknown };
}

export interface DirectivesWiring {
  readonly productToken: string;
  /** Keep a `nofollow` page's links out of `enqueueLinks`. */
  readonly respectNofollow: boolean;
  readonly log: Log;
}

const READERS = new WeakMap<object, () => Promise<PageDirectives>>();

/**
 * What the page of a request handler's context says to this crawler: X-Robots-Tag and robots meta
 * tags (`robots` or your product token), combined (see core's `readPageDirectives`). Read once per
 * page, when first asked. A TypeError for a context of a crawler not built with `withPoliteness`.
 */
export function pageDirectives(context: object): Promise<PageDirectives> {
  const read = context !== null && typeof context === 'object' ? READERS.get(context) : undefined;
  if (!read) {
    throw new TypeError(
      'pageDirectives(context): this is not the request handler context of a crawler built with withPoliteness()',
    );
  }
  return read();
}

/** The handler, with directives readable from its context and `enqueueLinks` held back on `nofollow`. */
export function withPageDirectives(handler: unknown, wiring: DirectivesWiring): (context: never) => unknown {
  return async function (this: unknown, context: DirectivesContext) {
    let read: Promise<PageDirectives> | undefined;
    const directives = () => {
      read ??= readFromContext(context, wiring);
      return read;
    };
    READERS.set(context, directives);
    const enqueue = context.enqueueLinks;
    if (wiring.respectNofollow && typeof enqueue === 'function') {
      context.enqueueLinks = async (options?: unknown) => {
        if (!(await directives()).nofollow) return enqueue(options);
        wiring.log.debug('politely: the page says nofollow, its links are not enqueued', {
          url: context.request.url,
        });
        return { processedRequests: [], unprocessedRequests: [] };
      };
    }
    const run = typeof handler === 'function' ? handler : context.crawler?.router;
    return run?.call(this, context as never);
  };
}

/** The meta tags of a browser page's head (a string: Playwright and Puppeteer both evaluate one). */
const HEAD_META =
  "Array.from(document.head ? document.head.querySelectorAll('meta[name]') : [], (m) => ({ name: m.getAttribute('name'), content: m.getAttribute('content') }))";

interface BrowserPage {
  evaluate(expression: string): Promise<unknown>;
}
interface BrowserResponse {
  headersArray?(): Promise<{ name: string; value: string }[]>;
  headers?(): Record<string, string>;
}

async function readFromContext(
  context: DirectivesContext,
  wiring: DirectivesWiring,
): Promise<PageDirectives> {
  const { page, response } = context;
  let source: PageDirectivesSource;
  if (page !== null && typeof page === 'object' && typeof (page as BrowserPage).evaluate === 'function') {
    source = {
      ...(await browserHeaders(response as BrowserResponse | undefined)),
      meta: await headMeta(page as BrowserPage, wiring, context),
    };
  } else {
    const node = (response ?? {}) as { headers?: PageDirectivesSource['headers']; rawHeaders?: string[] };
    const body = context.body;
    source = {
      headers: node.headers ?? null,
      rawHeaders: node.rawHeaders ?? null,
      body: typeof body === 'string' || body instanceof Uint8Array ? body : null,
    };
  }
  return readPageDirectives(source, wiring.productToken);
}

/** Playwright: every header line apart (`headersArray`); Puppeteer: a record, repeated headers joined by a line break. */
async function browserHeaders(response: BrowserResponse | undefined): Promise<PageDirectivesSource> {
  if (!response) return {};
  if (typeof response.headersArray === 'function') {
    return { rawHeaders: (await response.headersArray()).flatMap(({ name, value }) => [name, value]) };
  }
  return typeof response.headers === 'function' ? { headers: response.headers() } : {};
}

/** The head's meta tags; none when the page cannot answer (closed, navigated away), said in the log. */
async function headMeta(page: BrowserPage, wiring: DirectivesWiring, context: DirectivesContext) {
  try {
    const tags = await page.evaluate(HEAD_META);
    return Array.isArray(tags) ? (tags as { name: string | null; content: string | null }[]) : [];
  } catch (error) {
    wiring.log.warning('politely: could not read the meta tags of a page; its headers alone count', {
      url: context.request.url,
      error: String(error),
    });
    return [];
  }
}
