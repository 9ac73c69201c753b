/**
 * `withPoliteness(crawlerOptions, options)`: the one-line change. Returns the crawler's options with
 * the queue wrapped (robots.txt check at dequeue, requests handed out only when their host is due)
 * and the HTTP client decorated (each hop checked and its pacing slot reserved as it goes out;
 * Retry-After fed back). Core's `politenessOf(crawler)` gives the facade, `crawlStats(crawler)` the
 * plugin's counters.
 */
import type { BaseHttpClient, Configuration, Log } from '@crawlee/core';
import * as crawleeCore from '@crawlee/core';
import type { Decision, FetchLike, KeyvLike, Politeness, PolitenessOptions } from '@politely/core';
import { createPoliteness } from '@politely/core';
import { adapterKit, attachPoliteness, isPoliteness, responseVerdict } from '@politely/core/adapter';
import { readTdmDeclarations } from '@politely/core/engine';
import {
  type BrowserSeenOptions,
  type HandlerContext as PageContext,
  wireBrowserCrawlers,
} from './browser-wiring.js';
import type { CrawlEvents } from './crawl-end.js';
import { crawleeKeyvStore } from './crawlee-store.js';
import { captureCrawlerConfig, isConfiguration } from './crawler-config.js';
import { HandOutLead } from './hand-out-lead.js';
import { listFirst, listReaders } from './list-first.js';
import { localRequestQueue } from './local-queue.js';
import { NavigationBodies } from './navigation-bodies.js';
import { withPageDirectives } from './page-directives.js';
import { validatePluginOptions } from './plugin-options.js';
import { PoliteHttpClient } from './polite-http-client.js';
import { type InnerQueue, MANAGER_BRAND, PoliteRequestManager } from './polite-request-manager.js';
import { type CrawleeSkipCallback, Reporter } from './reporter.js';
import {
  launchProxyOf,
  type ProxyUrlSource,
  type RobotsRoutes,
  robotsFetchThroughProxy,
  robotsRoutes,
} from './robots-fetch.js';
import { type SitemapEnqueuer, sitemapEnqueuer } from './sitemap-enqueuer.js';
import type { CrawleePolitenessOptions, CrawleePolitenessStats } from './types.js';
import { type HandlerKey, handlerKeyOf, keepUsersHandler } from './user-handler.js';

/** The crawler options this plugin reads; every other key is passed through untouched. */
interface SeenCrawlerOptions extends BrowserSeenOptions, Partial<Record<HandlerKey, unknown>> {
  requestQueue?: unknown;
  requestManager?: unknown;
  requestList?: unknown;
  httpClient?: BaseHttpClient;
  proxyConfiguration?: ProxyUrlSource;
  onSkippedRequest?: CrawleeSkipCallback;
  respectRobotsTxtFile?: unknown;
  sameDomainDelaySecs?: number;
  log?: Log;
  experiments?: { requestLocking?: boolean };
  preNavigationHooks?: unknown[];
  autoscaledPoolOptions?: Record<string, unknown>;
}

/** How often an idle crawler asks for work, unless you set `autoscaledPoolOptions.maybeRunIntervalSecs`. */
const IDLE_POLL_SECS = 0.1;
/**
 * Longest wait inside `isEmpty()` for a parked host to come due or a held host to free (it wakes
 * early on any change). Longer than the usual Crawl-delay on purpose: since @apify/utilities 2.35
 * (Crawlee 3.18), the pool's interval waits for the task its own tick started, so after an `isEmpty()`
 * that said empty the pool may ask again only when a task ends: a host due after a shorter nap would
 * wait for some other page's task to end. The pool holds no concurrency slot while it waits, and
 * anything added, sent or finished wakes the nap at once.
 */
const MAX_NAP_MS = 10_000;

/**
 * Makes a Crawlee crawler polite:
 * `new CheerioCrawler(withPoliteness({ requestHandler }, { userAgent: 'MyBot/1.0 (+https://example.com/bot)' }))`.
 *
 * @param crawlerOptions the options you would pass to the crawler (any BasicCrawler descendant).
 * @param politeness `createPoliteness` options, or a Politeness instance to share between crawlers.
 * @param pluginOptions what only the Crawlee side needs (parking bound, redirects, subresources...).
 */
