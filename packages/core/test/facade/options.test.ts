import { describe, expect, it } from 'vitest';
import { productTokenOf } from '../../src/engine/index.js';
import {
  DEFAULT_OPTIONS,
  OPTION_SCHEMA,
  type PolitenessOptionTable,
  PUBLIC_OPTION_NAMES,
  resolveOptions,
} from '../../src/facade/options.js';

describe('resolveOptions', () => {
  it('needs only userAgent and fills RFC-minded defaults', () => {
    const resolved = resolveOptions({ userAgent: 'MyBot/1.0 (+https://example.com/bot)' });
    expect(resolved.productToken).toBe('MyBot');
    expect(resolved.minDelayMs).toBe(1000);
    expect(resolved.maxCrawlDelayMs).toBe(30_000);
    expect(resolved.crawlDelayAboveMax).toBe('skip');
    expect(resolved.robotsMaxBytes).toBe(512_000);
    expect(resolved.robotsMaxRedirects).toBe(5);
    expect(resolved.robotsTimeoutMs).toBe(10_000);
    expect(resolved.cacheTtlMs).toBe(86_400_000);
    expect(resolved.onUnauthorized).toBe('allow');
    expect(resolved.onUnreachable).toBe('disallow');
    expect(resolved).toMatchObject({ ...DEFAULT_OPTIONS });
    expect(Object.isFrozen(resolved)).toBe(true);
  });

  it('sends userAgent on paced requests by default; sendUserAgent: false turns it off', () => {
    expect(resolveOptions({ userAgent: 'MyBot/1.0' }).sendUserAgent).toBe(true);
    expect(resolveOptions({ userAgent: 'MyBot/1.0', sendUserAgent: false }).sendUserAgent).toBe(false);
    expect(() => resolveOptions({ userAgent: 'MyBot/1.0', sendUserAgent: 'no' as never })).toThrow(
      /`sendUserAgent` to be a boolean, got `"no"` \(string\)/,
    );
  });

  it('takes an explicit productToken over the one in userAgent', () => {
    expect(
      resolveOptions({ userAgent: 'Mozilla/5.0 (compatible; X)', productToken: 'AcmeBot' }).productToken,
    ).toBe('AcmeBot');
  });

  it('rejects an unknown key, naming it and its value', () => {
    expect(() => resolveOptions({ userAgent: 'Bot', minDelay: 500 } as never)).toThrow(
      /Unknown option `minDelay` \(value `500` \(number\)\)/,
    );
  });

  it.each([
    [
      { pacing: { minDelayMs: -1 } },
      /^Expected option `pacing.minDelayMs` to be a finite number >= 0 and <= 86400000, got `-1` \(number\)$/,
    ],
    [
      { pacing: { maxCrawlDelayMs: Number.NaN } },
      /^Expected option `pacing.maxCrawlDelayMs`.*`NaN` \(number\)/,
    ],
    [{ robots: { maxBytes: 1.5 } }, /^Expected option `robots.maxBytes` to be an integer >= 1/],
    [
      { pacing: { crawlDelayAboveMax: 'wait' } },
      /^Expected option `pacing.crawlDelayAboveMax` to be 'skip' or 'cap', got `"wait"` \(string\)/,
    ],
    [
      { pacing: { rateLimitAboveMax: 'cap' } },
      /^Expected option `pacing.rateLimitAboveMax` to be 'wait', 'skip' or 'fail', got `"cap"` \(string\)/,
    ],
    [
      { pacing: { maxRateLimitDelayMs: -5 } },
      /^Expected option `pacing.maxRateLimitDelayMs` to be a finite number >= 0 and <= 86400000, got `-5` \(number\)/,
    ],
    [{ pacing: { respectCrawlDelay: 'yes' } }, /^Expected option `pacing.respectCrawlDelay` to be a boolean/],
    // A delay option holds a host at most a day (issue 43.2): 1e20 was accepted.
    [
      { pacing: { maxBackoffMs: 1e20 } },
      /^Expected option `pacing.maxBackoffMs` to be a finite number >= 0 and <= 86400000, got `100000000000000000000` \(number\)/,
    ],
    [{ pacing: { minDelayMs: 86_400_001 } }, /^Expected option `pacing.minDelayMs` .* <= 86400000/],
    [
      { pacing: { maxCrawlDelayMs: 2 * 86_400_000 } },
      /^Expected option `pacing.maxCrawlDelayMs` .* <= 86400000/,
    ],
    [{ pacing: { maxDelayMs: 1e12 } }, /^Expected option `pacing.maxDelayMs` .* <= 86400000/],
    [
      { pacing: { maxRateLimitDelayMs: 1e12 } },
      /^Expected option `pacing.maxRateLimitDelayMs` .* <= 86400000/,
    ],
    [
      { store: { get: () => undefined } },
      /^Expected option `store` to be a Keyv instance or an object with get, set and delete/,
    ],
    [{ scheduler: 'redis' }, /^Expected option `scheduler`/],
    [{ pacing: { hostKey: 'registrable-domain' } }, /^Expected option `pacing.hostKey`.*'domain', 'ip'/],
    [{ pacing: { lookup: 'dns' } }, /^Expected option `pacing.lookup`/],
    [{ pacing: { latencyFactor: -1 } }, /^Expected option `pacing.latencyFactor`/],
    [{ pacing: { maxDelayMs: Number.POSITIVE_INFINITY } }, /^Expected option `pacing.maxDelayMs`/],
    [{ robots: { fetch: 'node' } }, /^Expected option `robots.fetch` to be a fetch-compatible function/],
    [
      { robots: { route: 'proxy-1' } },
      /^Expected option `robots.route` to be a function returning the route/,
    ],
    [{ robots: { timeoutMs: 0 } }, /^Expected option `robots.timeoutMs` to be a finite number >= 1/],
    [{ robots: { minTtlMs: -1 } }, /^Expected option `robots.minTtlMs` to be a finite number >= 0/],
    [{ memory: { budgetBytes: 0 } }, /^Expected option `memory.budgetBytes` to be an integer >= 1/],
    [{ memory: { cacheSize: 2.5 } }, /^Expected option `memory.cacheSize` to be an integer >= 1/],
    [{ logger: console.log }, /^Expected option `logger`/],
    [
      { robots: { parse: { precedence: 'last' } } },
      /^Expected option `robots.parse.precedence` to be 'longest' or 'first'/,
    ],
    [{ robots: { parse: { regex: true } } }, /^Unknown option `robots.parse.regex`/],
    [{ pacing: 1000 }, /^Expected option `pacing` to be an object, got `1000` \(number\)/],
    [{ robots: null }, /^Expected option `robots` to be an object, got `null`/],
  ])('rejects %o with a TypeError that names the option and value', (bad, message) => {
    expect(() => resolveOptions({ userAgent: 'Bot', ...(bad as object) })).toThrow(TypeError);
    expect(() => resolveOptions({ userAgent: 'Bot', ...(bad as object) })).toThrow(message);
  });

  it('rejects a missing or unusable userAgent', () => {
    expect(() => resolveOptions({} as never)).toThrow(/`userAgent`/);
    expect(() => resolveOptions({ userAgent: 'Bot\r\nX-Evil: 1' })).toThrow(/`userAgent`/);
    expect(() => resolveOptions({ userAgent: '123/4.5' })).toThrow(/product token/);
    expect(() => resolveOptions(null as never)).toThrow(TypeError);
  });

  it('accepts a Keyv-shaped store, a custom scheduler object and a hostKey function', () => {
    const store = { get: async () => undefined, set: async () => true, delete: async () => true };
    const hostKey = (url: URL) => url.hostname.split('.').slice(-2).join('.');
    const resolved = resolveOptions({ userAgent: 'Bot', store, pacing: { hostKey }, scheduler: 'memory' });
    expect(resolved.store).toBe(store);
    expect(resolved.hostKey).toBe(hostKey);
  });
});

