/**
 * A FetchLike for core that sends robots.txt requests the way the crawl goes out: through the
 * crawler's HTTP client and its proxyConfiguration, with the bot's own User-Agent (no generated
 * browser headers), one hop at a time (core follows redirects itself), body streamed so core can cut
 * it at the byte limit.
 */
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

export function robotsFetchThroughProxy(client: BaseHttpClient, proxies: ProxyUrlSource): FetchLike {
  return async (url, init) => {
    const proxyUrl = await proxies.newUrl();
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
