/**
 * Decorates the crawler's HTTP client (navigation of the HTTP crawlers and `context.sendRequest`)
 * with got hooks, added after got-scraping's own hooks and before any hooks of yours:
 * - pacing `send` (see handovers.ts): @politely/got's `beforeRequest` hook runs for every hop, so
 *   each hop is checked against robots.txt and waits for its host's slot, reserved the moment it
 *   really goes out; the request manager only handed the request out because its host was due;
 * - pacing `dequeue`: the slot was reserved when the request was handed out, so hops are only
 *   checked (redirects) and push the host's next start to one delay after they really went out;
 * - either way, 429/503 responses with Retry-After are fed back to the scheduler (after `stream`,
 *   since got's afterResponse hooks do not run in stream mode).
 * A robots.txt refusal on a redirect hop reaches Crawlee as a RobotsRedirectError (NonRetryable),
 * reported once with reason 'redirect'. A `sendRequest` from a handler may go anywhere, so its
 * first URL is checked before got is called.
 */
import {
  type BaseHttpClient,
  type HttpRequest,
  type HttpResponse,
  type Log,
  NonRetryableError,
  type RedirectHandler,
  type ResponseTypes,
  type StreamingHttpResponse,
} from '@crawlee/core';
import { type Decision, getDisallowedDecision, type Politeness, RobotsDisallowedError } from '@politely/core';
import { type GotRequestOptionsLike, type PoliteBeforeRequestHook, politeGot } from '@politely/got';
import { isHttpUrl } from './enqueue-filter.js';
import type { Handovers } from './handovers.js';
import { markStarted, observeStatus } from './pacing-feedback.js';
import { findRobotsRedirectError, RobotsRedirectError } from './redirect-error.js';
import type { Reporter } from './reporter.js';
import type { SkipReason } from './types.js';

interface GotHooksLike {
  beforeRequest?: unknown[];
  beforeRedirect?: unknown[];
  beforeError?: unknown[];
  [name: string]: unknown;
}

/** Navigation sends exactly the requests the manager handed out; a handler's request may go anywhere. */
type CallKind = 'navigation' | 'handler';

export interface PoliteHttpClientOptions {
  readonly inner: BaseHttpClient;
  readonly politeness: Politeness;
  readonly reporter: Reporter;
  readonly handovers: Handovers;
  readonly checkRedirects: boolean;
  readonly log: Log;
}

/** A request with our hooks, and whether they ran (a client that is not got-based never runs them). */
interface HookedCall<T> {
  readonly request: T;
  readonly reserving: boolean;
  hops(): number;
}

export class PoliteHttpClient implements BaseHttpClient {
  private readonly inner: BaseHttpClient;
  private readonly politeness: Politeness;
  private readonly reporter: Reporter;
  private readonly handovers: Handovers;
  private readonly checkRedirects: boolean;
  private readonly log: Log;
  /** @politely/got's per-hop robots check + blocking reservation (honouring `options.signal`). */
  private readonly admitHooks: readonly PoliteBeforeRequestHook[];

  constructor(options: PoliteHttpClientOptions) {
    this.inner = options.inner;
    this.politeness = options.politeness;
    this.reporter = options.reporter;
    this.handovers = options.handovers;
    this.checkRedirects = options.checkRedirects;
    this.log = options.log;
    // Only beforeRequest: afterResponse would repeat the Retry-After handling done after each call.
    this.admitHooks = politeGot(options.politeness).hooks.beforeRequest;
  }

  async sendRequest<TResponseType extends keyof ResponseTypes = 'text'>(
    request: HttpRequest<TResponseType>,
  ): Promise<HttpResponse<TResponseType>> {
    await this.checkFirstUrl(String(request.url));
    const call = this.withHooks(request, 'handler');
    const response = await this.inner.sendRequest(call.request);
    await this.noticeIgnoredHooks(call, String(request.url));
    await observeStatus(this.politeness, response.url, response.statusCode, response.headers['retry-after']);
    return response;
  }

  async stream(request: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    // Only the HTTP crawlers navigate through their client: the slot can be taken at send time.
    this.handovers.navigationSeen();
    const call = this.withHooks(request, 'navigation');
    const response = await this.inner.stream(call.request, onRedirect);
    await this.noticeIgnoredHooks(call, String(request.url));
    await observeStatus(this.politeness, response.url, response.statusCode, response.headers['retry-after']);
    return response;
  }

  private withHooks<T extends HttpRequest<keyof ResponseTypes>>(request: T, kind: CallKind): HookedCall<T> {
    const given = (request.hooks ?? {}) as GotHooksLike;
    if (this.handovers.reservesAtDequeue) {
      return {
        request: { ...request, hooks: { ...given, ...this.markingHooks(given) } },
        reserving: false,
        hops: () => 0,
      };
    }
    const counter = { hop: 0 };
    const ours = this.sendHooks(given, kind, counter);
    return {
      request: { ...request, hooks: { ...given, ...ours } },
      reserving: true,
      hops: () => counter.hop,
    };
  }

