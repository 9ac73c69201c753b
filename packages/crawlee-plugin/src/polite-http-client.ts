/**
 * Decorates the crawler's HTTP client (navigation of the HTTP crawlers and `context.sendRequest`):
 * - every redirect hop is checked against robots.txt before it is followed (a got `beforeRedirect`
 *   hook, which runs before the next hop is requested);
 * - when a request really goes out (got `beforeRequest`, per hop), the host's next slot is pushed to
 *   at least one delay after that moment (see pacing-feedback.ts);
 * - 429/503 responses with Retry-After are fed back to the scheduler.
 * Navigation (`stream`) starts at a URL the request manager already checked and paced; a
 * `sendRequest` from a handler may go anywhere, so its first URL is checked here too.
 */
import type {
  BaseHttpClient,
  HttpRequest,
  HttpResponse,
  RedirectHandler,
  ResponseTypes,
  StreamingHttpResponse,
} from '@crawlee/core';
import { type Politeness, RobotsDisallowedError } from '@politely/core';
import { markStarted, observeStatus } from './pacing-feedback.js';
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
    await this.checkFirstUrl(String(request.url));
    const response = await this.inner.sendRequest(this.withHooks(request));
    await observeStatus(this.politeness, response.url, response.statusCode, response.headers['retry-after']);
    return response;
  }

  async stream(request: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    const response = await this.inner.stream(this.withHooks(request), onRedirect);
    await observeStatus(this.politeness, response.url, response.statusCode, response.headers['retry-after']);
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
    await markStarted(this.politeness, String(options.url ?? ''));
  };

  private async checkFirstUrl(url: string): Promise<void> {
    if (!url.startsWith('http://') && !url.startsWith('https://')) return;
    const decision = this.politeness.checkCached(url) ?? (await this.politeness.check(url));
    if (!decision.allowed) throw new RobotsDisallowedError(decision);
  }

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
}

/** got wraps what a hook throws in a RequestError; hand Crawlee our NonRetryableError instead. */
function unwrapRedirectError(error: Error): Error {
  return findRobotsRedirectError(error) ?? error;
}
