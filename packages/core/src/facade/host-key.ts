/**
 * The pacing key of a URL: which requests share one pace. By host name (default), origin, registrable
 * domain (one pace for `a.example.com` and `b.example.com`), resolved IP address (one pace for every
 * name one server answers for), or the user's function. Nutch, StormCrawler and Heritrix queue by
 * domain or IP for the same reason: one server often answers for many host names. robots.txt is
 * never grouped: it stays per origin whatever the key.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { LRUCache } from 'lru-cache';
import { getDomain } from 'tldts';
import { canonicalHostname, originOf } from '../fetch/robots-url.js';
import type { Clock } from '../schedule/types.js';

export type HostKeyOption = 'hostname' | 'origin' | 'domain' | 'ip' | ((url: URL) => string);

/** Resolves a host name to one address: `dns.promises.lookup` fits, as does any resolver you use. */
export type LookupFunction = (hostname: string) => Promise<string | { readonly address: string }>;

export interface HostKeys {
  /**
   * The key without I/O. For 'ip' that is the address when this host name was resolved (by `resolve`)
   * within the last minute, else the host name itself.
   */
  keyOf(url: URL): string;
  /** The key, resolving the host name first for 'ip' (cached; one lookup in flight per name). */
  resolve(url: URL): Promise<string>;
  /** The key `resolve` would give without I/O, or undefined when it would look the name up. */
  known(url: URL): string | undefined;
}

export interface HostKeysOptions {
  readonly option: HostKeyOption;
  readonly lookup?: LookupFunction | undefined;
  readonly clock: Clock;
  /** Told when a lookup failed and the host name is used as the key instead. */
  readonly onLookupFailed?: (hostname: string, error: unknown) => void;
}

/** A resolved address is used this long (dns.lookup gives no TTL; a minute follows DNS changes soon). */
export const ADDRESS_TTL_MS = 60_000;
/** A failed lookup is retried after this long (the host name is the key meanwhile). */
const FAILED_LOOKUP_TTL_MS = 10_000;
const MAX_NAMES = 10_000;

export function createHostKeys(options: HostKeysOptions): HostKeys {
  const { option, clock } = options;
  if (option === 'hostname') return fixed(canonicalHostname);
  if (option === 'origin') return fixed(originOf);
  if (option === 'domain') return fixed(registrableDomain);
  if (typeof option === 'function') return fixed(option);
  return addressKeys(options);
  function fixed(keyOf: (url: URL) => string): HostKeys {
    return { keyOf, resolve: async (url) => keyOf(url), known: keyOf };
  }
  function addressKeys({ lookup = defaultLookup, onLookupFailed }: HostKeysOptions): HostKeys {
    const known = new LRUCache<string, { key: string; until: number }>({ max: MAX_NAMES });
    const inFlight = new Map<string, Promise<string>>();
    const cached = (hostname: string) => {
      const entry = known.get(hostname);
      return entry && entry.until > clock.now() ? entry.key : undefined;
    };
    const keyOf = (url: URL) => {
      const hostname = canonicalHostname(url);
      if (isIpLiteral(hostname)) return hostname;
      return cached(hostname) ?? hostname;
    };
    const look = async (hostname: string): Promise<string> => {
      try {
        const found = await lookup(hostname);
        const key = canonicalAddress(typeof found === 'string' ? found : found.address);
        known.set(hostname, { key, until: clock.now() + ADDRESS_TTL_MS });
        return key;
      } catch (error) {
        // The request itself will meet the same trouble; pacing by name keeps it polite meanwhile.
        known.set(hostname, { key: hostname, until: clock.now() + FAILED_LOOKUP_TTL_MS });
        onLookupFailed?.(hostname, error);
        return hostname;
      }
    };
    return {
      keyOf,
      known(url) {
        const hostname = canonicalHostname(url);
        return isIpLiteral(hostname) ? hostname : cached(hostname);
      },
      async resolve(url) {
        const hostname = canonicalHostname(url);
        if (isIpLiteral(hostname)) return hostname;
        const hit = cached(hostname);
        if (hit !== undefined) return hit;
        let pending = inFlight.get(hostname);
        if (pending === undefined) {
          pending = look(hostname).finally(() => inFlight.delete(hostname));
          inFlight.set(hostname, pending);
        }
        return pending;
      },
    };
  }
}

const defaultLookup: LookupFunction = (hostname) => dnsLookup(hostname);

/**
 * The registrable domain by the Public Suffix List (tldts), private section included: `a.github.io`
 * and `b.github.io` belong to different people and are paced apart, as browsers keep their cookies
 * apart. IP addresses, `localhost` and other names with no registrable domain keep their host name.
 */
export function registrableDomain(url: URL): string {
  const hostname = canonicalHostname(url);
  if (isIpLiteral(hostname)) return hostname;
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || IPV4.test(hostname);
}

/** An address as canonicalHostname spells it, so `::ffff:127.0.0.2` and `127.0.0.2` are one key. */
function canonicalAddress(address: string): string {
  const literal = address.includes(':') ? `[${address}]` : address;
  try {
    return canonicalHostname(new URL(`http://${literal}/`));
  } catch {
    return address;
  }
}
