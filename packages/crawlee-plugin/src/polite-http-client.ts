/**
 * Decorates the crawler's HTTP client through Crawlee's own `BaseHttpClient` interface, so any client
 * (got-scraping, @crawlee/impit-client, your own) is treated alike, with no client-specific hooks.
 * Redirects are followed here, one hop at a time, so every hop is checked against robots.txt before
 * it goes out. A navigation refused at a hop ends as a skip, as in browser crawlers: the crawler is
 * handed an empty page (`refusedNavigation` tells it apart) whose handler with-politeness.ts skips,
 * since Crawlee 3 fails any request whose navigation throws. Each hop is core's `sendHop`: one of its
 * host's in-flight places (held until its body is done, or until the crawler's task ends without
 * reading it: navigation-bodies.ts), then its binding pacing slot, waiting no longer than the
 * request's own deadline; its response feeds the host's pace. The bot's User-Agent is sent unless the
 * caller set one or `sendUserAgent` is false.
 */

import { Readable } from 'node:stream';
import type {
  BaseHttpClient,
  BaseHttpResponseData,
  HttpRequest,
  HttpResponse,
  Log,
  RedirectHandler,
  ResponseTypes,
  StreamingHttpResponse,
} from '@crawlee/core';
import {
  type Decision,
  type DisallowedDecision,
  type Politeness,
  RobotsDisallowedError,
  type SkipStage,
} from '@politely/core';
import {
  adapterKit,
  type HopAnswer,
  type HopBody,
  robotsTransportError,
  type Spacing,
  sendHop,
} from '@politely/core/adapter';
import { unmarked } from './navigation-bodies.js';
import { RobotsRedirectError } from './redirect-error.js';
import { headerValue, nextHop, redirectTarget } from './redirect-hop.js';
import type { Reporter } from './reporter.js';
import type { RobotsRoutes } from './robots-fetch.js';

/** got's default, which Crawlee's clients share. */
const DEFAULT_MAX_REDIRECTS = 10;

export interface PoliteHttpClientOptions {
  readonly inner: BaseHttpClient;
  readonly politeness: Politeness;
  readonly reporter: Reporter;
  readonly checkRedirects: boolean;
  /** Whether a host's next hop counts its delay from this hop's response or from its send. */
  readonly spacing: Spacing;
  /** A hop went out at `at` (epoch ms), recorded: the queue may release its host. */
  readonly onSent?: (decision: Decision, at: number) => void;
  /** A navigation reached the client (before it waits for its slot): hand-out-lead.ts measures it. */
  readonly onNavigation?: (url: string) => void;
  readonly log: Log;
  /** robots.txt checked for a request goes through the request's own proxy (robots-fetch.ts). */
  readonly routes?: RobotsRoutes;
}

/** Navigation sends exactly the requests the queue handed out; a handler's request may go anywhere. */
type CallKind = 'navigation' | 'handler';

type AnyRequest = HttpRequest<keyof ResponseTypes>;
type AnyResponse = BaseHttpResponseData & { stream?: { resume(): unknown } };

/** Thrown inside `follow` for a refused navigation hop; `stream` turns it into the empty page. */
class NavigationRefused extends Error {
  constructor(readonly decision: DisallowedDecision) {
    super(`robots.txt refuses ${decision.url}`);
  }
}

export class PoliteHttpClient implements BaseHttpClient {
  private readonly client: BaseHttpClient;
  private warnedSelfFollowing = false;
  /** The empty pages handed over for refused navigations, and why each was refused. */
  private readonly refusedPages = new WeakMap<object, DisallowedDecision>();

  constructor(private readonly options: PoliteHttpClientOptions) {
    assertCrawlee3Client(options.inner);
    this.client = options.checkRedirects ? manualRedirectView(options.inner) : options.inner;
  }

  async sendRequest<TResponseType extends keyof ResponseTypes = 'text'>(
    request: HttpRequest<TResponseType>,
  ): Promise<HttpResponse<TResponseType>> {
    const send = (hop: HttpRequest<TResponseType>) => this.client.sendRequest(hop);
    return this.follow(request, 'handler', send, undefined);
  }

