/**
 * The one options object that createPoliteness, politeGot and withPoliteness all accept.
 * Validated once by `resolveOptions`; everything downstream sees the resolved, readonly form.
 *
 * One table, OPTION_SCHEMA, says for every option how a value is checked and what it is when left
 * out, in the kernel's one options mechanism (kernel/option-table.ts, which every factory uses); the
 * resolved type, the defaults and the list of known names all come from it. The table is checked
 * against PolitenessOptions with `satisfies`, so an option missing from the table, or a table entry
 * that is no option, is a compile error (docs/architecture.md, "An option").
 *
 * What crawler authors set most is at the top, the rest under `robots`, `pacing`, `memory` and
 * `metrics`, each group a nested table of its own. The grouping stops here: resolveOptions flattens
 * the checked groups back to one name per option (FLAT_NAMES), which the internals read. An old flat
 * name given at the top is refused with its new place; no shim reads it.
 */

import { productTokenOf } from '../engine/agent.js';
import { PARSE_OPTIONS } from '../engine/options.js';
import type { ParseOptions } from '../engine/types.js';
import { USAGE_PURPOSES, type UsagePurpose } from '../engine/usage.js';
import type { FetchLike } from '../fetch/types.js';
import type { KeyvLike, RedisClientLike } from '../kernel/clients.js';
import type { Clock } from '../kernel/clock.js';
import type { PolitelyEvent } from '../kernel/events.js';
import {
  badOption,
  booleanOption,
  CONSOLE_LOGGER,
  checkOptions,
  clockOption,
  defaultsOf,
  functionOption,
  loggerOption,
  methodsOption,
  nestedOption,
  numberOption,
  type OptionTable,
  oneOf,
  option,
  pickOptions,
  type ResolvedOf,
} from '../kernel/option-table.js';
import type { MeterProviderLike } from '../metrics/otel-api.js';
import type { Scheduler } from '../schedule/types.js';
import type { HostKeyOption, LookupFunction } from './host-key.js';
import type { Logger } from './types.js';

export type { RedisClientLike } from '../kernel/clients.js';

export interface PolitenessOptions {
  /** Required. The User-Agent header sent for robots.txt, e.g. `MyBot/1.0 (+https://example.com/bot)`. */
  userAgent: string;
  /** The token matched against robots.txt groups. Default: the product token of `userAgent` (`MyBot`). */
  productToken?: string;
  /**
   * Adapters set the User-Agent header of the requests they pace (`@politely/fetch`, `@politely/got`)
   * to `userAgent` when the caller set none, so the site sees the name robots.txt was read for
   * (RFC 9309 2.2.1). Default true. robots.txt requests always carry `userAgent`.
   */
  sendUserAgent?: boolean;
  /**
   * Robots.txt cache store: a Keyv 5/6 instance or Keyv-shaped object. With the memory scheduler it
   * also keeps each host's pace (see `pacing.persistPace`), so a restarted crawler keeps its spacing.
   * For a fleet on Redis, `createKeyv('redis://…')` from `@keyv/redis`: the default scheduler then paces
   * every process there too (a URL string is refused, saying so). Default: in-memory LRU, and a
   * restart forgets every host's pace.
   */
  store?: KeyvLike;
  /**
   * Per-host pacing backend. `'auto'` (default): Redis when `store` is a Keyv on `@keyv/redis`, else memory.
   * `'memory'`, a node-redis/ioredis client (fleet-wide), or a custom Scheduler.
   */
  scheduler?: 'auto' | 'memory' | Scheduler | RedisClientLike;
  /**
   * What the crawl is for: 'search', 'ai-input' or 'ai-train'. A URL whose AI usage preferences
   * (robots.txt Content-Usage / Content-Signal, a response's Content-Usage header) say no for it is
   * refused (reason 'usage-refused'). 'ai-train' and 'ai-input' are text and data mining: each
   * origin's /.well-known/tdmrep.json (W3C TDMRep) is read too, and what it, a tdm-reservation
   * header or meta tag reserves is refused (reason 'tdm-reserved'). Default: none, so robots.txt
   * Allow/Disallow alone decides.
   */
  purpose?: UsagePurpose | undefined;
  /** Receives every event (robots fetches, decisions, backoffs, store and scheduler trouble). */
  onEvent?: (event: PolitelyEvent) => void;
  /** Where warnings go. Default: console.warn for warnings only. `false` silences. */
  logger?: Logger | false;
  /** How robots.txt is fetched, cached and read: its fetch, limits, freshness and the RFC 9309 policy. */
  robots?: RobotsOptions;
  /** How requests to one host are spaced: delays, Crawl-delay, backoff, rate-limit headers, host grouping. */
  pacing?: PacingOptions;
  /** What the rules of robots.txt and tdmrep.json kept in process memory may hold. */
  memory?: MemoryOptions;
  /** OpenTelemetry metrics (docs/metrics.md): on or off, which MeterProvider, whether hosts are named. */
  metrics?: MetricsOptions;
}