// Two type parameters so that an inline handler keeps Crawlee's context types without a type argument:
// inside `new CheerioCrawler(withPoliteness({ requestHandler({ $ }) {} }, …))` the crawler's options
// type reaches `T` from the return position (NoInfer keeps the argument from inferring it first,
// which typed the handler's parameters `any`), and `A`'s constraint types the handler. Alone, with
// nothing to infer `T` from (`unknown`), the options come back as written.
export function withPoliteness<T, A extends NoInfer<T & object> = NoInfer<T & object>>(
  crawlerOptions: A,
  politeness: PolitenessOptions | Politeness,
  pluginOptions: CrawleePolitenessOptions = {},
): unknown extends T ? A : T {
  if (crawlerOptions === null || typeof crawlerOptions !== 'object') {
    throw new TypeError(
      `Expected crawler options to be an object, got \`${String(crawlerOptions)}\` (${typeof crawlerOptions})`,
    );
  }
  checkArguments(crawlerOptions, politeness);
  const plugin = validatePluginOptions(pluginOptions);
  const seen = crawlerOptions as SeenCrawlerOptions;
  for (const given of [seen.requestQueue, seen.requestManager]) {
    if (given !== null && typeof given === 'object' && MANAGER_BRAND in given) {
      throw new TypeError('These crawler options already went through withPoliteness(); wrap them once');
    }
  }
  const log = (seen.log ?? crawleeCore.log).child({ prefix: 'Politely' });
  if (seen.respectRobotsTxtFile) {
    log.warning(
      'respectRobotsTxtFile is on as well: robots.txt is then fetched and checked twice; politely alone suffices',
    );
  }
  if (seen.sameDomainDelaySecs) {
    log.warning(
      'sameDomainDelaySecs is set as well: requests are then delayed twice; use pacing.minDelayMs instead',
    );
  }

  const baseClient = seen.httpClient ?? new crawleeCore.GotScrapingHttpClient();
  const ownsFacade = !isPoliteness(politeness);
  // robots.txt goes out through the crawler's proxies (or its browser's launch proxy) when no fetch was given.
  const proxies = seen.proxyConfiguration ?? launchProxyOf(seen.launchContext);
  // robots.txt checked for a request the HTTP client sends goes through that request's proxy.
  const routes = proxies ? robotsRoutes() : undefined;
  /** The crawler's own Configuration, seen as it is constructed (crawler-config.ts). */
  let crawlerConfig: Configuration | undefined;
  /** Whether the one warning that the crawl's storage is unknown was given (by whichever part met it first). */
  let warnedUnseen = false;
  /**
   * The storage the `politely` store lives in: the Configuration of the queue you gave, else of the
   * crawler, else the one you gave withPoliteness. None of them known: the store keeps nothing (it
   * does not fall back to Crawlee's global storage, which may be another crawl's or another test's:
   * a robots.txt record kept there for a reused origin would stand for this site's robots.txt).
   */
  const crawlStorage = (): Configuration | undefined => {
    const config = queueConfigOf(seen) ?? crawlerConfig ?? plugin.config;
    if (config === undefined && !warnedUnseen) {
      warnedUnseen = true;
      log.warning(
        "politely cannot see which Configuration (storage) this crawler was given, so robots.txt records and each host's pace are kept in memory only, not in the crawl's storage; pass that Configuration to withPoliteness as well: withPoliteness(options, politeness, { config })",
      );
    }
    return config;
  };
  const facade = ownsFacade
    ? createPoliteness(
        withPluginDefaults(
          politeness,
          proxies && routes
            ? () => ({ fetch: robotsFetchThroughProxy(baseClient, proxies, routes), route: routes.route })
            : undefined,
          // Without a store of yours, robots.txt records and each host's pace live in the crawl's own
          // storage (crawlee-store.ts), where a resumed crawl finds them.
          () =>
            crawleeKeyvStore(crawlStorage, ({ origin, writtenAt }) =>
              log.info(
                `Using robots.txt kept by an earlier run in the crawl's storage (key-value store "politely"): ${origin}'s was fetched ${age(Date.now() - writtenAt)} ago, and other origins' may be too (kept up to a day, as RFC 9309 allows). To read every robots.txt again, delete storage/key_value_stores/politely before the run.`,
              ),
            ),
        ),
      )
    : politeness;

  const reporter = new Reporter({ politeness: facade, log, onSkippedRequest: seen.onSkippedRequest });
  const spacing = plugin.spacing;
  let sitemaps: SitemapEnqueuer | undefined;
  // How long before its host is due a request may be handed out: 0, until the crawler shows it opens
  // browser pages (browser-wiring.ts), whose navigations the page guard holds until the slot.
  let handOutLeadMs = 0;
  // HTTP crawlers: as early as Crawlee's pipeline takes to bring a request to the client (learned).
  const httpLead = new HandOutLead();
  // Each HTTP navigation tied to its task, so a body the crawler drops unread gives its place back.
  const navigations = new NavigationBodies();
  const manager = new PoliteRequestManager({
    politeness: facade,
    openInner: () => openInnerQueue(seen, crawlerConfig ?? plugin.config),
    onSeated: () => {
      // Armed with a queue of yours too: on Crawlee 3.13 a queue does not tell its Configuration
      // (queueConfigOf), and the crawler's is where the store goes then.
      const ownQueue = Boolean(seen.requestQueue || seen.requestManager);
      captureCrawlerConfig(
        (config) => {
          crawlerConfig = config;
          if (ownQueue) return; // no default queue to open
          if (config && plugin.config && config !== plugin.config) {
            log.warning(
              "withPoliteness was given a Configuration other than the crawler's; the default queue is opened with the crawler's",
            );
          } else if (!config && !plugin.config && !warnedUnseen) {
            warnedUnseen = true;
            log.warning(
              "politely cannot see which Configuration this crawler was given: if you gave it one, pass it to withPoliteness too (withPoliteness(options, politeness, { config })), or the default queue is opened in Crawlee's global storage, and robots.txt records and each host's pace are kept in memory only",
            );
          }
        },
        [(queueOf(seen) as { config?: unknown } | undefined)?.config, plugin.config],
      );
    },
    reporter,
    log,
    maxParked: plugin.maxParked,
    filterOnEnqueue: plugin.filterOnEnqueue,
    // The frontier's clock runs `handOutLeadMs` ahead: what is due within it is handed out now.
    now: () => Date.now() + Math.max(handOutLeadMs, httpLead.leadMs),
    maxNapMs: MAX_NAP_MS,
    met: (url) => sitemaps?.meet(url),
    handOutLead: httpLead,
    taskEnded: (request) => navigations.taskEnded(request),
    // The crawler's, which it closes (or saves on) at its end; else the list's own.
    crawlEvents: () =>
      (crawlerConfig?.getEventManager() ?? eventsOf(seen.requestList)) as CrawlEvents | undefined,
  });
  const onSent = (decision: Decision, at?: number) => manager.sent(decision, at);
  const httpClient = new PoliteHttpClient({
    inner: baseClient,
    politeness: facade,
    reporter,
    checkRedirects: plugin.checkRedirects,
    spacing,
    onSent,
    onNavigation: (url) => httpLead.reachedClient(url),
    log,
    ...(routes && ownsFacade && !hasOwnRobotsFetch(politeness) ? { routes } : {}),
  });
  if (plugin.enqueueSitemaps) {
    sitemaps = sitemapEnqueuer({
      politeness: facade,
      client: httpClient,
      add: (urls) => manager.addRequestsBatched(urls),
      log,
    });
  }
  // Core's `politenessOf` finds the facade on the manager, which the crawler (and these options) keep.
  attachPoliteness(manager, facade);

  const { requestQueue: _queue, requestManager: _manager, ...given } = crawlerOptions as SeenCrawlerOptions;
  // A RequestList alone is read by the manager as Crawlee reads it (list-first.ts), not handed to the
  // crawler beside the manager, which would drain it into a queue first.
  const { requestList: _list, ...unlisted } = given;
  const rest = listOnly(seen) ? unlisted : given;
  // Crawlee 3.x declares `requestManager` in its types but rejects it at runtime, so the wrapper sits
  // in `requestQueue` there; 4.x (which ships ThrottlingRequestManager) takes it as `requestManager`.
  const seat =
    seen.requestManager !== undefined || 'ThrottlingRequestManager' in crawleeCore
      ? 'requestManager'
      : 'requestQueue';
  const result = {
    ...rest,
    [seat]: manager,
    httpClient,
  } as unknown as A;
  // First of the pre-navigation hooks: it marks the navigation before any hook of yours runs, and it
  // runs even when one of yours throws after it. Added as browserPoolOptions is (browser-wiring.ts):
  // visible when you set hooks yourself, else non-enumerable, since BasicCrawler (no navigation, no
  // such option) rejects keys it does not know while the HTTP and browser crawlers read it by name.
  Object.defineProperty(result, 'preNavigationHooks', {
    value: [navigations.hook, ...(seen.preNavigationHooks ?? [])],
    enumerable: seen.preNavigationHooks !== undefined,
    writable: true,
    configurable: true,
  });
  // Parked hosts come due at any moment and Crawlee's idle pool looks only every 0.5 s by default;
  // isEmpty() naps until one is due, so this only shortens the pool's rare idle waits. Added only to
  // options you set: setting autoscaledPoolOptions at all replaces HttpCrawler's own defaults
  // (desiredConcurrency 10, looser event-loop limits), and a crawl would start at concurrency 1 and
  // rarely grow, slower than the sites ask.
  if (seen.autoscaledPoolOptions) {
    (result as SeenCrawlerOptions).autoscaledPoolOptions = {
      maybeRunIntervalSecs: IDLE_POLL_SECS,
      ...seen.autoscaledPoolOptions,
    };
  }
  // Page-level robots rules (X-Robots-Tag, meta robots) readable in the handler; nofollow honoured.
  const handlerKey = handlerKeyOf(seen);
  const theirs = seen[handlerKey];
  const directed = withPageDirectives(theirs, {
    productToken: facade.productToken,
    respectNofollow: plugin.respectNofollow,
    log,
  });
  // Browser crawlers (Playwright, Puppeteer): every request of every page judged as the browser sends it.
  const pageRefused = wireBrowserCrawlers(result, seen, {
    politeness: facade,
    reporter,
    log,
    subresources: plugin.subresources,
    spacing,
    onSent,
    setHandOutLead: (ms) => {
      handOutLeadMs = ms;
    },
  });
  // A request refused after its task started (a browser page's navigation, an HTTP navigation refused
  // at a hop, whose client handed over an empty page, a page whose TDM rights are reserved) ends
  // SKIPPED, not retried, before its handler, as Crawlee ends its own skips after navigation.
  (result as SeenCrawlerOptions).requestHandler = async function (this: unknown, context: HandlerContext) {
    navigations.installLate(context, log);
    if (
      (await pageRefused(context)) ||
      httpClient.refusedNavigation(context.response) !== undefined ||
      (await tdmReserved(context, facade, reporter))
    ) {
      context.request.noRetry = true;
      context.request.state = crawleeCore.RequestState.SKIPPED;
      return;
    }
    return directed.call(this, context as never);
  };
  // The options as given, with ours added: the same object whichever type the caller's context names.
  return keepUsersHandler(result, handlerKey, theirs) as unknown extends T ? A : T;
}