describe('productTokenOf', () => {
  it.each([
    ['MyBot/1.0 (+https://example.com/bot)', 'MyBot'],
    ['Googlebot-News', 'Googlebot-News'],
    ['spaced_bot 2', 'spaced_bot'],
    ['123bot', ''],
  ])('%s -> %s', (userAgent, token) => {
    expect(productTokenOf(userAgent)).toBe(token);
  });
});

describe('the options schema', () => {
  it('has one entry per option: a missing or an extra entry does not compile', () => {
    const { sendUserAgent: _left, ...missing } = OPTION_SCHEMA;
    // @ts-expect-error sendUserAgent has no entry
    missing satisfies PolitenessOptionTable;
    // @ts-expect-error minDelay is no option
    ({ ...OPTION_SCHEMA, minDelay: OPTION_SCHEMA.pacing }) satisfies PolitenessOptionTable;
    OPTION_SCHEMA satisfies PolitenessOptionTable;
    expect(Object.keys(OPTION_SCHEMA)).toContain('sendUserAgent');
  });

  it('lists every public option in unknown-option messages and suggests the closest', () => {
    expect(PUBLIC_OPTION_NAMES).toEqual(Object.keys(OPTION_SCHEMA).filter((name) => name !== 'clock'));
    expect(() => resolveOptions({ userAgent: 'Bot', minDelay: 500 } as never)).toThrow(
      'Unknown option `minDelay` (value `500` (number)); did you mean `pacing.minDelayMs`?; known options: userAgent, productToken, sendUserAgent, store, scheduler, purpose, onEvent, logger, robots, pacing, memory',
    );
    expect(() => resolveOptions({ userAgent: 'Bot', clok: {} } as never)).toThrow(/^(?!.*did you mean)/);
  });

  it('names a nested key by its full path, as unknown when it is, with the nearest name', () => {
    expect(() =>
      resolveOptions({ userAgent: 'Bot', robots: { parse: { wildcard: false } } } as never),
    ).toThrow(
      'Unknown option `robots.parse.wildcard` (value `false` (boolean)); did you mean `robots.parse.wildcards`?; known robots.parse options: precedence, wildcards, agentMatching, percentEncoding',
    );
    expect(() =>
      resolveOptions({ userAgent: 'Bot', robots: { parse: { wildcards: 'no' } } } as never),
    ).toThrow('Expected option `robots.parse.wildcards` to be a boolean, got `"no"` (string)');
    expect(() => resolveOptions({ userAgent: 'Bot', pacing: { minDelay: 5 } } as never)).toThrow(
      /^Unknown option `pacing.minDelay` \(value `5` \(number\)\); did you mean `pacing.minDelayMs`\?; known pacing options: minDelayMs, /,
    );
  });

  it.each([
    ['crawlDelay', -1, 'pacing.minDelayMs'],
    ['delay', 500, 'pacing.minDelayMs'],
    ['delayMs', 500, 'pacing.minDelayMs'],
    ['rateLimit', 1, 'pacing.minDelayMs'],
    ['concurrency', 2, 'pacing.maxConcurrentPerHost'],
  ])('suggests the option meant by `%s`, not the nearest spelling', (key, value, meant) => {
    expect(() => resolveOptions({ userAgent: 'Bot', [key]: value } as never)).toThrow(
      `Unknown option \`${key}\` (value \`${value}\` (number)); did you mean \`${meant}\`?`,
    );
  });

  it("names both places a `timeout` may be meant for: the HTTP client's and robots.txt's own", () => {
    expect(() => resolveOptions({ userAgent: 'Bot', timeout: 2 } as never)).toThrow(
      /^Unknown option `timeout` \(value `2` \(number\)\): .*got\.extend\(politeGot\(options\), \{ timeout \}\).*robots.txt's own limit is `robots\.timeoutMs`$/,
    );
  });

  it('suggests rateLimitAboveMax for a misspelling of it, in its group or at the top level', () => {
    expect(() => resolveOptions({ userAgent: 'Bot', ratelimitAboveMax: 'skip' } as never)).toThrow(
      /did you mean `pacing.rateLimitAboveMax`\?/,
    );
    expect(() =>
      resolveOptions({ userAgent: 'Bot', pacing: { ratelimitAboveMax: 'skip' } } as never),
    ).toThrow(/did you mean `pacing.rateLimitAboveMax`\?/);
  });

  it('suggests nothing for an unknown key that only shares a prefix with a long name', () => {
    expect(() => resolveOptions({ userAgent: 'Bot', crawl: 1 } as never)).toThrow(
      /^Unknown option `crawl` \(value `1` \(number\)\); known options/,
    );
    expect(() => resolveOptions({ userAgent: 'Bot', minDelay: 500 } as never)).toThrow(
      /did you mean `pacing.minDelayMs`\?/,
    );
  });

  it("says when an option belongs in an adapter's other argument", () => {
    expect(() => resolveOptions({ userAgent: 'Bot', spacing: 'start' } as never)).toThrow(
      'Unknown option `spacing` (value `"start"` (string)): `spacing` is an option of another argument: politeGot(options, { spacing }) or withPoliteness(crawlerOptions, politenessOptions, { spacing })',
    );
  });

  it('takes the defaults from the table', () => {
    expect(DEFAULT_OPTIONS).toEqual({
      scheduler: 'auto',
      minDelayMs: 1000,
      respectCrawlDelay: true,
      maxCrawlDelayMs: 30_000,
      crawlDelayAboveMax: 'skip',
      maxWaitMs: 60_000,
      maxConcurrentPerHost: 1,
      maxBackoffMs: 600_000,
      hostKey: 'hostname',
      latencyFactor: 2,
      maxDelayMs: 60_000,
      rateLimitHeaders: true,
      maxRateLimitDelayMs: 30_000,
      rateLimitAboveMax: 'wait',
      robotsTimeoutMs: 10_000,
      robotsMaxBytes: 512_000,
      robotsMaxRedirects: 5,
      cacheTtlMs: 86_400_000,
      minTtlMs: 60_000,
      staleTtlMs: 30 * 86_400_000,
      unreachableRetryMs: 60_000,
      onUnauthorized: 'allow',
      onUnreachable: 'disallow',
      persistPace: true,
      unreachablePolicy: 'rfc',
      memoryBudgetBytes: 256 * 1024 * 1024,
      metricsEnabled: true,
      metricsHostAttribute: false,
      metricsMaxHosts: 1000,
      logger: expect.objectContaining({ warn: expect.any(Function) }),
      sendUserAgent: true,
    });
  });
});