/** `robots: { ... }` of PolitenessOptions: fetching, caching and reading robots.txt. */
export interface RobotsOptions {
  /** Fetch function for robots.txt (e.g. through a proxy). Default: Node's fetch. */
  fetch?: FetchLike | undefined;
  /**
   * The route (a proxy, say) by which the request being checked goes out, as a key, when `fetch`
   * sends its robots.txt the same way; undefined outside a request. A robots.txt that got no answer
   * at all (refused, reset, a timeout) is then held for the retry (1 s, doubling) only for requests
   * going the same route, or none: one going another route asks again, through its own, as it
   * would send its page. Without it, a transport failure holds the origin for every request.
   */
  route?: (() => string | undefined) | undefined;
  /** robots.txt fetch timeout, whole fetch including body, in ms. Default 10000. */
  timeoutMs?: number;
  /** robots.txt bytes read at most. Default 512000 (RFC 9309 2.5). */
  maxBytes?: number;
  /** Redirect hops followed for robots.txt. Default 5 (RFC 9309 2.3.1.2). */
  maxRedirects?: number;
  /** How long a fetched robots.txt is fresh, in ms (Cache-Control max-age may shorten it). Default 86400000 (24 h). */
  cacheTtlMs?: number;
  /**
   * The shortest freshness whatever the site's Cache-Control or Expires says (`max-age=0`, `no-cache`,
   * `no-store`: the rules fetched are still used this long), in ms, clamped to `cacheTtlMs`; also the
   * shortest retry delay after robots.txt was unreachable. Default 60000.
   */
  minTtlMs?: number;
  /** How long a good copy is kept for use while robots.txt is unreachable, in ms. Default 2592000000 (30 days). */
  staleTtlMs?: number;
  /** First retry delay after robots.txt was unreachable, in ms; doubles per failure up to 1 h. Default 60000. */
  unreachableRetryMs?: number;
  /** 401/403 for robots.txt: 'allow' (RFC 9309: unavailable) or 'disallow'. Default 'allow'. */
  onUnauthorized?: 'allow' | 'disallow';
  /** Unreachable robots.txt with no good copy: 'disallow' (RFC 9309) or 'allow'. Default 'disallow'. */
  onUnreachable?: 'disallow' | 'allow';
  /**
   * A robots.txt that stays unreachable (5xx, 429, network errors): 'rfc' (default) disallows all, with
   * a good copy up to `staleTtlMs` old standing in at once (RFC 9309 2.3.1.4); 'google' follows Google's
   * timeline: 12 h disallow all, then the last good copy (none: `onUnreachable`) up to 30 days, then
   * allow all if the site's home page answers, else disallow all. Each phase is an `unreachable-phase` event.
   */
  unreachablePolicy?: 'rfc' | 'google';
  /**
   * Seed-compatibility parse options (precedence, wildcards, agentMatching, percentEncoding: `'google'`
   * compares `%XX` literally as Google does). Default: RFC 9309.
   */
  parse?: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>;
}