  async stream(marked: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    // A crawler's navigation is marked with its task (navigation-bodies.ts); the inner client never
    // sees the mark. The body handed over is destroyed if the task ends without reading it.
    const { navigation, request } = unmarked(marked);
    // The caller's redirect handler runs here, per hop we follow (the client sees no redirects).
    const send = (hop: HttpRequest) =>
      this.options.checkRedirects ? this.client.stream(hop) : this.client.stream(hop, onRedirect);
    this.options.onNavigation?.(String(request.url));
    try {
      const response = await this.follow(request, 'navigation', send, onRedirect);
      navigation?.handedOver(response.stream);
      return response;
    } catch (error) {
      if (error instanceof NavigationRefused) return this.refusedPage(request, error.decision);
      throw error;
    }
  }

  /**
   * The decision that refused the navigation whose response this is (Crawlee's response stream, as
   * the request handler's context has it), or undefined for a real response.
   */
  refusedNavigation(response: unknown): DisallowedDecision | undefined {
    return response !== null && typeof response === 'object' ? this.refusedPages.get(response) : undefined;
  }

  /**
   * What the crawler gets for a refused navigation: an empty HTML page at the request's own URL (so no
   * enqueue-strategy or status check of Crawlee's trips on it), nothing sent. Its handler is skipped.
   */
  private refusedPage(request: HttpRequest, decision: DisallowedDecision): StreamingHttpResponse {
    const stream = Readable.from([]);
    this.refusedPages.set(stream, decision);
    const progress = { percent: 1, transferred: 0, total: 0 };
    return {
      stream,
      request,
      url: String(request.url),
      redirectUrls: [],
      statusCode: 200,
      statusMessage: 'OK',
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': '0' },
      trailers: {},
      complete: true,
      downloadProgress: progress,
      uploadProgress: progress,
    };
  }

  private follow<Q extends AnyRequest, R extends AnyResponse>(
    request: Q,
    kind: CallKind,
    send: (hop: Q) => Promise<R>,
    onRedirect: RedirectHandler | undefined,
  ): Promise<R> {
    const { routes } = this.options;
    const follow = () => this.followHops(request, kind, send, onRedirect);
    return routes ? routes.through(request.proxyUrl, follow) : follow();
  }

  private async followHops<Q extends AnyRequest, R extends AnyResponse>(
    request: Q,
    kind: CallKind,
    send: (hop: Q) => Promise<R>,
    onRedirect: RedirectHandler | undefined,
  ): Promise<R> {
    const signal = deadlineOf(request);
    const manual = this.options.checkRedirects;
    const { politeness, onSent } = this.options;
    let hop: Q = this.identified(manual ? { ...request, followRedirect: false } : request);
    const followed: URL[] = [];
    const maxRedirects = request.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    for (;;) {
      const current = hop;
      const response = await sendHop(
        politeness,
        String(current.url),
        async () => withHeaders(await send(current)),
        {
          ...(signal ? { signal } : {}),
          stage: followed.length > 0 ? 'redirect' : 'send',
          // A navigation's URL was decided (and counted) as it left the queue: a decision in memory
          // answers without counting it twice. Every other hop is a decision of its own, counted.
          cachedCheck: kind === 'navigation' && followed.length === 0,
          refuse: (decision, stage) => this.refusal(decision, kind, stage, String(request.url)),
          // A redirect's body is drained and dropped: its place is free for the next hop at once.
          answer: (answered) =>
            this.answer(answered, manual && redirectTarget(request, answered) !== undefined, kind),
          spacing: this.options.spacing,
          ...(onSent ? { onSent } : {}),
        },
      );
      if (manual) await this.checkHopsFollowedByClient(response, kind, String(request.url));
      const target = manual ? redirectTarget(request, response) : undefined;
      if (!target) {
        if (followed.length > 0) response.redirectUrls = [...followed, ...(response.redirectUrls ?? [])];
        return response;
      }
      response.stream?.resume();
      if (followed.length >= maxRedirects) throw new Error(`Redirected ${maxRedirects} times. Aborting.`);
      followed.push(target);
      hop = nextHop(hop, response, target, onRedirect);
    }
  }

