/**
 * A FetchLike for core that sends robots.txt requests the way the crawl goes out: through the
 * crawler's HTTP client and its proxyConfiguration, with the bot's own User-Agent (no generated
 * browser headers), one hop at a time (core follows redirects itself), body streamed so core can cut
 * it at the byte limit. Checked for a request the HTTP client sends, robots.txt goes through that
 * request's own proxy (its session's), and core holds a robots.txt that got no answer only for
 * requests through the same proxy (`robots.route`): a retry Crawlee sends through another proxy asks
 * again through it, as its page would go. Checked outside a request (the queue's look),
 * it goes through the crawler's next proxy.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { BaseHttpClient } from '@crawlee/core';
import type { FetchLike } from '@politely/core';

export interface ProxyUrlSource {
  newUrl(): Promise<string | undefined>;
}

/**
 * The proxy a browser crawler's pages go through when it is given at launch rather than as a
 * `proxyConfiguration`: Crawlee's `launchContext.proxyUrl`, Playwright's `launchOptions.proxy`
 * (`{ server, username?, password? }`, the scheme optional) or Chromium's `--proxy-server` switch.
 * Undefined when there is none (or only a SOCKS one, which the HTTP client cannot take as a URL here).
 */
export function launchProxyOf(launchContext: unknown): ProxyUrlSource | undefined {
  if (typeof launchContext !== 'object' || launchContext === null) return undefined;
  const context = launchContext as {
    proxyUrl?: unknown;
    launchOptions?: { proxy?: { server?: unknown; username?: unknown; password?: unknown }; args?: unknown };
  };
  const launch = context.launchOptions;
  const switchValue = Array.isArray(launch?.args)
    ? launch.args.find((arg): arg is string => typeof arg === 'string' && arg.startsWith('--proxy-server='))
    : undefined;
  const given = context.proxyUrl ?? launch?.proxy?.server ?? switchValue?.slice('--proxy-server='.length);
  if (typeof given !== 'string' || given === '') return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `http://${given}`);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const { username, password } = launch?.proxy ?? {};
  if (typeof username === 'string' && url.username === '') url.username = encodeURIComponent(username);
  if (typeof password === 'string' && url.password === '') url.password = encodeURIComponent(password);
  const proxyUrl = url.href.replace(/\/$/, '');
  return { newUrl: async () => proxyUrl };
}

/** The proxy of the request whose robots.txt is checked (none: it goes direct), while it is checked. */
interface RequestRoute {
  readonly proxyUrl: string | undefined;
}

export interface RobotsRoutes {
  /** Runs `work` (a request's check and send) with robots.txt fetched through `proxyUrl`. */
  through<T>(proxyUrl: string | undefined, work: () => T): T;
  /** core's `robots.route`: the current request's proxy as a key, or undefined outside a request. */
  route(): string | undefined;
}

export function robotsRoutes(): RobotsRoutes & { current(): RequestRoute | undefined } {
  const storage = new AsyncLocalStorage<RequestRoute>();
  return {
    through: (proxyUrl, work) => storage.run({ proxyUrl }, work),
    route: () => {
      const current = storage.getStore();
      return current && (current.proxyUrl ?? 'direct');
    },
    current: () => storage.getStore(),
  };
}

export function robotsFetchThroughProxy(
  client: BaseHttpClient,
  proxies: ProxyUrlSource,
  routes?: { current(): RequestRoute | undefined },
): FetchLike {
  return async (url, init) => {
    const request = routes?.current();
    const proxyUrl = request ? request.proxyUrl : await proxies.newUrl();
    const response = await client.stream({
      url,
      method: 'GET',
      headers: init.headers,
      signal: init.signal,
      followRedirect: false,
      throwHttpErrors: false,
      useHeaderGenerator: false,
      ...(proxyUrl ? { proxyUrl } : {}),
    });
    const headers = response.headers;
    return {
      status: response.statusCode,
      headers: {
        get(name: string): string | null {
          const value = headers[name.toLowerCase()];
          if (value === undefined) return null;
          return Array.isArray(value) ? value.join(', ') : value;
        },
      },
      body: response.stream,
    };
  };
}