/** `pacing: { ... }` of PolitenessOptions: the spacing of requests to one host. */
export interface PacingOptions {
  /** Smallest start-to-start gap per host, in ms, at most 86400000 (a day, as every delay option). Default 1000. */
  minDelayMs?: number;
  /** Honour Crawl-delay from robots.txt. Default true. */
  respectCrawlDelay?: boolean;
  /** Largest Crawl-delay honoured, in ms, at most 86400000. Default 30000. */
  maxCrawlDelayMs?: number;
  /** What to do when Crawl-delay is above maxCrawlDelayMs: skip the host's URLs, or cap the delay. Default 'skip'. */
  crawlDelayAboveMax?: 'skip' | 'cap';
  /** A blocking wait (got) longer than this rejects at once with WaitTooLongError. Default 60000. */
  maxWaitMs?: number;
  /**
   * Requests in flight to one host at most, from the moment each is sent to the end of its body
   * (in this process, and across the fleet with Redis), on top of start spacing. Default 1;
   * `Infinity` lifts the cap.
   */
  maxConcurrentPerHost?: number;
  /**
   * Largest Retry-After backoff honoured, in ms, at most 86400000 (a day: a host held longer is put
   * off, which is the crawl's business, not a pace to keep). Default 600000 (10 min).
   */
  maxBackoffMs?: number;
  /**
   * Latency-aware pacing (Heritrix's delayFactor): a host's delay is at least this many times its
   * recent time to response headers, as the adapters measure it. Default 2: the crawler keeps a slow
   * server busy at most a third of the time. 0 turns it off. Never lowers minDelayMs or Crawl-delay.
   */
  latencyFactor?: number;
  /**
   * Largest delay latency and error signals (5xx, 429, timeouts) may raise a host's pace to, in ms;
   * minDelayMs and Crawl-delay are honoured above it; at most 86400000. Default 60000, the same as maxWaitMs: a host
   * slowed to the most never makes a blocking wait fail, and a minute between requests is a host left
   * alone. 0 turns every signal off.
   */
  maxDelayMs?: number;
  /**
   * Pace a host by its rate-limit headers (`RateLimit` / `RateLimit-Policy` of
   * draft-ietf-httpapi-ratelimit-headers, the older `RateLimit-*` and `X-RateLimit-*`): what remains
   * of its quota is spread over the time to its reset, never faster than minDelayMs or Crawl-delay.
   * Default true (it only ever slows); false when the quota is not yours to keep (e.g. negotiated higher).
   */
  rateLimitHeaders?: boolean;
  /**
   * Longest spacing between a host's requests its rate-limit headers may ask for before
   * rateLimitAboveMax decides what happens, in ms, at most 86400000. Default 30000, as maxCrawlDelayMs: a site that
   * wants more than 30 s between requests is one a crawl should hear about, not sit behind unseen.
   */
  maxRateLimitDelayMs?: number;
  /**
   * While a host's rate-limit headers ask for more than maxRateLimitDelayMs between requests (until
   * their reset, at most maxBackoffMs): 'wait' (default) paces the host as asked; 'skip' refuses its
   * URLs (a disallowed decision, reason 'rate-limited', thrown as RobotsDisallowedError), 'fail'
   * rejects their pacing slot with WaitTooLongError; neither holds the host's other requests back
   * meanwhile. Said once per host by a 'rate-limit-above-max' event and a warning. `@politely/crawlee`
   * defaults to 'skip'.
   */
  rateLimitAboveMax?: 'wait' | 'skip' | 'fail';
  /**
   * Which requests share one pace: the URL's `'hostname'` (default), its `'origin'`, its registrable
   * `'domain'` (Public Suffix List: `a.example.com` and `b.example.com` share one pace), the `'ip'`
   * address its host name resolves to (one pace for every name a server answers for), or your
   * function. robots.txt stays per origin whatever the grouping.
   */
  hostKey?: HostKeyOption;
  /**
   * The DNS lookup `hostKey: 'ip'` resolves host names with (cached a minute, one lookup in flight per
   * name). Default: `dns.promises.lookup`. Pass the resolver your HTTP client uses, if it has its own.
   */
  lookup?: LookupFunction | undefined;
  /**
   * With a `store` and the memory scheduler, keep each host's next allowed start in the store, written
   * before the request leaves (batched), so a crawler killed and started again sends nothing to a host
   * (robots.txt included) closer than its delay to the last request before the kill. Without a store
   * there is nothing to keep it in; with Redis the pace already lives in Redis. Default true.
   */
  persistPace?: boolean;
}

/** `memory: { ... }` of PolitenessOptions: the bounds of the in-process rules of robots.txt and tdmrep.json. */
export interface MemoryOptions {
  /**
   * Files kept compiled in process memory at most (an origin's robots.txt, and its tdmrep.json with a
   * TDM `purpose`), an extra bound beside `budgetBytes`. Default: none (the byte budget alone), so
   * every origin a crawl touches is fetched once per freshness period.
   */
  cacheSize?: number | undefined;
  /**
   * Bytes the rules kept in process memory may hold, robots.txt's and (with a TDM `purpose`)
   * tdmrep.json's together, estimated from the structures built. Default 268435456 (256 MiB). The least
   * recently used origins go first; they come back from the store or a refetch. One tdmrep.json may hold
   * 1/512 of it; its rules past that are ignored.
   */
  budgetBytes?: number;
}

