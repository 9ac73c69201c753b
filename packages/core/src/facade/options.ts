/**
 * The one options object that createPoliteness, politeGot and withPoliteness all accept.
 * Validated once by `resolveOptions`; everything downstream sees the resolved, readonly form.
 *
 * One table, OPTION_SCHEMA, says for every option how a value is checked and what it is when left
 * out; the resolved type, the defaults and the list of known names all come from it. The table is
 * checked against PolitenessOptions with `satisfies` (ky keeps its option registry in sync with its
 * options type the same way), so an option missing from the table, or a table entry that is no
 * option, is a compile error. Adding an option: a field in PolitenessOptions, an entry in the table,
 * and the code that uses it.
 */

import { productTokenOf } from '../engine/agent.js';
import type { ParseOptions } from '../engine/types.js';
import type { FetchLike } from '../fetch/types.js';
import type { KeyvLike, RedisClientLike } from '../kernel/clients.js';
import type { Clock } from '../kernel/clock.js';
import type { PolitelyEvent } from '../kernel/events.js';
import { badOption, shown, unknownOption } from '../kernel/option-table.js';
import type { Scheduler } from '../schedule/types.js';
import type { HostKeyOption, LookupFunction } from './host-key.js';
import type { Logger } from './types.js';

export type { RedisClientLike } from '../kernel/clients.js';

export interface PolitenessOptions {
  /** Required. The User-Agent header sent for robots.txt, e.g. `MyBot/1.0 (+https://example.com/bot)`. */
  userAgent: string;
  /** The token matched against robots.txt groups. Default: the product token of `userAgent` (`MyBot`). */
  productToken?: string;
  /** Robots.txt cache store: a Keyv 5/6 instance or Keyv-shaped object. Default: in-memory LRU. */
  store?: KeyvLike;
  /**
   * Per-host pacing backend. `'auto'` (default): Redis when `store` is a Keyv on @keyv/redis, else memory.
   * `'memory'`, a node-redis/ioredis client (fleet-wide), or a custom Scheduler.
   */
  scheduler?: 'auto' | 'memory' | Scheduler | RedisClientLike;
  /** Smallest start-to-start gap per host, in ms. Default 1000. */
  minDelayMs?: number;
  /** Honour Crawl-delay from robots.txt. Default true. */
  respectCrawlDelay?: boolean;
  /** Largest Crawl-delay honoured, in ms. Default 30000. */
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
  /** Largest Retry-After backoff honoured, in ms. Default 600000 (10 min). */
  maxBackoffMs?: number;
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
  lookup?: LookupFunction;
  /**
   * Latency-aware pacing (Heritrix's delayFactor): a host's delay is at least this many times its
   * recent time to response headers, as the adapters measure it. Default 2: the crawler keeps a slow
   * server busy at most a third of the time. 0 turns it off. Never lowers minDelayMs or Crawl-delay.
   */
  latencyFactor?: number;
  /**
   * Largest delay latency and error signals (5xx, 429, timeouts) may raise a host's pace to, in ms;
   * minDelayMs and Crawl-delay are honoured above it. Default 60000, the same as maxWaitMs: a host
   * slowed to the most never makes a blocking wait fail, and a minute between requests is a host left
   * alone. 0 turns every signal off.
   */
  maxDelayMs?: number;
  /** Fetch function for robots.txt (e.g. through a proxy). Default: Node's fetch. */
  fetch?: FetchLike;
  /** robots.txt fetch timeout, whole fetch including body, in ms. Default 10000. */
  robotsTimeoutMs?: number;
  /** robots.txt bytes read at most. Default 512000 (RFC 9309 2.5). */
  robotsMaxBytes?: number;
  /** Redirect hops followed for robots.txt. Default 5 (RFC 9309 2.3.1.2). */
  robotsMaxRedirects?: number;
  /** How long a fetched robots.txt is fresh, in ms (Cache-Control max-age may shorten it). Default 86400000 (24 h). */
  cacheTtlMs?: number;
  /** How long a good copy is kept for use while robots.txt is unreachable, in ms. Default 30 days. */
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
   * Origins kept compiled in process memory at most, an extra bound beside `memoryBudgetBytes`. Default:
   * none (the byte budget alone), so every origin a crawl touches is fetched once per freshness period.
   */
  memoryCacheSize?: number;
  /**
   * Bytes the robots.txt rules kept in process memory may hold, estimated from the structures built.
   * Default 268435456 (256 MiB). The least recently used origins go first; they come back from the
   * store or a refetch.
   */
  memoryBudgetBytes?: number;
  /**
   * Seed-compatibility parse options (precedence, wildcards, agentMatching, percentEncoding: `'google'`
   * compares `%XX` literally as Google does). Default: RFC 9309.
   */
  parse?: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>;
  /** Receives every event (robots fetches, decisions, backoffs, store and scheduler trouble). */
  onEvent?: (event: PolitelyEvent) => void;
  /** Where warnings go. Default: console.warn for warnings only. `false` silences. */
  logger?: Logger | false;
  /** Injected clock (tests). Default: Date.now and setTimeout. */
  clock?: Clock;
  /**
   * Adapters set the User-Agent header of the requests they pace (`@politely/fetch`, `@politely/got`)
   * to `userAgent` when the caller set none, so the site sees the name robots.txt was read for
   * (RFC 9309 2.2.1). Default true. robots.txt requests always carry `userAgent`.
   */
  sendUserAgent?: boolean;
}