  /**
   * What a response tells its host: its latency (got's timings when the client reports them), when
   * the request really went out (got's `timings.upload` when the client reports it: it may lie well
   * after its slot, 89 ms for got-scraping's cold first request here) and when its response arrived;
   * which of the two the host's next start counts from is `spacing`'s, in core's hop lifecycle. The
   * host's place is held until the crawler has the whole body, or its task ended without reading it
   * (navigation-bodies.ts destroys the stream then); a response without a stream (`sendRequest`) was
   * read in full.
   */
  private answer(response: AnyResponse, isRedirect: boolean, kind: CallKind): HopAnswer {
    const now = Date.now();
    const timings = (response as { timings?: { upload?: unknown; response?: unknown } }).timings;
    const upload = timings?.upload;
    // +1: the real moment may lie up to 1 ms past a whole millisecond of Date.now(); without core's
    // margin a hop waiting for its slot could go that much early. A send time after now is no clock
    // to trust: the response's arrival proves the send instead.
    const sentAt = (typeof upload === 'number' && upload <= now ? upload : now) + 1;
    // got's timings: the request written to the socket, then the first byte of the response. Without
    // them core counts from the call to the client, which errs on the slow, polite side.
    const measured =
      typeof upload === 'number' && typeof timings?.response === 'number' ? timings.response - upload : -1;
    const body = isRedirect ? undefined : ((response as { stream?: unknown }).stream as HopBody | undefined);
    return {
      status: response.statusCode,
      retryAfter: headerValue(response.headers, 'retry-after') ?? null,
      contentUsage: headerValue(response.headers, 'content-usage') ?? null,
      // A navigation's TDMRep header is judged with the page's meta tag, which overrides it, once the
      // body is in (with-politeness.ts, before the handler); a handler's own request has no page to read.
      ...(kind === 'navigation'
        ? {}
        : {
            tdm: {
              reservation: headerValue(response.headers, 'tdm-reservation') ?? null,
              policy: headerValue(response.headers, 'tdm-policy') ?? null,
            },
          }),
      // Content withheld (its Content-Usage refuses the purpose): the handler never reads the stream.
      withhold: () => (body as { destroy?: () => void } | undefined)?.destroy?.(),
      url: response.url,
      headers: response.headers,
      sentAt,
      answeredAt: now + 1,
      ...(measured >= 0 ? { latencyMs: measured } : {}),
      ...(body ? { body } : {}),
    };
  }

  /**
   * A refused navigation (its redirect hop, or its own URL once robots.txt changed since it left the
   * queue) is a skip of the crawl's request: reported under the request's URL, as Crawlee reports its
   * own skips, and ended by `stream`. A handler's own request (`sendRequest`) is refused with an error
   * its caller sees, as politeGot refuses it.
   */
  private async refusal(
    decision: DisallowedDecision,
    kind: CallKind,
    stage: SkipStage,
    requestUrl: string,
  ): Promise<Error> {
    const { reporter } = this.options;
    // robots.txt failed at the transport: the request fails as it would on the page itself, with
    // the transport's code (Crawlee retries it, rotating its proxy), and is no skip.
    const transport = robotsTransportError(decision);
    if (transport) return transport;
    if (kind === 'navigation') {
      await reporter.skipped({ url: requestUrl, stage, decision });
      return new NavigationRefused(decision);
    }
    await reporter.skipped({ url: decision.url, stage, decision, ownRequest: true });
    if (stage === 'send') return new RobotsDisallowedError(decision);
    return new RobotsRedirectError(decision, 'redirect');
  }