/** `metrics: { ... }` of PolitenessOptions: OpenTelemetry metrics (docs/metrics.md). */
export interface MetricsOptions {
  /**
   * Record metrics through `@opentelemetry/api` (an optional peer). Without it installed, or with it
   * and no SDK registered (the API's no-op meter), nothing is recorded and nothing listens, as with
   * false. Default true. false adds nothing to a crawl: no listener, no meter.
   */
  enabled?: boolean;
  /**
   * The MeterProvider to record with, e.g. an SDK's `new MeterProvider({ readers })`. Default: the
   * global one (`metrics.getMeterProvider()` of `@opentelemetry/api`), as it is when the instance is
   * created, so register the SDK first.
   */
  meterProvider?: MeterProviderLike | undefined;
  /**
   * Add the host (its pacing key) to each recorded value as `politely.host`: a series per host, up to
   * `maxHosts`. Default false.
   */
  hostAttribute?: boolean;
  /**
   * With `hostAttribute`, the hosts named at most: the first this many met keep a series of their
   * own, every later one counts as `politely.host="other"`. Default 1000: the widest instrument
   * (decisions, seven reasons) then stays near 7,000 series, under the 10,000 a metric is commonly
   * kept to in Prometheus, however many hosts the crawl meets.
   */
  maxHosts?: number;
}

/**
 * What createPoliteness accepts, internals included: tests inject a clock. Not exported from any entry
 * point, so it is no part of the public type; tests import it from this module.
 */
export interface InternalPolitenessOptions extends PolitenessOptions {
  /** Injected clock (tests). Default: Date.now and setTimeout. */
  clock?: Clock;
}

const DAY_MS = 86_400_000;

/**
 * Said when `store` or `scheduler` is given a string (`'redis://…'`): a URL is taken by no option, as
 * core imports no Redis client; a Keyv on @keyv/redis is what fleet mode is built on (docs/fleet.md).
 */
const REDIS_URL_HINT =
  "a URL is not taken: for Redis pass `store: createKeyv(url)` (`import { createKeyv } from '@keyv/redis'`), " +
  'which keeps the robots.txt cache there';

/**
 * The most any delay option may say (minDelayMs, maxCrawlDelayMs, maxBackoffMs, maxDelayMs,
 * maxRateLimitDelayMs): a day. A host held longer is no longer being paced but put off, which is the
 * crawl's business (requeue it), not a pace to keep in memory, in Redis and in the store: every time
 * held is a host the memory scheduler cannot release, a Redis key and a store record with that TTL,
 * and the bound a stored pace is trusted to (persisted-pace.ts). It also keeps every time the Redis
 * scripts compute an exact integer of milliseconds, which a PEXPIRE needs (a refused one reads as an
 * outage).
 */
const MAX_DELAY_MS = DAY_MS;

/** What OPTION_SCHEMA must be: exactly one entry per option, resolving to a value the option allows. */
export type PolitenessOptionTable = OptionTable<InternalPolitenessOptions>;

/** `robots: { ... }`, checked as `robots.timeoutMs` and so on. */
const ROBOTS_OPTIONS = {
  fetch: functionOption<FetchLike>('a fetch-compatible function'),
  route: functionOption<() => string | undefined>('a function returning the route of the request checked'),
  timeoutMs: numberOption({ min: 1, default: 10_000 }),
  maxBytes: numberOption({ min: 1, integer: true, default: 512_000 }),
  maxRedirects: numberOption({ integer: true, default: 5 }),
  cacheTtlMs: numberOption({ default: DAY_MS }),
  minTtlMs: numberOption({ default: 60_000 }),
  staleTtlMs: numberOption({ default: 30 * DAY_MS }),
  unreachableRetryMs: numberOption({ min: 1, default: 60_000 }),
  onUnauthorized: oneOf(['allow', 'disallow'], { default: 'allow' }),
  onUnreachable: oneOf(['disallow', 'allow'], { default: 'disallow' }),
  unreachablePolicy: oneOf(['rfc', 'google'], { default: 'rfc' }),
  // The engine's own parse options table, the part a Politeness takes (maxBytes is robots.maxBytes).
  parse: nestedOption(
    pickOptions(PARSE_OPTIONS, ['precedence', 'wildcards', 'agentMatching', 'percentEncoding']),
  ),
} as const satisfies OptionTable<RobotsOptions>;

