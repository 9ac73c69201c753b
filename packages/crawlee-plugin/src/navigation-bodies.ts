/**
 * Gives a navigation's host place back when the crawler drops its response without reading it.
 *
 * The HTTP client holds a host's place in flight until the response body ends, closes or errors
 * (core's sendHop), so `maxConcurrentPerHost` counts a body being downloaded. Crawlee 3's HTTP
 * crawlers (HttpCrawler and its kin, 3.13 to 3.18) sometimes never touch the stream they were handed:
 * `_abortDownloadOfBody`, their first post-navigation hook, throws for a Content-Type they do not
 * parse (a PDF, an image, a body without Content-Type), a post-navigation hook of yours may throw,
 * and `_encodeResponse` throws for a charset it cannot decode. The stream is then neither read nor
 * destroyed: got's request timeout (the navigation timeout, 30 s by default) destroys it at last, a
 * client without one (impit) never does, and every later request to the host waits for the place
 * until Crawlee times it out. Nothing on the stream says "nobody will read me", and releasing the
 * place as the headers are handed over would break the promise where the body is read.
 *
 * What can be seen is the end of the crawler's task: every task, whatever ended it, gives its request
 * back to the request manager (`markRequestHandled` when done or failed for good, `reclaimRequest`
 * for a retry), and by then the crawler reads nothing more of the response. So each navigation is
 * tied to its Crawlee request: a pre-navigation hook (the first) marks the options the crawler builds
 * the client's request from with the navigation, under a symbol, which Crawlee's object spreads carry
 * to `httpClient.stream` and the client strips before its inner client sees the request. The client
 * hands the navigation its response stream; when the manager hears the task ended, any stream of it
 * still unfinished is destroyed: the place is given back (its 'close') and its socket is closed rather
 * than left half read. A stream that arrives after its task ended (Crawlee's navigation timeout gave
 * up on it first) is destroyed as it arrives.
 */

/** Under this key Crawlee's request options carry their navigation from the hook to the client. */
export const NAVIGATION = Symbol('politely.crawlee.navigation');

/** A response body as the crawler is handed it (a Node stream fits). */
export interface DroppableBody {
  destroy(): unknown;
  readonly destroyed?: boolean;
  readonly readableEnded?: boolean;
}

/** One navigation of one Crawlee task: the response bodies handed to it, until the task ends. */
export class Navigation {
  private ended = false;
  private readonly bodies = new Set<DroppableBody>();

  /** The client handed `body` to the crawler for this navigation. */
  handedOver(body: DroppableBody | undefined): void {
    if (!body || typeof body.destroy !== 'function') return;
    if (this.ended) {
      drop(body);
      return;
    }
    this.bodies.add(body);
  }

  /** The task is over: no one reads these bodies any more. */
  end(): void {
    this.ended = true;
    for (const body of this.bodies) drop(body);
    this.bodies.clear();
  }
}

function drop(body: DroppableBody): void {
  if (body.destroyed || body.readableEnded) return;
  body.destroy();
}

/** What a pre-navigation hook is handed, as far as this file reads it. */
interface HookContext {
  readonly request?: object;
  /** Browser crawlers' contexts have a page; their navigations are the page guard's, not the client's. */
  readonly page?: unknown;
}

/** The navigations of the requests whose tasks are running, by Crawlee request. */
export class NavigationBodies {
  private readonly running = new WeakMap<object, Navigation[]>();
  private warned = false;

  /**
   * The pre-navigation hook: marks the options of an HTTP crawler's navigation with a new Navigation
   * of the context's request. Plain options (a browser's goto options, anything else) are left alone.
   */
  readonly hook = (context: HookContext | undefined, options: unknown): void => {
    const request = context?.request;
    if (!request || context.page !== undefined) return;
    if (options === null || typeof options !== 'object') return;
    const navigation = new Navigation();
    const navigations = this.running.get(request);
    if (navigations) navigations.push(navigation);
    else this.running.set(request, [navigation]);
    (options as { [NAVIGATION]?: Navigation })[NAVIGATION] = navigation;
  };

  /**
   * A page reached its request handler: if its crawler runs without the hook (the options
   * `withPoliteness` returned were copied into a new object, which drops it), the hook is put first
   * in the crawler's own list for every later navigation, with a warning, as browser-wiring.ts does
   * for its page hooks. Browser crawlers' pages are not the client's and are left alone.
   */
  installLate(
    context: { readonly page?: unknown; readonly crawler?: { preNavigationHooks?: unknown } },
    log: { warning(message: string): void },
  ): void {
    if (context.page !== undefined) return;
    const hooks = context.crawler?.preNavigationHooks;
    if (!Array.isArray(hooks) || hooks.includes(this.hook)) return;
    hooks.unshift(this.hook);
    if (this.warned) return;
    this.warned = true;
    log.warning(
      'politely: a page reached the request handler without the pre-navigation hook that gives a host back when the crawler drops a response unread (were the options withPoliteness returned copied into a new object?); installed it for the navigations after this one',
    );
  }

  /** The task of `request` ended (handled, failed or given back for a retry). */
  taskEnded(request: object): void {
    const navigations = this.running.get(request);
    if (!navigations) return;
    this.running.delete(request);
    for (const navigation of navigations) navigation.end();
  }
}

/** The navigation a client request is marked with, and the request without the mark. */
export function unmarked<Q extends object>(request: Q): { navigation: Navigation | undefined; request: Q } {
  const navigation = (request as { [NAVIGATION]?: unknown })[NAVIGATION];
  if (!(navigation instanceof Navigation)) return { navigation: undefined, request };
  const { [NAVIGATION]: _mark, ...rest } = request as Q & { [NAVIGATION]?: Navigation };
  return { navigation, request: rest as Q };
}
