/**
 * Where an origin's robots.txt lives, and which origin a URL's rules come from (RFC 9309 2.3: the
 * rules apply to the scheme, host and port they were fetched from).
 */

import { withoutCredentials } from '../kernel/redact.js';
import { shown } from '../kernel/shown.js';

export interface RobotsLocation {
  /**
   * Scheme, canonical host (see canonicalHostname) and non-default port: `https://example.com`.
   */
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
  const parsed = toHttpUrl(url);
  const host = canonicalHostname(parsed);
  // The WHATWG origin with the canonical host; ports stay as written (default ports already folded).
  return `${parsed.protocol}//${host}${parsed.port ? `:${parsed.port}` : ''}`;
}

// `[::ffff:7f00:d09]`: the WHATWG URL parser always writes an IPv4-mapped IPv6 address this way.
const IPV4_MAPPED = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;

/**
 * One host, one name: the key a host is paced by and its robots.txt origin are built from this, so a
 * server reached under two spellings gets one pace and one robots.txt fetch. The WHATWG URL parser
 * already lower-cases names, writes IDNs as punycode and any IPv4 spelling (`0x7f.1`, `2130706433`,
 * `0177.0.0.1`) as dotted decimal; on top of that a trailing dot (the DNS root, `example.com.`) is
 * dropped and an IPv4-mapped IPv6 address (`[::ffff:7f00:d09]`) becomes its IPv4 address
 * (`127.0.13.9`). Other IPv6 addresses stay as the parser wrote them, in brackets: `[::1]`.
 */
export function canonicalHostname(url: URL): string {
  const hostname = url.hostname;
  if (hostname.startsWith('[')) {
    const mapped = IPV4_MAPPED.exec(hostname);
    if (mapped) {
      const high = Number.parseInt(mapped[1] ?? '0', 16);
      const low = Number.parseInt(mapped[2] ?? '0', 16);
      return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
    }
    return hostname;
  }
  let end = hostname.length;
  while (end > 1 && hostname.charCodeAt(end - 1) === 0x2e) end--;
  return end === hostname.length ? hostname : hostname.slice(0, end);
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
    } catch {
      // No `cause`: URL's own error carries the input, credentials included.
      throw new TypeError(`Expected an absolute http(s) URL, got "${withoutCredentials(url)}"`);
    }
  } else {
    throw new TypeError(`Expected a URL or string, got ${shown(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(
      `Expected an http(s) URL, got "${parsed.protocol}" in "${withoutCredentials(parsed)}"`,
    );
  }
  return parsed;
}
