/**
 * Decorates the crawler's HTTP client (navigation of the HTTP crawlers and `context.sendRequest`):
 * - every redirect hop is checked against robots.txt before it is followed (a got `beforeRedirect`
 *   hook, which runs before the next hop is requested);
 * - when a request really goes out (got `beforeRequest`, per hop), the host's next slot is pushed to
 *   at least one delay after that moment: the slot was reserved at dequeue, and the crawler may send
 *   later than that (session, hooks, a cold client), which must not shorten the gap the server sees;
 * - 429/503 responses with Retry-After are fed back to the scheduler.
 * The first URL was already checked and paced by the request manager.
 */
import type {
  BaseHttpClient,
  HttpRequest,
  HttpResponse,
  RedirectHandler,
  ResponseTypes,
  StreamingHttpResponse,
} from '@crawlee/core';
import type { Politeness } from '@politely/core';
import { findRobotsRedirectError, RobotsRedirectError } from './redirect-error.js';
import type { Reporter } from './reporter.js';

interface GotHooksLike {
  beforeRequest?: unknown[];
  beforeRedirect?: unknown[];
  beforeError?: unknown[];
  [name: string]: unknown;
}

export class PoliteHttpClient implements BaseHttpClient {
  constructor(
    private readonly inner: BaseHttpClient,
    private readonly politeness: Politeness,
    private readonly reporter: Reporter,
    private readonly checkRedirects: boolean,
  ) {}

  async sendRequest<TResponseType extends keyof ResponseTypes = 'text'>(
    request: HttpRequest<TResponseType>,
  ): Promise<HttpResponse<TResponseType>> {
    const response = await this.inner.sendRequest(this.withHooks(request));
    await this.observe(response.url, response.statusCode, response.headers['retry-after']);
    return response;
  }

  async stream(request: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    const response = await this.inner.stream(this.withHooks(request), onRedirect);
    await this.observe(response.url, response.statusCode, response.headers['retry-after']);
    return response;
  }

  private withHooks<T extends HttpRequest<keyof ResponseTypes>>(request: T): T {
    const hooks = (request.hooks ?? {}) as GotHooksLike;
    const ours: GotHooksLike = { beforeRequest: [...(hooks.beforeRequest ?? []), this.markStarted] };
    if (this.checkRedirects) {
      ours.beforeRedirect = [...(hooks.beforeRedirect ?? []), this.checkRedirect];
      ours.beforeError = [...(hooks.beforeError ?? []), unwrapRedirectError];
    }
    return { ...request, hooks: { ...hooks, ...ours } };
  }

  private readonly markStarted = async (options: { url?: URL | string }): Promise<void> => {
    const url = String(options.url ?? '');
    if (!url.startsWith('http://') && !url.startsWith('https://')) return;
    const decision = this.politeness.checkCached(url);
    if (!decision?.allowed || decision.delayMs <= 0) return;
    try {
      await this.politeness.scheduler.penalize(decision.hostKey, decision.delayMs);
    } catch {
      // Pacing bookkeeping is best effort; it never fails the page.
    }
  };

  private readonly checkRedirect = async (updatedOptions: { url?: URL | string }): Promise<void> => {
    const url = String(updatedOptions.url ?? '');
    if (!url.startsWith('http://') && !url.startsWith('https://')) return;
    const decision = this.politeness.checkCached(url) ?? (await this.politeness.check(url));
    if (decision.allowed) return;
    await this.reporter.skipped({
      url,
      reason: 'redirect',
      stage: 'redirect',
      decision,
      host: decision.hostKey,
    });
    throw new RobotsRedirectError(decision);
  };

  private async observe(
    url: string,
    status: number,
    retryAfter: string | string[] | undefined,
  ): Promise<void> {
    if (status < 400) return;
    const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    try {
      await this.politeness.observeResponse(url, status, header ?? null);
    } catch {
      // Backoff is best effort; a failing scheduler never fails the page.
    }
  }
}

/** got wraps what a hook throws in a RequestError; hand Crawlee our NonRetryableError instead. */
function unwrapRedirectError(error: Error): Error {
  return findRobotsRedirectError(error) ?? error;
}
