/**
 * Decorates the crawler's HTTP client through Crawlee's own `BaseHttpClient` interface, so any client
 * (got-scraping, @crawlee/impit-client, your own) is treated alike, with no client-specific hooks.
 * Redirects are followed here, one hop at a time, so every hop is checked against robots.txt before
 * it goes out. Each hop takes one of its host's in-flight places (held until its body is done), then
 * its binding pacing slot, waiting no longer than the request's own deadline. Every response feeds
 * the host's pace; the bot's User-Agent is sent unless the caller set one or `sendUserAgent` is false.
 */

import type { Readable } from 'node:stream';
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
  isHttpUrl,
  type Politeness,
  RobotsDisallowedError,
  type SendPass,
  type Spacing,
} from '@politely/core';
import { RobotsRedirectError } from './redirect-error.js';
import { headerValue, nextHop, redirectTarget } from './redirect-hop.js';
import type { Reporter } from './reporter.js';

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
  readonly log: Log;
}

/** Navigation sends exactly the requests the queue handed out; a handler's request may go anywhere. */
type CallKind = 'navigation' | 'handler';

type AnyRequest = HttpRequest<keyof ResponseTypes>;
type AnyResponse = BaseHttpResponseData & { stream?: { resume(): unknown } };

export class PoliteHttpClient implements BaseHttpClient {
  private readonly client: BaseHttpClient;
  private warnedSelfFollowing = false;

  constructor(private readonly options: PoliteHttpClientOptions) {
    this.client = options.checkRedirects ? manualRedirectView(options.inner) : options.inner;
  }

  async sendRequest<TResponseType extends keyof ResponseTypes = 'text'>(
    request: HttpRequest<TResponseType>,
  ): Promise<HttpResponse<TResponseType>> {
    const send = (hop: HttpRequest<TResponseType>) => this.client.sendRequest(hop);
    return this.follow(request, 'handler', send, undefined);
  }

  async stream(request: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    // The caller's redirect handler runs here, per hop we follow (the client sees no redirects).
    const send = (hop: HttpRequest) =>
      this.options.checkRedirects ? this.client.stream(hop) : this.client.stream(hop, onRedirect);
    return this.follow(request, 'navigation', send, onRedirect);
  }

  private async follow<Q extends AnyRequest, R extends AnyResponse>(
    request: Q,
    kind: CallKind,
    send: (hop: Q) => Promise<R>,
    onRedirect: RedirectHandler | undefined,
  ): Promise<R> {
    const signal = deadlineOf(request);
    const manual = this.options.checkRedirects;
    let hop: Q = this.identified(manual ? { ...request, followRedirect: false } : request);
    const followed: URL[] = [];
    const maxRedirects = request.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    for (;;) {
      const pass = await this.admitHop(String(hop.url), kind, followed.length > 0, signal);
      let response: R;
      let latencyMs: number | undefined;
      try {
        const sentAt = Date.now();
        response = withHeaders(await send(hop));
        latencyMs = latencyOf(response, sentAt);
        if (pass) await this.markSent(pass, response);
      } catch (error) {
        pass?.release();
        // A timeout or a dropped connection slows the host's pace as a 5xx does (status 0: no answer).
        await pass?.failed(error);
        throw error;
      }
      let target: URL | undefined;
      try {
        await this.observe(pass, response, latencyMs);
        if (manual) await this.checkHopsFollowedByClient(response);
        target = manual ? redirectTarget(request, response) : undefined;
      } catch (error) {
        pass?.release();
        throw error;
      }
      if (!target) {
        if (pass) releaseWhenBodyDone(response, pass);
        if (followed.length > 0) response.redirectUrls = [...followed, ...(response.redirectUrls ?? [])];
        return response;
      }
      // A redirect's body is drained and dropped: its place is free for the next hop.
      pass?.release();
      response.stream?.resume();
      if (followed.length >= maxRedirects) throw new Error(`Redirected ${maxRedirects} times. Aborting.`);
      followed.push(target);
      hop = nextHop(hop, response, target, onRedirect);
    }
  }

  /** robots.txt check of one hop, then its pass: a place among the host's requests in flight, its slot. */
  private async admitHop(
    url: string,
    kind: CallKind,
    isRedirect: boolean,
    signal?: AbortSignal,
  ): Promise<SendPass | undefined> {
    if (!isHttpUrl(url)) return undefined;
    const { politeness } = this.options;
    const waitOptions = signal ? { signal } : {};
    const decision = politeness.checkCached(url) ?? (await politeness.check(url, waitOptions));
    if (!decision.allowed) throw await this.refusal(decision, kind, isRedirect);
    // The real send is recorded (markSent below) before the host's next hop may reserve, so the hop is
    // paced by the delay asked, without the margin core adds for adapters that cannot see the send.
    return politeness.sendPass(decision, { ...waitOptions, sendReported: true });
  }