/** `pacing: { ... }`. */
const PACING_OPTIONS = {
  minDelayMs: numberOption({ max: MAX_DELAY_MS, default: 1000 }),
  respectCrawlDelay: booleanOption({ default: true }),
  maxCrawlDelayMs: numberOption({ max: MAX_DELAY_MS, default: 30_000 }),
  crawlDelayAboveMax: oneOf(['skip', 'cap'], { default: 'skip' }),
  maxWaitMs: numberOption({ default: 60_000 }),
  // Infinity is the one non-finite value that means something here: no cap.
  maxConcurrentPerHost: numberOption({ min: 1, integer: true, infinity: true, default: 1 }),
  maxBackoffMs: numberOption({ max: MAX_DELAY_MS, default: 600_000 }),
  latencyFactor: numberOption({ default: 2 }),
  maxDelayMs: numberOption({ max: MAX_DELAY_MS, default: 60_000 }),
  rateLimitHeaders: booleanOption({ default: true }),
  maxRateLimitDelayMs: numberOption({ max: MAX_DELAY_MS, default: 30_000 }),
  rateLimitAboveMax: oneOf(['wait', 'skip', 'fail'], { default: 'wait' }),
  hostKey: option<NonNullable<PacingOptions['hostKey']>>(
    "'hostname', 'origin', 'domain', 'ip' or a function (url: URL) => string",
    (value) =>
      ['hostname', 'origin', 'domain', 'ip'].includes(value as string) || typeof value === 'function',
    { default: 'hostname' },
  ),
  lookup: functionOption<LookupFunction>(
    'a function (hostname) => Promise<address>, e.g. dns.promises.lookup',
  ),
  persistPace: booleanOption({ default: true }),
} as const satisfies OptionTable<PacingOptions>;

/** `memory: { ... }`. */
const MEMORY_OPTIONS = {
  // No default: the byte budget bounds the cache, a count smaller than a crawl would refetch.
  cacheSize: numberOption({ min: 1, integer: true }),
  budgetBytes: numberOption({ min: 1, integer: true, default: 256 * 1024 * 1024 }),
} as const satisfies OptionTable<MemoryOptions>;

/** `metrics: { ... }`. */
const METRICS_OPTIONS = {
  enabled: booleanOption({ default: true }),
  meterProvider: methodsOption<MeterProviderLike>(
    'an OpenTelemetry MeterProvider (an object with getMeter)',
    ['getMeter'],
  ),
  hostAttribute: booleanOption({ default: false }),
  maxHosts: numberOption({ min: 1, integer: true, default: 1000 }),
} as const satisfies OptionTable<MetricsOptions>;

/**
 * The name each grouped option had when the options were flat, which is still its name in the
 * resolved options the internals read (ResolvedOptions stays flat: grouping is the boundary's
 * business). Also what an old flat name given at the top level is refused with.
 */
const FLAT_NAMES = {
  robots: {
    ...ownNames(ROBOTS_OPTIONS),
    route: 'robotsRoute',
    timeoutMs: 'robotsTimeoutMs',
    maxBytes: 'robotsMaxBytes',
    maxRedirects: 'robotsMaxRedirects',
  },
  pacing: ownNames(PACING_OPTIONS),
  memory: { cacheSize: 'memoryCacheSize', budgetBytes: 'memoryBudgetBytes' },
  // Never flat names (the group came with them): only the names the internals read.
  metrics: {
    ...ownNames(METRICS_OPTIONS),
    enabled: 'metricsEnabled',
    hostAttribute: 'metricsHostAttribute',
    maxHosts: 'metricsMaxHosts',
  },
} as const satisfies {
  readonly robots: { readonly [K in keyof RobotsOptions]-?: string };
  readonly pacing: { readonly [K in keyof PacingOptions]-?: string };
  readonly memory: { readonly [K in keyof MemoryOptions]-?: string };
  readonly metrics: { readonly [K in keyof MetricsOptions]-?: string };
};

/** A group's options under their own names. */
function ownNames<T extends object>(table: T): { readonly [K in keyof T]: K } {
  return Object.fromEntries(Object.keys(table).map((name) => [name, name])) as { readonly [K in keyof T]: K };
}

/** Options added to a group after the groups came: their flat names were never options, none moved. */
const CAME_AFTER_GROUPS: ReadonlySet<string> = new Set(['robotsRoute']);

