/**
 * Where an origin's robots.txt lives, and which origin a URL's rules come from (RFC 9309 2.3: the
 * rules apply to the scheme, host and port they were fetched from).
 */

export interface RobotsLocation {
  /** Scheme, lower-cased host (IDN as punycode) and non-default port: `https://example.com`. */
  readonly origin: string;
  /** `${origin}/robots.txt` */
  readonly robotsUrl: string;
}

/**
 * The origin and robots.txt URL for a page URL. Default ports are folded and userinfo dropped (the
 * WHATWG URL origin does both). TypeError for an unparseable or non-http(s) URL.
 */
export function robotsLocation(url: string | URL): RobotsLocation {
  const origin = originOf(url);
  return { origin, robotsUrl: `${origin}/robots.txt` };
}

/** The origin alone (the cache key), for hot paths that need no robots.txt URL. */
export function originOf(url: string | URL): string {
  return toHttpUrl(url).origin;
}

/** True when `url` is an origin's `/robots.txt` itself, which is always fetchable (RFC 9309 2.2.2). */
export function isRobotsTxtUrl(url: string | URL): boolean {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return false;
  }
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.pathname === '/robots.txt';
}

/** Parses an absolute http(s) URL; TypeError (credentials never shown) for anything else. */
export function toHttpUrl(url: string | URL): URL {
  let parsed: URL;
  if (url instanceof URL) {
    parsed = url;
  } else if (typeof url === 'string') {
    try {
      parsed = new URL(url);
    } catch (error) {
      throw new TypeError(`Expected an absolute http(s) URL, got "${url}"`, { cause: error });
    }
  } else {
    throw new TypeError(`Expected a URL or string, got \`${String(url)}\` (${typeof url})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`Expected an http(s) URL, got "${parsed.protocol}" in "${redact(parsed)}"`);
  }
  return parsed;
}

function redact(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}
