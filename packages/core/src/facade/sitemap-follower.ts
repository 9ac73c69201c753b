/**
 * `createSitemapFollower(politeness, options)`: for each origin a crawl meets, once, the Sitemap URLs
 * its robots.txt lists (`politeness.sitemaps`, from the cache) are downloaded and the pages they list
 * are handed to the caller, who adds them to its queue (where they are checked and paced like any
 * other URL). What needs a library stays the caller's: `download` (its polite client, so the files
 * are checked against robots.txt, paced and sent with the bot's User-Agent) and `parseXml` (its XML
 * parser); core unpacks gzip and reads the text format itself.
 *
 * Limits keep a hostile or huge sitemap from flooding the queue or the memory: pages on the origin's
 * own hostname only (the sitemaps protocol's rule, sitemaps.org "Sitemap file location"), at most
 * `maxFiles` files and `maxUrls` pages per origin, `maxFileBytes` per file once unpacked (a gzip bomb
 * stops there), `maxOrigins` origins remembered.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { isHttpUrl } from '../kernel/http-url.js';
import {
  assertPoliteness,
  CONSOLE_LOGGER,
  checkOptions,
  functionOption,
  loggerOption,
  numberOption,
  type OptionTable,
} from '../kernel/option-table.js';
import type { Logger, Politeness } from './types.js';

const gunzipBounded = promisify(gunzip);

/** One entry of a sitemap file. */
export interface SitemapEntry {
  readonly loc: string;
  /** True: the entry names another sitemap file (a sitemap index's `<sitemap>`), followed in turn. */
  readonly isSitemap: boolean;
}

/** The pages one origin's sitemaps list, deduplicated, on the origin's hostname. */
export interface SitemapPages {
  readonly origin: string;
  readonly urls: string[];
}

export interface SitemapFollowerOptions {
  /**
   * Downloads one sitemap file through the caller's polite client: its body (bytes, gzipped or
   * not, or text), or undefined when there is none to read (not a 2xx). A rejection is logged and
   * the file skipped.
   */
  readonly download: (url: string) => Promise<Uint8Array | string | undefined>;
  /**
   * The entries of an XML sitemap or sitemap index (content starting with `<`); the text format
   * (one URL a line) is read by core. A rejection or a throw mid-way is logged; the entries read
   * before it are kept.
   */
  readonly parseXml: (input: {
    readonly content: string;
    readonly url: string;
  }) => AsyncIterable<SitemapEntry> | Iterable<SitemapEntry>;
  /** An origin's pages, once all its sitemap files are read (not called when there are none). Awaited; a rejection is logged. */
  readonly onPages: (pages: SitemapPages) => unknown;
  /** Sitemap files downloaded per origin at most, sitemap index entries included. Default 50. */
  readonly maxFiles?: number;
  /** Pages per origin at most. Default 50,000 (the protocol's limit for one file). */
  readonly maxUrls?: number;
  /** Bytes of one file at most, unpacked: a larger file is skipped. Default 52428800 (50 MiB, the protocol's limit). */
  readonly maxFileBytes?: number;
  /** Origins remembered as followed; past this many the memory starts over. Default 10,000. */
  readonly maxOrigins?: number;
  /** Where failures are told (a file not loaded: debug; a failing callback: warn). Default: console warnings; false: silent. */
  readonly logger?: Logger | false;
}

export interface SitemapFollower {
  /**
   * A URL the crawl met: for the first http(s) URL of its origin, the task that follows the origin's
   * sitemaps and hands their pages to `onPages` (it never rejects: failures are logged). Undefined
   * for an origin already met, and for a URL that is not http(s) or not a URL at all.
   */
  meet(url: string | URL): Promise<void> | undefined;
}

type Options = SitemapFollowerOptions;

/** Every option, kept in step with SitemapFollowerOptions by the compiler. */
const OPTIONS = {
  download: functionOption<Options['download']>('a function', { required: true }),
  parseXml: functionOption<Options['parseXml']>('a function', { required: true }),
  onPages: functionOption<Options['onPages']>('a function', { required: true }),
  maxFiles: numberOption({ min: 1, integer: true, default: 50 }),
  maxUrls: numberOption({ min: 1, integer: true, default: 50_000 }),
  maxFileBytes: numberOption({ min: 1, integer: true, default: 50 * 1024 * 1024 }),
  maxOrigins: numberOption({ min: 1, integer: true, default: 10_000 }),
  logger: loggerOption<Logger>({ default: CONSOLE_LOGGER }),
} as const satisfies OptionTable<SitemapFollowerOptions>;

