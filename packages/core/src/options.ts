/**
 * The one options object that createPoliteness, politeGot and withPoliteness all accept.
 * Validated once by `resolveOptions`; everything downstream sees the resolved, readonly form.
 */
import type { KeyvLike } from './cache/types.js';
import { productTokenOf } from './engine/agent.js';
import type { ParseOptions } from './engine/types.js';
import type { FetchLike } from './fetch/types.js';
import type { HostKeyOption, LookupFunction } from './schedule/host-key.js';
import type { Clock, Scheduler } from './schedule/types.js';
import { closestName } from './suggest.js';
import type { Logger, PolitelyEvent } from './types.js';

/** A node-redis (v4+) or ioredis client; recognised by shape, never imported. */
export type RedisClientLike = object;

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
   * Largest delay latency and error signals may raise a host's pace to, in ms (minDelayMs and
   * Crawl-delay are honoured above it). Default 60000, the same as maxWaitMs: a host slowed to the
   * most never makes a blocking wait fail, and a minute between requests is a host left alone.
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
  /** Compiled rule sets kept in process memory (origins). Default 10000. */
  memoryCacheSize?: number;
  /**
   * Bytes the robots.txt rules kept in process memory may hold (compiled rules, and the built-in
   * store's records when no `store` is given), estimated from the structures built. Default 268435456
   * (256 MiB). The least recently used origins go first; they come back from the store or a refetch.
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

/** Options after validation, with every default filled in. */
export interface ResolvedOptions {
  readonly userAgent: string;
  readonly productToken: string;
  readonly store: KeyvLike | undefined;
  readonly scheduler: 'auto' | 'memory' | Scheduler | RedisClientLike;
  readonly minDelayMs: number;
  readonly respectCrawlDelay: boolean;
  readonly maxCrawlDelayMs: number;
  readonly crawlDelayAboveMax: 'skip' | 'cap';
  readonly maxWaitMs: number;
  readonly maxBackoffMs: number;
  readonly hostKey: HostKeyOption;
  readonly lookup: LookupFunction | undefined;
  readonly latencyFactor: number;
  readonly maxDelayMs: number;
  readonly fetch: FetchLike | undefined;
  readonly robotsTimeoutMs: number;
  readonly robotsMaxBytes: number;
  readonly robotsMaxRedirects: number;
  readonly cacheTtlMs: number;
  readonly staleTtlMs: number;
  readonly unreachableRetryMs: number;
  readonly onUnauthorized: 'allow' | 'disallow';
  readonly onUnreachable: 'disallow' | 'allow';
  readonly memoryCacheSize: number;
  readonly memoryBudgetBytes: number;
  readonly parse: Pick<ParseOptions, 'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'>;
  readonly onEvent: ((event: PolitelyEvent) => void) | undefined;
  readonly logger: Logger | false;
  readonly clock: Clock | undefined;
  readonly sendUserAgent: boolean;
}

const DAY_MS = 86_400_000;

export const DEFAULT_OPTIONS = {
  minDelayMs: 1000,
  respectCrawlDelay: true,
  maxCrawlDelayMs: 30_000,
  crawlDelayAboveMax: 'skip',
  maxWaitMs: 60_000,
  maxBackoffMs: 600_000,
  hostKey: 'hostname',
  latencyFactor: 2,
  maxDelayMs: 60_000,
  robotsTimeoutMs: 10_000,
  robotsMaxBytes: 512_000,
  robotsMaxRedirects: 5,
  cacheTtlMs: DAY_MS,
  staleTtlMs: 30 * DAY_MS,
  unreachableRetryMs: 60_000,
  onUnauthorized: 'allow',
  onUnreachable: 'disallow',
  memoryCacheSize: 10_000,
  memoryBudgetBytes: 256 * 1024 * 1024,
  scheduler: 'auto',
  sendUserAgent: true,
} as const;

/** Options users set; the list shown in "unknown option" messages. */
const OPTION_NAMES = new Set<string>([
  'userAgent',
  'productToken',
  'store',
  'scheduler',
  'minDelayMs',
  'respectCrawlDelay',
  'maxCrawlDelayMs',
  'crawlDelayAboveMax',
  'maxWaitMs',
  'maxBackoffMs',
  'hostKey',
  'lookup',
  'latencyFactor',
  'maxDelayMs',
  'fetch',
  'robotsTimeoutMs',
  'robotsMaxBytes',
  'robotsMaxRedirects',
  'cacheTtlMs',
  'staleTtlMs',
  'unreachableRetryMs',
  'onUnauthorized',
  'onUnreachable',
  'memoryCacheSize',
  'memoryBudgetBytes',
  'parse',
  'onEvent',
  'logger',
  'sendUserAgent',
]);

