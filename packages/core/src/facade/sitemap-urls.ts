/**
 * Sitemap lines as a crawler can enqueue them: absolute http(s) URLs only (the sitemaps protocol and
 * Google ask for a fully qualified URL; a relative one has no agreed base), without duplicates.
 */
export function absoluteSitemaps(lines: readonly string[]): string[] {
  const urls = new Set<string>();
  for (const line of lines) {
    if (!URL.canParse(line)) continue;
    const url = new URL(line);
    if (url.protocol === 'http:' || url.protocol === 'https:') urls.add(url.href);
  }
  return [...urls];
}