/** One option: how the value a user gave (undefined when left out) becomes its resolved value. */
export interface OptionSpec<T> {
  /**
   * The resolved value, or a TypeError naming the option (`name`, the table's key) and the value.
   * `value` is the user's, or `default` when they left the option out (undefined without one).
   * `input` is the whole options object, for an option whose default depends on another.
   */
  readonly resolve: (value: unknown, name: string, input: Readonly<Record<string, unknown>>) => T;
  /** The value when the option is left out, when that is a constant (listed in DEFAULT_OPTIONS). */
  readonly default?: T;
  /** Accepted but internal (tests inject a clock): never listed or suggested to users. */
  readonly internal?: true;
}

const DAY_MS = 86_400_000;

function fail(name: string, expected: string, value: unknown): never {
  throw badOption(name, expected, value);
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
  );
}

// Entry builders for the common kinds; an option of its own kind writes its `resolve` inline.

/** A finite number >= min (default 0), an integer when asked. */
function numberOption(fallback: number, { min = 0, integer = false } = {}) {
  return {
    default: fallback,
    resolve: (value: unknown, name: string): number => {
      if (
        typeof value !== 'number' ||
        !Number.isFinite(value) ||
        value < min ||
        (integer && !Number.isInteger(value))
      ) {
        fail(name, `a finite ${integer ? 'integer' : 'number'} >= ${min}`, value);
      }
      return value;
    },
  };
}