/** Accepted but internal (tests inject a clock): never listed or suggested to users. */
const INTERNAL_OPTION_NAMES = new Set<string>(['clock']);

/** The option names a user may set, as listed in "unknown option" messages (no internals). */
export const PUBLIC_OPTION_NAMES: readonly string[] = [...OPTION_NAMES];

const PARSE_OPTION_NAMES = new Set(['precedence', 'wildcards', 'agentMatching', 'percentEncoding']);

/** `-1` (number), `"x"` (string): the offending value and its type, as error messages show it. */
function shown(value: unknown): string {
  let text: string;
  try {
    text =
      typeof value === 'string'
        ? JSON.stringify(value)
        : typeof value === 'function'
          ? '[function]'
          : String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  return `\`${text}\` (${value === null ? 'null' : typeof value})`;
}

function fail(name: string, expected: string, value: unknown): never {
  throw new TypeError(`Expected option \`${name}\` to be ${expected}, got ${shown(value)}`);
}

function number(
  input: Record<string, unknown>,
  name: string,
  fallback: number,
  { min = 0, integer = false } = {},
) {
  const value = input[name];
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    (integer && !Number.isInteger(value))
  ) {
    fail(name, `a finite ${integer ? 'integer' : 'number'} >= ${min}`, value);
  }
  return value;
}

