import { sitemapUrl } from '../engine/url.js';

/**
 * Sitemap lines as a crawler can enqueue them: absolute http(s) URLs only (`sitemapUrl`; lint flags
 * the others as `sitemap-not-absolute`), without duplicates.
 */
export function absoluteSitemaps(lines: readonly string[]): string[] {
  const urls = new Set<string>();
  for (const line of lines) {
    const url = sitemapUrl(line);
    if (url !== undefined) urls.add(url);
  }
  return [...urls];
}