type Group = keyof typeof FLAT_NAMES;
const GROUPS = Object.keys(FLAT_NAMES) as Group[];

/**
 * Every option: its check and its default, in the order they are checked. Keep an entry the only
 * place that knows the option's rules; code that uses the option reads ResolvedOptions.
 */
export const OPTION_SCHEMA = {
  userAgent: {
    expected: 'a non-empty User-Agent header value, e.g. "MyBot/1.0 (+https://example.com/bot)"',
    required: true,
    resolve(value, path): string {
      if (typeof value !== 'string' || value.trim() === '' || /[\r\n]/.test(value)) {
        throw badOption(path, this.expected, value);
      }
      return value.trim();
    },
  },
  productToken: {
    expected: 'a value whose product token is made of A-Z, a-z, "_" and "-" (RFC 9309 2.2.1)',
    // Default: the product token of userAgent (already checked: the table is walked in order).
    resolve(value, path, input): string {
      const token = value ?? productTokenOf(String(input.userAgent).trim());
      if (typeof token !== 'string' || !/^[A-Za-z_-]+$/.test(token)) {
        throw badOption(value === undefined ? 'userAgent' : path, this.expected, value ?? input.userAgent);
      }
      return token;
    },
  },
  sendUserAgent: booleanOption({ default: true }),
  store: methodsOption<KeyvLike>(
    'a Keyv instance or an object with get, set and delete methods',
    ['get', 'set', 'delete'],
    {
      hint: (value) =>
        typeof value === 'string' ? `${REDIS_URL_HINT}, and paces every process on it` : undefined,
    },
  ),
  // A Scheduler or a Redis client is told apart (and checked further) by resolveScheduler.
  scheduler: option<NonNullable<PolitenessOptions['scheduler']>>(
    "'auto', 'memory', a Scheduler, or a node-redis / ioredis client",
    (value) => value === 'auto' || value === 'memory' || (value !== null && typeof value === 'object'),
    {
      default: 'auto',
      hint: (value) =>
        typeof value === 'string' ? `${REDIS_URL_HINT}, and the default scheduler paces on it` : undefined,
    },
  ),
  // No default: without a purpose, robots.txt alone decides.
  purpose: oneOf(USAGE_PURPOSES),
  onEvent: functionOption<(event: PolitelyEvent) => void>(),
  logger: loggerOption<Logger>({ default: CONSOLE_LOGGER }),
  // A name of another group given in this one says where it lives (`pacing: { cacheTtlMs }`).
  robots: nestedOption(ROBOTS_OPTIONS, { moved: movedFrom('robots') }),
  pacing: nestedOption(PACING_OPTIONS, { moved: movedFrom('pacing') }),
  memory: nestedOption(MEMORY_OPTIONS, { moved: movedFrom('memory') }),
  metrics: nestedOption(METRICS_OPTIONS, { moved: movedFrom('metrics') }),
  clock: clockOption({ internal: true }),
} as const satisfies PolitenessOptionTable;

/** The options as checked, grouped as given. */
type CheckedOptions = ResolvedOf<typeof OPTION_SCHEMA>;

/** The options of one group under the names the internals read (`timeoutMs` as `robotsTimeoutMs`). */
type Flattened<G extends Group> = {
  readonly [K in keyof CheckedOptions[G] as K extends keyof (typeof FLAT_NAMES)[G]
    ? (typeof FLAT_NAMES)[G][K] & string
    : never]: CheckedOptions[G][K];
};

/**
 * Options after validation, with every default filled in: flat, one name per option, as the code
 * downstream (cache, scheduler, signals, adapters) has always read them.
 */
export type ResolvedOptions = Omit<CheckedOptions, Group> &
  Flattened<'robots'> &
  Flattened<'pacing'> &
  Flattened<'memory'> &
  Flattened<'metrics'>;

/** `{ robots: { timeoutMs } }` as `{ robotsTimeoutMs }`: each group's options under their flat names. */
function flatten(grouped: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(grouped)) {
    if (!(GROUPS as string[]).includes(name)) {
      flat[name] = value;
      continue;
    }
    const names = FLAT_NAMES[name as Group] as Readonly<Record<string, string>>;
    for (const [inner, innerValue] of Object.entries(value as Readonly<Record<string, unknown>>)) {
      flat[names[inner] ?? inner] = innerValue;
    }
  }
  return flat;
}