/** What a crawler hands its request handler, as far as the skips read it. */
interface HandlerContext extends PageContext {
  readonly request: { noRetry?: boolean; state?: unknown; url: string; loadedUrl?: string };
  readonly body?: unknown;
  readonly crawler?: PageContext['crawler'] & { preNavigationHooks?: unknown };
}

/**
 * HTTP crawlers with a TDM `purpose`: a page whose TDMRep declarations reserve TDM rights (its
 * `tdm-reservation` meta tag over its header over the origin's tdmrep.json, W3C TDMRep) is a skip
 * of the request at the response stage, reported and counted as one, and its handler does not run.
 * Read here, not in the HTTP client, because the meta tag overrides the header and comes with the body.
 */
async function tdmReserved(
  context: HandlerContext,
  politeness: Politeness,
  reporter: Reporter,
): Promise<boolean> {
  const url = context.request.loadedUrl ?? context.request.url;
  if (typeof url !== 'string' || context.page !== undefined) return false;
  let decision: Decision | undefined;
  try {
    decision = adapterKit(politeness).checkCached(url);
  } catch {
    return false;
  }
  if (!decision?.allowed || decision.purpose === undefined) return false;
  const node = (context.response ?? {}) as { headers?: Record<string, string | string[] | undefined> };
  const body = context.body;
  const headers = node.headers ?? null;
  const { meta } = readTdmDeclarations({
    headers,
    body: typeof body === 'string' || body instanceof Uint8Array ? body : null,
  });
  // The one verdict on a response (core's), now with the page's meta tags the HTTP client could not see.
  const refused = responseVerdict(decision, { headers, meta });
  if (!refused) return false;
  await reporter.skipped({ url: context.request.url ?? url, stage: 'response', decision: refused });
  return true;
}

