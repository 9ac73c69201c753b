/**
 * `enqueueSitemaps: true`: core's sitemap follower (`createSitemapFollower`: once per origin, the
 * Sitemap URLs robots.txt lists, gzip, the text format, the limits) with Crawlee's two parts: the
 * crawler's decorated HTTP client, so the files are checked against robots.txt, paced with the
 * host's other requests and carry the bot's User-Agent (Crawlee's own `Sitemap.load` would fetch
 * them with got-scraping directly, unpaced), and Crawlee's XML parser (`parseSitemap` from
 * @crawlee/utils, sitemap indexes included).
 */
import type { BaseHttpClient, Log } from '@crawlee/core';
import { parseSitemap } from '@crawlee/utils';
import type { Politeness } from '@politely/core';
import { createSitemapFollower, type SitemapFollower } from '@politely/core/fetch';

export interface SitemapEnqueuerOptions {
  readonly politeness: Politeness;
  /** The crawler's decorated client: every sitemap file is checked and paced as it goes out. */
  readonly client: BaseHttpClient;
  /** Adds page URLs to the crawl's queue (filtered on enqueue like any other add). */
  readonly add: (urls: string[]) => Promise<unknown>;
  readonly log: Log;
}

export type SitemapEnqueuer = SitemapFollower;

export function sitemapEnqueuer({ politeness, client, add, log }: SitemapEnqueuerOptions): SitemapEnqueuer {
  return createSitemapFollower(politeness, {
    download: async (url) => {
      const response = await client.sendRequest({ url, responseType: 'buffer' });
      if (response.statusCode >= 200 && response.statusCode < 300) return response.body;
      log.debug('politely: sitemap not loaded', { url, status: response.statusCode });
      return undefined;
    },
    // A nested sitemap has `originSitemapUrl` null; maxDepth 0 keeps the parser from fetching it itself.
    parseXml: async function* ({ content }) {
      const options = { emitNestedSitemaps: true, maxDepth: 0, reportNetworkErrors: false } as const;
      for await (const item of parseSitemap([{ type: 'raw', content }], undefined, options)) {
        yield { loc: item.loc, isSitemap: item.originSitemapUrl === null };
      }
    },
    onPages: ({ urls }) => add(urls),
    logger: {
      debug: (message, data) => log.debug(`politely: ${message}`, data),
      warn: (message, data) => log.warning(`politely: ${message}`, data),
    },
  });
}