  /**
   * Moves the host's next start to a full delay after this hop: after its response's arrival
   * (spacing 'response': the server had the request by then, however long a proxy held it), or after
   * its real send (got's `timings.upload` when the client reports it, else the response's arrival),
   * which may lie well after its slot (89 ms for got-scraping's cold first request here).
   */
  private async markSent(pass: SendPass, response: AnyResponse): Promise<void> {
    const now = Date.now();
    const upload = (response as { timings?: { upload?: unknown } }).timings?.upload;
    const fromSend = this.options.spacing === 'start' && typeof upload === 'number' && upload <= now;
    // +1: the real moment may lie up to 1 ms past a whole millisecond of Date.now(); without core's
    // margin a hop waiting for its slot could go that much early.
    const at = (fromSend ? upload : now) + 1;
    await pass.sent(at);
    this.options.onSent?.(pass.decision, at);
  }

  private async refusal(decision: DisallowedDecision, kind: CallKind, isRedirect: boolean): Promise<Error> {
    const stage = isRedirect ? 'redirect' : 'send';
    await this.options.reporter.skipped({ url: decision.url, stage, decision });
    // A handler's own request was never checked before: refused like politeGot refuses it. A
    // navigation's first hop was checked at dequeue: robots.txt changed in between.
    if (!isRedirect && kind === 'handler') return new RobotsDisallowedError(decision);
    return new RobotsRedirectError(decision, stage);
  }

  /**
   * A client that follows redirects although asked not to (no `followRedirect` support) reports the
   * hops only afterwards: they went out unchecked. A disallowed one still fails the request, so its
   * page is not crawled, and the user is told once to use a client that lets the plugin follow.
   */
  private async checkHopsFollowedByClient(response: AnyResponse): Promise<void> {
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
      throw await this.refusal(decision, 'navigation', true);
    }
  }

  /**
   * Every response feeds its host's pace (latency, errors); 429/503 with Retry-After back it off. The
   * host is the response's: a client that followed redirects itself answers for another one.
   */
  private async observe(pass: SendPass | undefined, response: AnyResponse, latencyMs?: number) {
    if (!isHttpUrl(response.url)) return;
    const { politeness } = this.options;
    const retryAfter = headerValue(response.headers, 'retry-after') ?? null;
    if (pass && politeness.hostKey(response.url) === pass.decision.hostKey) {
      await pass.answered(response.statusCode, retryAfter, latencyMs);
    } else {
      const details = latencyMs === undefined ? undefined : { latencyMs };
      // Backoff is best effort; a failing scheduler never fails the page.
      await politeness
        .observeResponse(response.url, response.statusCode, retryAfter, details)
        .catch(() => {});
    }
  }

  /** RFC 9309 2.2.1: the product token matched should be in the User-Agent the site sees. */
  private identified<Q extends AnyRequest>(request: Q): Q {
    const { politeness } = this.options;
    if (politeness.sendUserAgent === false || headerValue(request.headers, 'user-agent') !== undefined)
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

/**
 * The host's in-flight place is held until the crawler has the whole body: the stream's end, close or
 * error (Crawlee destroys it on a timeout or a failed handler), whichever comes first. A response
 * without a stream (`sendRequest`) was read in full already.
 */
function releaseWhenBodyDone(response: AnyResponse, lease: { release(): void }): void {
  const stream = (response as { stream?: unknown }).stream as Readable | undefined;
  if (!stream || typeof stream.once !== 'function' || stream.destroyed || stream.readableEnded) {
    lease.release();
    return;
  }
  const done = () => lease.release();
  stream.once('end', done);
  stream.once('close', done);
  stream.once('error', done);
}

/**
 * ms from the request going out to its response headers: got's `timings` (the request written to
 * the socket, then the first byte of the response) when the client reports them, else from the call
 * to the client to its response, which also counts the client's own work and so errs on the slow,
 * polite side.
 */
function latencyOf(response: AnyResponse, sentAt: number): number | undefined {
  const timings = (response as { timings?: { upload?: unknown; response?: unknown } }).timings;
  if (typeof timings?.upload === 'number' && typeof timings.response === 'number') {
    const measured = timings.response - timings.upload;
    if (measured >= 0) return measured;
  }
  const elapsed = Date.now() - sentAt;
  return elapsed >= 0 ? elapsed : undefined;
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