  /**
   * A client that never ran our send hooks sent the request unreserved: its host keeps a full delay
   * from now, and from now on slots are reserved at dequeue.
   */
  private async noticeIgnoredHooks(call: HookedCall<unknown>, url: string): Promise<void> {
    if (!call.reserving || call.hops() > 0) return;
    if (!this.handovers.reservesAtDequeue) {
      this.handovers.hooksIgnored();
      this.log.warning(
        "politely: the crawler's HTTP client does not run got hooks; pacing slots are reserved at dequeue from now on (set reserveAt: 'dequeue')",
      );
    }
    await markStarted(this.politeness, url);
  }

  /** Pacing `send`: every hop takes its slot as it goes out. Ours run before the caller's hooks. */
  private sendHooks(given: GotHooksLike, kind: CallKind, counter: { hop: number }): GotHooksLike {
    const countHop = (): undefined => {
      counter.hop++;
      return undefined;
    };
    const admit = this.admitHooks.map(
      (hook) =>
        async (options: GotRequestOptionsLike): Promise<undefined> =>
          counter.hop > 1 && !this.checkRedirects ? undefined : hook(options),
    );
    const afterAdmit = async (options: GotRequestOptionsLike): Promise<undefined> => {
      const url = String(options.url ?? '');
      if (counter.hop > 1 && !this.checkRedirects) await markStarted(this.politeness, url);
      if (counter.hop === 1) this.markHandoverStarted(url, kind);
      return undefined;
    };
    const convert = (error: Error): Promise<Error> => this.convertRefusal(error, kind, counter.hop);
    return {
      beforeRequest: [countHop, ...admit, afterAdmit, ...(given.beforeRequest ?? [])],
      beforeError: [convert, ...(given.beforeError ?? [])],
    };
  }

  /** Pacing `dequeue`: the slot is already taken; hops report when they really went out. */
  private markingHooks(given: GotHooksLike): GotHooksLike {
    const ours: GotHooksLike = { beforeRequest: [...(given.beforeRequest ?? []), this.markStarted] };
    if (this.checkRedirects) {
      ours.beforeRedirect = [...(given.beforeRedirect ?? []), this.checkRedirect];
      ours.beforeError = [...(given.beforeError ?? []), unwrapRedirectError];
    }
    return ours;
  }

  private markHandoverStarted(url: string, kind: CallKind): void {
    if (!isHttpUrl(url)) return;
    try {
      const host = this.politeness.hostKey(url);
      this.handovers.started(host, kind === 'navigation' ? undefined : new URL(url).href);
    } catch {
      // Not a URL we pace; nothing was handed out for it.
    }
  }

  /**
   * got wraps what a hook throws in a RequestError; Crawlee would retry that. A robots.txt refusal is
   * final, so it becomes a NonRetryableError (and is reported once) before Crawlee sees it.
   */
  private async convertRefusal(error: Error, kind: CallKind, hop: number): Promise<Error> {
    const decision = getDisallowedDecision(error);
    if (!decision || decision.allowed) return error;
    if (hop > 1) {
      await this.reportRefusal(decision, 'redirect');
      return new RobotsRedirectError(decision, error);
    }
    // The first hop was checked when the request was handed out (or, for sendRequest, just before
    // got was called); robots.txt changed in between.
    if (kind === 'handler') return findDisallowedError(error) ?? error;
    await this.reportRefusal(decision, 'send');
    return new NonRetryableError(`robots.txt no longer allows ${decision.url} (${decision.reason})`, {
      cause: error,
    });
  }

  private async reportRefusal(decision: Decision, stage: 'redirect' | 'send'): Promise<void> {
    await this.reporter.skipped({
      url: decision.url,
      reason: stage === 'redirect' ? 'redirect' : (decision.reason as SkipReason),
      stage,
      decision,
      host: decision.hostKey,
    });
  }

  private readonly markStarted = async (options: { url?: URL | string }): Promise<void> => {
    await markStarted(this.politeness, String(options.url ?? ''));
  };

  private async checkFirstUrl(url: string): Promise<void> {
    if (!isHttpUrl(url)) return;
    const decision = this.politeness.checkCached(url) ?? (await this.politeness.check(url));
    if (!decision.allowed) throw new RobotsDisallowedError(decision);
  }

  private readonly checkRedirect = async (updatedOptions: { url?: URL | string }): Promise<void> => {
    const url = String(updatedOptions.url ?? '');
    if (!isHttpUrl(url)) return;
    const decision = this.politeness.checkCached(url) ?? (await this.politeness.check(url));
    if (decision.allowed) return;
    await this.reportRefusal(decision, 'redirect');
    throw new RobotsRedirectError(decision);
  };
}

/** got wraps what a hook throws in a RequestError; hand Crawlee our NonRetryableError instead. */
function unwrapRedirectError(error: Error): Error {
  return findRobotsRedirectError(error) ?? error;
}

/** The RobotsDisallowedError itself, out of got's wrapper (got 14.2.1 and later keep it as `cause`). */
function findDisallowedError(error: Error): Error | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof RobotsDisallowedError) return current;
    current = current.cause;
  }
  return undefined;
}
