/** True for http(s) URLs: the only ones robots.txt speaks for (a data:, blob: or about: URL has no host). */
export const isHttpUrl = (url: string): boolean => url.startsWith('http://') || url.startsWith('https://');