/** The value of every option that has a constant default, when it is left out. */
export const DEFAULT_OPTIONS = Object.freeze(
  flatten({
    ...defaultsOf(OPTION_SCHEMA),
    robots: defaultsOf(ROBOTS_OPTIONS),
    pacing: defaultsOf(PACING_OPTIONS),
    memory: defaultsOf(MEMORY_OPTIONS),
    metrics: defaultsOf(METRICS_OPTIONS),
  }),
) as Readonly<Partial<ResolvedOptions>>;

/** The option names a user may set at the top level, as listed in "unknown option" messages (no internals). */
export const PUBLIC_OPTION_NAMES: readonly string[] = Object.entries(OPTION_SCHEMA)
  .filter(([, spec]) => !('internal' in spec))
  .map(([name]) => name);

/**
 * Where each option of the groups other than `group` lives now, by the name it is given under: its
 * old flat name at the top level (`minDelayMs` is `pacing.minDelayMs`, `robotsTimeoutMs` is
 * `robots.timeoutMs`), its own name in a group it is not in.
 */
function movedFrom(group: Group | ''): Readonly<Record<string, string>> {
  const moved: Record<string, string> = {};
  for (const other of GROUPS) {
    if (other === group) continue;
    // `metrics` came after the groups: its names were never flat ones, so none is refused as moved.
    if (group === '' && other === 'metrics') continue;
    for (const [name, flat] of Object.entries(FLAT_NAMES[other] as Readonly<Record<string, string>>)) {
      if (group === '' && CAME_AFTER_GROUPS.has(flat)) continue;
      moved[group === '' ? flat : name] = `${other}.${name}`;
    }
  }
  return moved;
}

/** The old flat names (0.1.0 before the groups), refused with where each lives now. */
export const MOVED_OPTIONS: Readonly<Record<string, string>> = movedFrom('');

/**
 * Options the adapters take in an argument of their own, next to these, and options of the HTTP
 * clients they wrap (got's, fetch's): given here, the error says where they belong instead of "did you
 * mean" (`timeout` is no `robots.timeoutMs`). A test checks the list against the adapters' tables.
 */
const PLUGIN_OPTION = 'withPoliteness(crawlerOptions, politenessOptions, { PLACE })';
const GOT_OPTION = 'got.extend(politeGot(options), { PLACE })';
export const OPTIONS_OF_OTHER_ARGUMENTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries({
    spacing: `politeGot(options, { PLACE }) or ${PLUGIN_OPTION}`,
    maxParked: PLUGIN_OPTION,
    filterOnEnqueue: PLUGIN_OPTION,
    checkRedirects: PLUGIN_OPTION,
    subresources: `${PLUGIN_OPTION} or createPageGuard(politeness, { PLACE })`,
    config: PLUGIN_OPTION,
    enqueueSitemaps: PLUGIN_OPTION,
    respectNofollow: PLUGIN_OPTION,
    maxRedirects: 'politeFetch({ userAgent, PLACE }) or politeFetch(politeness, { PLACE })',
    timeout: `${GOT_OPTION}, or with fetch a signal per request: fetch(url, { signal: AbortSignal.timeout(ms) }); robots.txt's own limit is \`robots.timeoutMs\``,
    retry: GOT_OPTION,
    hooks: `${GOT_OPTION}; they run in the order given to got.extend`,
    prefixUrl: GOT_OPTION,
    agent: `${GOT_OPTION}; robots.txt goes through it too`,
    headers: `${GOT_OPTION}, or with fetch per request: fetch(url, { PLACE })`,
    signal: 'per request: client(url, { PLACE }) with got, fetch(url, { PLACE }) with fetch',
  }).map(([name, where]) => [name, where.replaceAll('PLACE', name)]),
);

/**
 * Validates the options object once, then flattens it to the form the internals read. Unknown keys
 * and bad values are TypeErrors naming the option by its full path (`pacing.minDelayMs`) and the
 * value, so a typo (`minDelay: 500`) fails at start-up instead of being silently ignored; an old
 * flat name (`minDelayMs`) says where it lives now.
 */
export function resolveOptions(options: PolitenessOptions): ResolvedOptions {
  const checked = checkOptions('', OPTION_SCHEMA, options, {
    elsewhere: OPTIONS_OF_OTHER_ARGUMENTS,
    moved: MOVED_OPTIONS,
  });
  return Object.freeze(flatten(checked)) as ResolvedOptions;
}
