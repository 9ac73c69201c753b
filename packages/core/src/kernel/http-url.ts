/** True for http(s) URLs: the only ones robots.txt speaks for (a data:, blob: or about: URL has no host). */
export const isHttpUrl = (url: string): boolean => url.startsWith('http://') || url.startsWith('https://');

/** `text`, resolved against `base` when relative, as an http(s) URL's href; undefined for anything else. */
export function httpHref(text: string, base?: string): string | undefined {
  try {
    const url = new URL(text, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