/**
 * The plugin's counters of a crawler (or the options) built with `withPoliteness`, for progress
 * displays: requests fetched, skipped by reason, parked, robots.txt fetches, and per host. The
 * facade's own (`politenessOf(crawler).stats()`) counts decisions, fetches and reservations.
 */
export function crawlStats(crawler: object): CrawleePolitenessStats {
  const seats = crawler as { requestManager?: unknown; requestQueue?: unknown };
  for (const seat of [seats.requestManager, seats.requestQueue]) {
    if (seat !== null && typeof seat === 'object' && MANAGER_BRAND in seat) {
      return (seat as PoliteRequestManager).crawlStats();
    }
  }
  throw new TypeError(
    'This crawler was not created with withPoliteness(): no politely request manager found',
  );
}

/**
 * The queue the crawler would have used: the one passed in, else the default queue (opened lazily),
 * with the crawler's own Configuration (seen as it was constructed, else the plugin's `config`;
 * opened with the global one instead, the queue would live in other storage than the crawler's,
 * which Crawlee 3.13 fails on and 3.18 runs as a second queue).
 */
async function openInnerQueue(seen: SeenCrawlerOptions, config?: Configuration): Promise<InnerQueue> {
  const given = queueOf(seen);
  if (given) return given as InnerQueue;
  if (listOnly(seen)) {
    const list = listFirst(seen.requestList, () => openDefaultQueue(seen, config));
    if (list) return list;
  }
  return openDefaultQueue(seen, config);
}

