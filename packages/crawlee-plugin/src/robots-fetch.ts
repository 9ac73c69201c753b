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