  /**
   * A client that follows redirects although asked not to (no `followRedirect` support) reports the
   * hops only afterwards: they went out unchecked. A disallowed one still fails the request, so its
   * page is not crawled, and the user is told once to use a client that lets the plugin follow.
   */
  private async checkHopsFollowedByClient(
    response: AnyResponse,
    kind: CallKind,
    requestUrl: string,
  ): Promise<void> {
    if (!response.redirectUrls?.length) return;
    if (!this.warnedSelfFollowing) {
      this.warnedSelfFollowing = true;
      this.options.log.warning(
        "politely: the crawler's HTTP client follows redirects itself (it ignores followRedirect: false); redirect hops are checked only after they were requested",
      );
    }
    for (const url of response.redirectUrls) {
      const decision = await this.options.politeness.check(url);
      if (decision.allowed) continue;
      response.stream?.resume();
      throw await this.refusal(decision, kind, 'redirect', requestUrl);
    }
  }

  /** RFC 9309 2.2.1: the product token matched should be in the User-Agent the site sees. */
  private identified<Q extends AnyRequest>(request: Q): Q {
    const { politeness } = this.options;
    if (!adapterKit(politeness).sendUserAgent || headerValue(request.headers, 'user-agent') !== undefined)
      return request;
    return { ...request, headers: { ...request.headers, 'user-agent': politeness.userAgent } };
  }
}

/**
 * The client as seen with its own redirect following off. got-scraping honours the per-request
 * `followRedirect: false`; @crawlee/impit-client (3.16) ignores it and reads its constructor option
 * `followRedirects` instead, so it is given a view of itself with that option off (its connection
 * cache and everything else shared; the user's instance is not changed).
 */
function manualRedirectView(client: BaseHttpClient): BaseHttpClient {
  const options = client as unknown as { followRedirects?: unknown };
  if (options.followRedirects !== true) return client;
  const view = Object.create(client) as { followRedirects: boolean };
  view.followRedirects = false;
  return view as unknown as BaseHttpClient;
}

/** The request's own deadline: its signal and its `timeout.request`, whichever ends first. */
function deadlineOf(request: AnyRequest): AbortSignal | undefined {
  const signals: AbortSignal[] = [];
  if (request.signal) signals.push(request.signal);
  const ms = request.timeout && 'request' in request.timeout ? request.timeout.request : undefined;
  if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0) signals.push(AbortSignal.timeout(ms));
  if (signals.length <= 1) return signals[0];
  return AbortSignal.any(signals);
}

/**
 * Crawlee before 3.18 builds `sendRequest`'s response by spreading got's response, which drops its
 * `headers` getter (`headers` is then undefined). Rebuilt from `rawHeaders` so every caller, and the
 * user's handler, sees headers on every Crawlee version.
 */
function withHeaders<R extends AnyResponse>(response: R): R {
  if (response.headers) return response;
  const raw = (response as { rawHeaders?: unknown }).rawHeaders;
  const headers: Record<string, string | string[]> = {};
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = String(raw[i]).toLowerCase();
      const value = String(raw[i + 1]);
      const seen = headers[name];
      if (seen === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
      else if (Array.isArray(seen)) seen.push(value);
      else headers[name] = `${seen}, ${value}`;
    }
  }
  response.headers = headers;
  return response;
}

/**
 * Crawlee 4's `BaseHttpClient` (apify/crawlee master, unreleased) has `sendRequest(request: Request)`
 * only, and follows redirects inside it: wrapped here, its hops would go out unchecked. Such a client
 * is refused when the crawler is set up, rather than failing at its first request (no `stream`).
 */
function assertCrawlee3Client(inner: unknown): asserts inner is BaseHttpClient {
  const client = inner as Partial<BaseHttpClient> | null | undefined;
  if (typeof client?.sendRequest !== 'function' || typeof client.stream !== 'function') {
    throw new TypeError(
      "Expected httpClient to be a Crawlee 3 BaseHttpClient (sendRequest and stream); @politely/crawlee does not support Crawlee 4's HTTP clients yet, which follow redirects where no hop can be checked",
    );
  }
}