export function createSitemapFollower(
  politeness: Politeness,
  options: SitemapFollowerOptions,
): SitemapFollower {
  assertPoliteness<Politeness>(politeness, ['sitemaps']);
  const valid = checkOptions('sitemap follower', OPTIONS, options);
  const { download, parseXml, onPages, maxFiles, maxUrls, maxFileBytes, maxOrigins } = valid;
  const logger = valid.logger || undefined;
  const seen = new Set<string>();

  /** One file's text: downloaded, unpacked when gzipped (`sitemap.xml.gz` served as is), bounded. */
  async function load(url: string): Promise<string | undefined> {
    try {
      const body = await download(url);
      if (body === undefined) {
        logger?.debug?.('sitemap not loaded', { url });
        return undefined;
      }
      if (typeof body !== 'string') return await decode(body, maxFileBytes);
      if (body.length > maxFileBytes) throw new RangeError(`larger than maxFileBytes (${maxFileBytes})`);
      return body;
    } catch (error) {
      logger?.debug?.('sitemap not loaded', { url, error: String(error) });
      return undefined;
    }
  }

  async function follow(origin: URL): Promise<void> {
    let files: string[];
    try {
      files = await politeness.sitemaps(origin.origin);
    } catch (error) {
      logger?.warn('sitemaps not read', { origin: origin.origin, error: String(error) });
      return;
    }
    // Files to fetch, bounded by maxFiles: a hostile index naming millions of files holds no more.
    const queue = new Set(files.slice(0, maxFiles));
    const pages = new Set<string>();
    for (const url of queue) {
      if (pages.size >= maxUrls) break;
      const content = await load(url);
      if (content === undefined) continue;
      try {
        for await (const entry of entriesOf(content, url, parseXml)) {
          if (typeof entry?.loc !== 'string') continue;
          if (entry.isSitemap) {
            if (queue.size < maxFiles) queue.add(entry.loc);
          } else if (sameHostname(entry.loc, origin)) {
            pages.add(entry.loc);
            if (pages.size >= maxUrls) break;
          }
        }
      } catch (error) {
        logger?.debug?.('sitemap not parsed', { url, error: String(error) });
      }
    }
    if (pages.size === 0) return;
    try {
      await onPages({ origin: origin.origin, urls: [...pages] });
    } catch (error) {
      logger?.warn('onPages failed', { origin: origin.origin, error: String(error) });
    }
  }

  return {
    meet(url) {
      const href = String(url);
      if (!URL.canParse(href)) return undefined;
      const origin = new URL(href);
      if (!isHttpUrl(origin.href) || seen.has(origin.origin)) return undefined;
      if (seen.size >= maxOrigins) seen.clear();
      seen.add(origin.origin);
      return follow(origin);
    },
  };
}

/** Bytes as text: gunzipped first when they start with gzip's magic number, never past `maxBytes`. */
async function decode(body: Uint8Array, maxBytes: number): Promise<string> {
  const gzipped = body[0] === 0x1f && body[1] === 0x8b;
  // maxOutputLength makes zlib stop (and reject) at the bound instead of inflating a bomb in full.
  const bytes = gzipped ? await gunzipBounded(body, { maxOutputLength: maxBytes }) : body;
  if (bytes.byteLength > maxBytes) throw new RangeError(`larger than maxFileBytes (${maxBytes})`);
  return new TextDecoder().decode(bytes);
}

/** An XML file's entries from the caller's parser; the text format's (one URL a line) read here. */
function entriesOf(
  content: string,
  url: string,
  parseXml: SitemapFollowerOptions['parseXml'],
): AsyncIterable<SitemapEntry> | Iterable<SitemapEntry> {
  if (content.trimStart().startsWith('<')) return parseXml({ content, url });
  return (function* () {
    for (const line of content.split(/\r?\n/)) {
      const loc = line.trim();
      if (/^https?:\/\//.test(loc)) yield { loc, isSitemap: false };
    }
  })();
}

function sameHostname(url: string, origin: URL): boolean {
  return URL.canParse(url) && new URL(url).hostname === origin.hostname;
}
