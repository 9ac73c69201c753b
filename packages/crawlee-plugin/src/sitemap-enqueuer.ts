/**
 * `enqueueSitemaps: true`: for each origin the crawl meets, the Sitemap URLs its robots.txt lists
 * (`politeness.sitemaps`, from the cache) are fetched and the pages they list are added to the queue,
 * where they are checked and paced like any other request.
 *
 * The sitemap files themselves go out through the crawler's decorated HTTP client, so they are
 * checked against robots.txt, paced with the host's other requests and carry the bot's User-Agent
 * (Crawlee's own `Sitemap.load` would fetch them with got-scraping directly, unpaced). A gzipped
 * file (`sitemap.xml.gz`, served as is) is unpacked here; its content is read by Crawlee's parser
 * (`parseSitemap` from @crawlee/utils: XML and sitemap indexes) or as the text format, one file at a
 * time; the files a sitemap index names are fetched the same way.
 *
 * Limits keep a hostile or huge sitemap from flooding the queue: pages on the origin's own hostname
 * only (the sitemaps protocol's rule), at most MAX_FILES files and MAX_URLS pages per origin.
 */
import { gunzipSync } from 'node:zlib';
import type { BaseHttpClient, Log } from '@crawlee/core';
import { parseSitemap } from '@crawlee/utils';
import type { Politeness } from '@politely/core';

const MAX_FILES = 50;
const MAX_URLS = 50_000;
/** The sitemaps protocol's limit for one file, uncompressed: a larger gzip is not unpacked. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** Origins remembered as "sitemaps enqueued"; past this many the memory starts over. */
const ORIGIN_MEMORY = 10_000;

export interface SitemapEnqueuerOptions {
  readonly politeness: Politeness;
  /** The crawler's decorated client: every sitemap file is checked and paced as it goes out. */
  readonly client: BaseHttpClient;
  /** Adds page URLs to the crawl's queue (filtered on enqueue like any other add). */
  readonly add: (urls: string[]) => Promise<unknown>;
  readonly log: Log;
}

export class SitemapEnqueuer {
  private readonly seen = new Set<string>();

  constructor(private readonly options: SitemapEnqueuerOptions) {}

  /** A request was met: for the first of its origin, the task that enqueues the origin's sitemaps. */
  met(url: string): Promise<void> | undefined {
    let origin: URL;
    try {
      origin = new URL(url);
    } catch {
      return undefined;
    }
    if (this.seen.has(origin.origin) || !/^https?:$/.test(origin.protocol)) return undefined;
    if (this.seen.size >= ORIGIN_MEMORY) this.seen.clear();
    this.seen.add(origin.origin);
    return this.enqueue(origin);
  }

  private async enqueue(origin: URL): Promise<void> {
    const sitemaps = await this.options.politeness.sitemaps(origin.origin);
    const queue = [...sitemaps];
    const pages = new Set<string>();
    for (let files = 0; queue.length > 0 && files < MAX_FILES && pages.size < MAX_URLS; files++) {
      const sitemapUrl = queue.shift() as string;
      const content = await this.download(sitemapUrl);
      if (content === undefined) continue;
      for await (const item of entriesOf(content)) {
        if (item.originSitemapUrl === null) queue.push(item.loc);
        else if (sameHostname(item.loc, origin) && pages.size < MAX_URLS) pages.add(item.loc);
      }
    }
    if (pages.size > 0) await this.options.add([...pages]);
  }

  /** One sitemap file through the polite client; undefined (logged) when it cannot be had. */
  private async download(url: string): Promise<string | undefined> {
    try {
      const response = await this.options.client.sendRequest({ url, responseType: 'buffer' });
      if (response.statusCode >= 200 && response.statusCode < 300) {
        const body = Buffer.from(response.body);
        const gzipped = body[0] === 0x1f && body[1] === 0x8b;
        return (gzipped ? gunzipSync(body, { maxOutputLength: MAX_FILE_BYTES }) : body).toString('utf8');
      }
      this.options.log.debug('politely: sitemap not loaded', { url, status: response.statusCode });
    } catch (error) {
      this.options.log.debug('politely: sitemap not loaded', { url, error: String(error) });
    }
    return undefined;
  }
}

/**
 * The entries of one sitemap file: Crawlee's XML parser (a nested sitemap has `originSitemapUrl`
 * null; maxDepth 0 keeps the parser from fetching it itself), or one URL a line for the text format.
 */
function entriesOf(content: string): AsyncIterable<{ loc: string; originSitemapUrl: string | null }> {
  if (content.trimStart().startsWith('<')) {
    return parseSitemap([{ type: 'raw', content }], undefined, {
      emitNestedSitemaps: true,
      maxDepth: 0,
      reportNetworkErrors: false,
    });
  }
  const lines = content.split(/\r?\n/).map((line) => line.trim());
  return (async function* () {
    for (const loc of lines) if (/^https?:\/\//.test(loc)) yield { loc, originSitemapUrl: 'text' };
  })();
}

function sameHostname(url: string, origin: URL): boolean {
  try {
    return new URL(url).hostname === origin.hostname;
  } catch {
    return false;
  }
}