/** A crawl fed by a RequestList and no queue of yours, on a Crawlee that reads a list alone (3.15+). */
function listOnly(seen: SeenCrawlerOptions): boolean {
  return (
    seen.requestList != null &&
    queueOf(seen) === undefined &&
    listReaders.RequestListAdapter !== undefined &&
    listReaders.RequestManagerTandem !== undefined
  );
}

/** The default queue, opened as Crawlee would open it (see openInnerQueue). */
async function openDefaultQueue(seen: SeenCrawlerOptions, config?: Configuration): Promise<InnerQueue> {
  const { RequestQueue, RequestQueueV1 } = crawleeCore;
  const local = isLocalStorage(config);
  // On local storage, without V1's wait before a reclaimed request is served again (local-queue.ts).
  const Unlocked = local ? localRequestQueue() : RequestQueueV1;
  const Queue = withoutLocking(seen, local) && Unlocked ? Unlocked : RequestQueue;
  return (await Queue.open(null, config ? { config } : {})) as unknown as InnerQueue;
}

/** The event manager a RequestList saves its state on (its Configuration's), if it shows one. */
function eventsOf(list: unknown): unknown {
  return list !== null && typeof list === 'object' ? (list as { events?: unknown }).events : undefined;
}

/** The queue (or request manager) you gave the crawler, if any. */
function queueOf(seen: SeenCrawlerOptions): unknown {
  return seen.requestManager ?? seen.requestQueue;
}

/**
 * The Configuration of the queue you gave the crawler, when the queue tells it truly. Crawlee 3.18
 * keeps on a RequestQueue the Configuration it was opened with; 3.13 keeps the global one on every
 * storage it opens (its StorageManager does not pass its own on), whatever storage the queue is in.
 * So where the queue shows its storage (local storage: its client holds the MemoryStorage), that must
 * be the Configuration's. Recognised by shape (crawler-config.ts): a queue of another copy of
 * @crawlee/core counts too.
 */
function queueConfigOf(seen: SeenCrawlerOptions): Configuration | undefined {
  const queue = queueOf(seen) as { config?: unknown; client?: { client?: unknown } } | undefined;
  const config = queue?.config;
  if (!isConfiguration(config)) return undefined;
  const storage = queue?.client?.client;
  if (isStorageClient(storage)) {
    try {
      if (config.getStorageClient() !== storage) return undefined;
    } catch {
      return undefined;
    }
  }
  return config;
}