function oneOfOption<const T extends string>(allowed: readonly T[], fallback: NoInfer<T>) {
  return {
    default: fallback,
    resolve: (value: unknown, name: string): T => {
      if (typeof value !== 'string' || !allowed.includes(value as T)) {
        fail(name, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
      }
      return value as T;
    },
  };
}

function booleanOption(fallback: boolean) {
  return {
    default: fallback,
    resolve: (value: unknown, name: string): boolean => {
      if (typeof value !== 'boolean') fail(name, 'a boolean', value);
      return value;
    },
  };
}

/** A function the user may pass; undefined when left out. */
function functionOption<F>(expected: string) {
  return {
    resolve: (value: unknown, name: string): F | undefined => {
      if (value !== undefined && typeof value !== 'function') fail(name, expected, value);
      return value as F | undefined;
    },
  };
}

/** What OPTION_SCHEMA must be: exactly one entry per option, resolving to a value the option allows. */
export type OptionTable = { readonly [K in keyof PolitenessOptions]-?: OptionSpec<PolitenessOptions[K]> };

type ParseOption = NonNullable<PolitenessOptions['parse']>;

const PARSE_OPTIONS = {
  precedence: oneOfOption(['longest', 'first'], 'longest'),
  wildcards: booleanOption(true),
  agentMatching: oneOfOption(['exact', 'substring'], 'exact'),
  percentEncoding: oneOfOption(['rfc', 'google'], 'rfc'),
} as const satisfies { readonly [K in keyof ParseOption]-?: OptionSpec<ParseOption[K]> };

const consoleLogger: Logger = {
  warn: (message, data) => console.warn(`[politely] ${message}`, ...(data ? [data] : [])),
};

/**
 * Every option: its check and its default, in the order they are checked. Keep an entry's `resolve`
 * the only place that knows the option's rules; code that uses the option reads ResolvedOptions.
 */
export const OPTION_SCHEMA = {
  userAgent: {
    resolve: (value, name): string => {
      if (typeof value !== 'string' || value.trim() === '' || /[\r\n]/.test(value)) {
        fail(name, 'a non-empty User-Agent header value, e.g. "MyBot/1.0 (+https://example.com/bot)"', value);
      }
      return value.trim();
    },
  },
  productToken: {
    // Default: the product token of userAgent (already checked: the table is walked in order).
    resolve: (value, name, input): string => {
      const token = value ?? productTokenOf(String(input.userAgent).trim());
      if (typeof token !== 'string' || !/^[A-Za-z_-]+$/.test(token)) {
        fail(
          value === undefined ? 'userAgent' : name,
          'a value whose product token is made of A-Z, a-z, "_" and "-" (RFC 9309 2.2.1)',
          value ?? input.userAgent,
        );
      }
      return token;
    },
  },
  store: {
    resolve: (value, name): KeyvLike | undefined => {
      if (value !== undefined && !hasMethods(value, ['get', 'set', 'delete'])) {
        fail(name, 'a Keyv instance or an object with get, set and delete methods', value);
      }
      return value as KeyvLike | undefined;
    },
  },
  scheduler: {
    default: 'auto',
    // A Scheduler or a Redis client is told apart (and checked further) by resolveScheduler.
    resolve: (value, name): NonNullable<PolitenessOptions['scheduler']> => {
      const scheduler = value;
      if (
        scheduler !== 'auto' &&
        scheduler !== 'memory' &&
        (scheduler === null || typeof scheduler !== 'object')
      ) {
        fail(name, "'auto', 'memory', a Scheduler, or a node-redis / ioredis client", scheduler);
      }
      return scheduler as NonNullable<PolitenessOptions['scheduler']>;
    },
  },
  minDelayMs: numberOption(1000),
  respectCrawlDelay: booleanOption(true),
  maxCrawlDelayMs: numberOption(30_000),
  crawlDelayAboveMax: oneOfOption(['skip', 'cap'], 'skip'),
  maxWaitMs: numberOption(60_000),
  maxConcurrentPerHost: {
    default: 1,
    resolve: (value: unknown, name: string): number => {
      // Infinity is the one non-finite value that means something here: no cap.
      if (value === Number.POSITIVE_INFINITY) return value;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
        fail(name, 'an integer >= 1, or Infinity for no cap', value);
      return value;
    },
  },
  maxBackoffMs: numberOption(600_000),
  hostKey: {
    default: 'hostname',
    resolve: (value, name): NonNullable<PolitenessOptions['hostKey']> => {
      if (
        value !== 'hostname' &&
        value !== 'origin' &&
        value !== 'domain' &&
        value !== 'ip' &&
        typeof value !== 'function'
      ) {
        fail(name, "'hostname', 'origin', 'domain', 'ip' or a function (url: URL) => string", value);
      }
      return value as NonNullable<PolitenessOptions['hostKey']>;
    },
  },
  lookup: functionOption<LookupFunction>(
    'a function (hostname) => Promise<address>, e.g. dns.promises.lookup',
  ),
  latencyFactor: numberOption(2),
  maxDelayMs: numberOption(60_000),
  fetch: functionOption<FetchLike>('a fetch-compatible function'),
  robotsTimeoutMs: numberOption(10_000, { min: 1 }),
  robotsMaxBytes: numberOption(512_000, { min: 1, integer: true }),
  robotsMaxRedirects: numberOption(5, { integer: true }),
  cacheTtlMs: numberOption(DAY_MS),
  staleTtlMs: numberOption(30 * DAY_MS),
  unreachableRetryMs: numberOption(60_000, { min: 1 }),
  onUnauthorized: oneOfOption(['allow', 'disallow'], 'allow'),
  onUnreachable: oneOfOption(['disallow', 'allow'], 'disallow'),
  unreachablePolicy: oneOfOption(['rfc', 'google'], 'rfc'),
  memoryCacheSize: {
    // No default: the byte budget bounds the cache, a count smaller than a crawl would refetch (issue 25).
    resolve: (value: unknown, name: string): number | undefined =>
      value === undefined ? undefined : numberOption(1, { min: 1, integer: true }).resolve(value, name),
  },
  memoryBudgetBytes: numberOption(256 * 1024 * 1024, { min: 1, integer: true }),
  parse: {
    resolve: (value, name): Readonly<ParseOption> => {
      const parse = value ?? {};
      if (parse === null || typeof parse !== 'object') fail(name, 'an object', parse);
      const given = parse as Record<string, unknown>;
      for (const key of Object.keys(given)) {
        if (!Object.hasOwn(PARSE_OPTIONS, key)) {
          throw unknownOption('option', key, given[key], Object.keys(PARSE_OPTIONS), { path: name });
        }
        if (given[key] !== undefined) {
          PARSE_OPTIONS[key as keyof ParseOption].resolve(given[key], `${name}.${key}`);
        }
      }
      // Only what the user set: the engine's own defaults fill the rest (and keep cache keys stable).
      return Object.freeze({ ...(given as ParseOption) });
    },
  },
  onEvent: functionOption<(event: PolitelyEvent) => void>('a function'),
  logger: {
    resolve: (value, name): Logger | false => {
      if (value !== undefined && value !== false && !hasMethods(value, ['warn'])) {
        fail(name, 'false or an object with a warn method', value);
      }
      return (value ?? consoleLogger) as Logger | false;
    },
  },
  clock: {
    internal: true,
    resolve: (value, name): Clock | undefined => {
      if (value !== undefined && !hasMethods(value, ['now', 'sleep'])) {
        fail(name, 'an object with now and sleep methods', value);
      }
      return value as Clock | undefined;
    },
  },
  sendUserAgent: booleanOption(true),
} as const satisfies OptionTable;

type Schema = typeof OPTION_SCHEMA;

/** Options after validation, with every default filled in. */
export type ResolvedOptions = { readonly [K in keyof Schema]: ReturnType<Schema[K]['resolve']> };

type DefaultedName = {
  [K in keyof Schema]: Schema[K] extends { readonly default: unknown } ? K : never;
}[keyof Schema];

/** The value of every option that has a constant default, when it is left out. */
export const DEFAULT_OPTIONS = Object.freeze(
  Object.fromEntries(
    Object.entries(OPTION_SCHEMA).flatMap(([name, spec]) =>
      'default' in spec ? [[name, spec.default]] : [],
    ),
  ),
) as { readonly [K in DefaultedName]: ResolvedOptions[K] };

/** The option names a user may set, as listed in "unknown option" messages (no internals). */
export const PUBLIC_OPTION_NAMES: readonly string[] = Object.entries(OPTION_SCHEMA)
  .filter(([, spec]) => !('internal' in spec))
  .map(([name]) => name);

/**
 * Options the adapters take in an argument of their own, next to these: given here, the error says
 * where they belong instead of "did you mean" (a test checks the list against the adapters' tables).
 */
const PLUGIN_OPTION = 'withPoliteness(crawlerOptions, politenessOptions, { PLACE })';
export const OPTIONS_OF_OTHER_ARGUMENTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries({
    spacing: `politeGot(options, { PLACE }) or ${PLUGIN_OPTION}`,
    maxParked: PLUGIN_OPTION,
    filterOnEnqueue: PLUGIN_OPTION,
    checkRedirects: PLUGIN_OPTION,
    subresources: `${PLUGIN_OPTION} or createPageGuard(politeness, { PLACE })`,
    config: PLUGIN_OPTION,
    enqueueSitemaps: PLUGIN_OPTION,
    maxRedirects: 'politeFetch({ userAgent, PLACE }) or politeFetch(politeness, { PLACE })',
  }).map(([name, where]) => [name, where.replaceAll('PLACE', name)]),
);

/**
 * Validates the options object once. Unknown keys and bad values are TypeErrors naming the option and
 * the value, so a typo (`minDelay: 500`) fails at start-up instead of being silently ignored.
 */
export function resolveOptions(options: PolitenessOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(
      `Expected options to be an object with at least \`userAgent\`, got ${shown(options)}`,
    );
  }
  const input = options as unknown as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(OPTION_SCHEMA, key))
      throw unknownOption('option', key, input[key], PUBLIC_OPTION_NAMES, {
        elsewhere: OPTIONS_OF_OTHER_ARGUMENTS,
      });
  }
  const resolved: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(OPTION_SCHEMA) as [string, OptionSpec<unknown>][]) {
    const value = input[name] === undefined && 'default' in spec ? spec.default : input[name];
    resolved[name] = spec.resolve(value, name, input);
  }
  return Object.freeze(resolved) as ResolvedOptions;
}