function oneOf<T extends string>(
  input: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = input[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    fail(name, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
  }
  return value as T;
}

function boolean(input: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = input[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(name, 'a boolean', value);
  return value;
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
  );
}

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
    if (!OPTION_NAMES.has(key) && !INTERNAL_OPTION_NAMES.has(key)) {
      const suggestion = closestName(key, OPTION_NAMES);
      throw new TypeError(
        `Unknown option \`${key}\` (value ${shown(input[key])})${suggestion ? `; did you mean \`${suggestion}\`?` : ''}; known options: ${PUBLIC_OPTION_NAMES.join(', ')}`,
      );
    }
  }

  const userAgent = input.userAgent;
  if (typeof userAgent !== 'string' || userAgent.trim() === '' || /[\r\n]/.test(userAgent)) {
    fail(
      'userAgent',
      'a non-empty User-Agent header value, e.g. "MyBot/1.0 (+https://example.com/bot)"',
      userAgent,
    );
  }
  const productToken = input.productToken ?? productTokenOf(userAgent.trim());
  if (typeof productToken !== 'string' || !/^[A-Za-z_-]+$/.test(productToken)) {
    fail(
      input.productToken === undefined ? 'userAgent' : 'productToken',
      'a value whose product token is made of A-Z, a-z, "_" and "-" (RFC 9309 2.2.1)',
      input.productToken ?? userAgent,
    );
  }

  const store = input.store;
  if (store !== undefined && !hasMethods(store, ['get', 'set', 'delete'])) {
    fail('store', 'a Keyv instance or an object with get, set and delete methods', store);
  }
  const scheduler = input.scheduler ?? DEFAULT_OPTIONS.scheduler;
  if (
    scheduler !== 'auto' &&
    scheduler !== 'memory' &&
    (scheduler === null || typeof scheduler !== 'object')
  ) {
    fail('scheduler', "'auto', 'memory', a Scheduler, or a node-redis / ioredis client", scheduler);
  }
  const hostKey = input.hostKey ?? DEFAULT_OPTIONS.hostKey;
  if (
    hostKey !== 'hostname' &&
    hostKey !== 'origin' &&
    hostKey !== 'domain' &&
    hostKey !== 'ip' &&
    typeof hostKey !== 'function'
  ) {
    fail('hostKey', "'hostname', 'origin', 'domain', 'ip' or a function (url: URL) => string", hostKey);
  }
  if (input.lookup !== undefined && typeof input.lookup !== 'function')
    fail('lookup', 'a function (hostname) => Promise<address>, e.g. dns.promises.lookup', input.lookup);
  if (input.fetch !== undefined && typeof input.fetch !== 'function')
    fail('fetch', 'a fetch-compatible function', input.fetch);
  if (input.onEvent !== undefined && typeof input.onEvent !== 'function')
    fail('onEvent', 'a function', input.onEvent);
  const logger = input.logger;
  if (logger !== undefined && logger !== false && !hasMethods(logger, ['warn'])) {
    fail('logger', 'false or an object with a warn method', logger);
  }
  const clock = input.clock;
  if (clock !== undefined && !hasMethods(clock, ['now', 'sleep']))
    fail('clock', 'an object with now and sleep methods', clock);
  const parse = input.parse ?? {};
  if (parse === null || typeof parse !== 'object') fail('parse', 'an object', parse);
  const parseInput = parse as Record<string, unknown>;
  for (const key of Object.keys(parseInput)) {
    if (!PARSE_OPTION_NAMES.has(key))
      fail(`parse.${key}`, 'one of precedence, wildcards, agentMatching, percentEncoding', parseInput[key]);
  }
  oneOf(parseInput, 'precedence', ['longest', 'first'], 'longest');
  oneOf(parseInput, 'agentMatching', ['exact', 'substring'], 'exact');
  oneOf(parseInput, 'percentEncoding', ['rfc', 'google'], 'rfc');
  boolean(parseInput, 'wildcards', true);

  const d = DEFAULT_OPTIONS;
  return Object.freeze({
    userAgent: userAgent.trim(),
    productToken,
    store: store as KeyvLike | undefined,
    scheduler: scheduler as ResolvedOptions['scheduler'],
    minDelayMs: number(input, 'minDelayMs', d.minDelayMs),
    respectCrawlDelay: boolean(input, 'respectCrawlDelay', d.respectCrawlDelay),
    maxCrawlDelayMs: number(input, 'maxCrawlDelayMs', d.maxCrawlDelayMs),
    crawlDelayAboveMax: oneOf(input, 'crawlDelayAboveMax', ['skip', 'cap'], d.crawlDelayAboveMax),
    maxWaitMs: number(input, 'maxWaitMs', d.maxWaitMs),
    maxBackoffMs: number(input, 'maxBackoffMs', d.maxBackoffMs),
    hostKey: hostKey as ResolvedOptions['hostKey'],
    lookup: input.lookup as LookupFunction | undefined,
    latencyFactor: number(input, 'latencyFactor', d.latencyFactor),
    maxDelayMs: number(input, 'maxDelayMs', d.maxDelayMs),
    fetch: input.fetch as FetchLike | undefined,
    robotsTimeoutMs: number(input, 'robotsTimeoutMs', d.robotsTimeoutMs, { min: 1 }),
    robotsMaxBytes: number(input, 'robotsMaxBytes', d.robotsMaxBytes, { min: 1, integer: true }),
    robotsMaxRedirects: number(input, 'robotsMaxRedirects', d.robotsMaxRedirects, { integer: true }),
    cacheTtlMs: number(input, 'cacheTtlMs', d.cacheTtlMs),
    staleTtlMs: number(input, 'staleTtlMs', d.staleTtlMs),
    unreachableRetryMs: number(input, 'unreachableRetryMs', d.unreachableRetryMs, { min: 1 }),
    onUnauthorized: oneOf(input, 'onUnauthorized', ['allow', 'disallow'], d.onUnauthorized),
    onUnreachable: oneOf(input, 'onUnreachable', ['disallow', 'allow'], d.onUnreachable),
    memoryCacheSize: number(input, 'memoryCacheSize', d.memoryCacheSize, { min: 1, integer: true }),
    memoryBudgetBytes: number(input, 'memoryBudgetBytes', d.memoryBudgetBytes, { min: 1, integer: true }),
    parse: Object.freeze({ ...(parse as ResolvedOptions['parse']) }),
    onEvent: input.onEvent as ResolvedOptions['onEvent'],
    logger: (logger ?? consoleLogger) as Logger | false,
    clock: clock as Clock | undefined,
    sendUserAgent: boolean(input, 'sendUserAgent', d.sendUserAgent),
  });
}

const consoleLogger: Logger = {
  warn: (message, data) => console.warn(`[politely] ${message}`, ...(data ? [data] : [])),
};