/** A Crawlee storage client (MemoryStorage, or any other that opens key-value stores and queues). */
function isStorageClient(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const client = value as { keyValueStore?: unknown; requestQueue?: unknown };
  return typeof client.keyValueStore === 'function' && typeof client.requestQueue === 'function';
}

/**
 * Whether the default queue is opened without request locking (RequestQueueV1, as Crawlee itself does
 * with `experiments.requestLocking: false`): when you say so, and on local storage unless you ask for
 * locking (`requestLocking: true`). Parked requests stay handed out until their host is due, and each
 * refill of RequestQueue v2's head on local storage (memory-storage's listAndLockHead) re-reads every
 * locked request from disk under a lock file, which slows the crawl below the pace the sites allow.
 * Locks matter where several consumers share one queue: platform storage (any other storage client)
 * keeps them.
 */
function withoutLocking(seen: SeenCrawlerOptions, local: boolean): boolean {
  return !(seen.experiments?.requestLocking ?? !local);
}

/** Whether the crawl's storage is Crawlee's local one (MemoryStorage, on disk or in memory). */
function isLocalStorage(config?: Configuration): boolean {
  try {
    const client = (config ?? crawleeCore.Configuration.getGlobalConfig()).getStorageClient();
    return client?.constructor?.name === 'MemoryStorage';
  } catch {
    return false;
  }
}

/**
 * The user's options over the plugin's defaults. A host whose rate-limit headers ask for more than
 * `pacing.maxRateLimitDelayMs` between requests is skipped until their reset, with one warning,
 * rather than holding its requests parked for up to `pacing.maxBackoffMs` each while the crawl looks
 * stalled; your own `pacing.rateLimitAboveMax` ('wait', 'fail') wins. robots.txt
 * goes through the crawler's proxies when no `robots.fetch` was given. A group given as anything but
 * an object is passed on as it is, for createPoliteness to refuse by name.
 */
function withPluginDefaults(
  options: PolitenessOptions,
  proxiedFetch: (() => { fetch: FetchLike; route: RobotsRoutes['route'] }) | undefined,
  crawlStore: () => KeyvLike,
): PolitenessOptions {
  const { pacing, robots } = options;
  const isGroup = (group: unknown): group is object | undefined =>
    group === undefined || (typeof group === 'object' && group !== null);
  return {
    ...options,
    store: options.store ?? crawlStore(),
    ...(isGroup(pacing) ? { pacing: { rateLimitAboveMax: 'skip', ...pacing } } : {}),
    ...(proxiedFetch && isGroup(robots) && robots?.fetch === undefined
      ? { robots: { ...robots, ...proxiedFetch() } }
      : {}),
  };
}

/** Whether the politeness options given bring a robots.txt fetch of their own (ours is not used then). */
function hasOwnRobotsFetch(options: PolitenessOptions | Politeness): boolean {
  const robots = (options as PolitenessOptions).robots;
  return typeof robots === 'object' && robots !== null && robots.fetch !== undefined;
}

/** A duration as a person reads it in a log line: "40 s", "12 min", "3 h". */
function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/** Keys only a crawler's options hold: seen among politely's, the two arguments were swapped. */
const CRAWLER_KEYS = ['requestHandler', 'handlePageFunction', 'requestQueue', 'requestList', 'router'];
const USAGE = "withPoliteness(crawlerOptions, { userAgent: 'MyBot/1.0 (+https://example.com/bot)' })";

/** The mistakes a first call makes, each told with its fix, before any option is read. */
function checkArguments(crawlerOptions: object, politeness: unknown): void {
  if (politeness === undefined || politeness === null) {
    throw new TypeError(
      `withPoliteness needs politely's options (at least \`userAgent\`) or a Politeness as its second argument: ${USAGE}`,
    );
  }
  if (isPoliteness(politeness) || typeof politeness !== 'object') return;
  const swapped = CRAWLER_KEYS.find((key) => key in politeness);
  if (swapped !== undefined) {
    throw new TypeError(
      `withPoliteness's second argument holds \`${swapped}\`, a crawler option: the crawler's options come first, politely's second: ${USAGE}`,
    );
  }
  if ('userAgent' in crawlerOptions) {
    throw new TypeError(
      `\`userAgent\` is politely's option, not the crawler's: give it in withPoliteness's second argument: ${USAGE}`,
    );
  }
}
