/**
 * Option messages across the packages: an option given to the wrong argument of an adapter is named
 * with the argument it belongs in, and the core's list of such options follows the adapters' tables.
 */
import { createPoliteness } from '@politely/core';
import { withPoliteness } from '@politely/crawlee';
import { politeFetch } from '@politely/fetch';
import { politeGot } from '@politely/got';
import { describe, expect, it } from 'vitest';
import { MOVED_OPTIONS, OPTIONS_OF_OTHER_ARGUMENTS } from '../packages/core/src/facade/options.js';

/** What `call` throws (a test fails when it throws nothing). */
function catchError(call: () => unknown): Error {
  try {
    call();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

/** The names an options table knows, as its "unknown option" error lists them. */
function knownNames(call: () => unknown): string[] {
  try {
    call();
  } catch (error) {
    const list = /known options: (.*)$/.exec((error as Error).message)?.[1];
    if (list) return list.split(', ');
  }
  throw new Error('expected an unknown-option error');
}

describe('an option in the wrong argument', () => {
  it('politeGot({ userAgent, spacing }) says spacing goes in the second argument', () => {
    expect(() => politeGot({ userAgent: 'Bot', logger: false, spacing: 'start' } as never)).toThrow(
      /`spacing` is an option of another argument: politeGot\(options, \{ spacing \}\)/,
    );
  });

  it('withPoliteness: a missing second argument, swapped arguments and userAgent among the crawler options each name the fix', () => {
    const handler = { requestHandler: async () => {} };
    const missing = catchError(() => withPoliteness(handler, undefined as never));
    expect(missing).toBeInstanceOf(TypeError);
    expect(missing.message).toContain(
      "politely's options (at least `userAgent`) or a Politeness as its second argument",
    );
    const swapped = catchError(() => withPoliteness({ userAgent: 'Bot/1.0' }, handler as never));
    expect(swapped).toBeInstanceOf(TypeError);
    expect(swapped.message).toContain("the crawler's options come first, politely's second");
    const misplaced = catchError(() =>
      withPoliteness({ ...handler, userAgent: 'Bot/1.0' }, { userAgent: 'Bot/1.0' }),
    );
    expect(misplaced).toBeInstanceOf(TypeError);
    expect(misplaced.message).toContain("`userAgent` is politely's option, not the crawler's");
  });

  it('withPoliteness({}, { userAgent, maxParked }) says maxParked goes in the plugin options', () => {
    expect(() => withPoliteness({}, { userAgent: 'Bot', logger: false, maxParked: 5 } as never)).toThrow(
      /`maxParked` is an option of another argument: withPoliteness\(crawlerOptions, politenessOptions, \{ maxParked \}\)/,
    );
  });

  it("politeGot({ timeout }) names got's own options, shows the value, and is no `robots.timeoutMs`", () => {
    const error = catchError(() =>
      politeGot({ userAgent: 'Bot', logger: false, timeout: { request: 5000 } } as never),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(
      'Unknown option `timeout` (value `{ request: 5000 }` (object)): `timeout` is an option of another ' +
        'argument: got.extend(politeGot(options), { timeout }), or with fetch a signal per request: ' +
        "fetch(url, { signal: AbortSignal.timeout(ms) }); robots.txt's own limit is `robots.timeoutMs`",
    );
  });

  it.each([
    ['retry', { limit: 2 }, 'got.extend(politeGot(options), { retry })'],
    ['hooks', { beforeRequest: [] }, 'got.extend(politeGot(options), { hooks })'],
    ['headers', { accept: 'text/html' }, 'fetch(url, { headers })'],
    ['signal', AbortSignal.timeout(1000), 'fetch(url, { signal })'],
  ])('an HTTP client option (`%s`) given to politely names where it goes', (name, value, where) => {
    for (const factory of [politeGot, politeFetch]) {
      const error = catchError(() => factory({ userAgent: 'Bot', logger: false, [name]: value } as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toContain(`\`${name}\` is an option of another argument`);
      expect(error.message).toContain(where);
      expect(error.message).not.toContain('did you mean');
    }
  });

  it("the core's list holds every option of the adapters' own arguments", () => {
    const politeness = createPoliteness({ userAgent: 'Bot', logger: false });
    const adapterOptions = [
      ...knownNames(() => politeGot(politeness, { zzz: 1 } as never)),
      ...knownNames(() => withPoliteness({}, politeness, { zzz: 1 } as never)),
      ...knownNames(() => politeFetch(politeness, { zzz: 1 } as never)),
    ].filter((name) => name !== 'fetch'); // also an option of createPoliteness: not misplaced there
    expect(adapterOptions.length).toBeGreaterThan(5);
    for (const name of adapterOptions) expect(OPTIONS_OF_OTHER_ARGUMENTS).toHaveProperty(name);
  });
});

describe('a Redis URL where a Keyv or a Redis client belongs', () => {
  const base = { userAgent: 'Bot', logger: false } as const;
  const url = 'redis://:s3cret@cache.internal:6379';

  it('`store: url` says to pass createKeyv(url) from @keyv/redis, without the password', () => {
    for (const factory of [createPoliteness, politeGot, politeFetch] as const) {
      const error = catchError(() => factory({ ...base, store: url } as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toBe(
        'Expected option `store` to be a Keyv instance or an object with get, set and delete methods, got ' +
          '`"redis://cache.internal:6379"` (string); a URL is not taken: for Redis pass `store: createKeyv(url)` ' +
          "(`import { createKeyv } from '@keyv/redis'`), which keeps the robots.txt cache there, and paces " +
          'every process on it',
      );
    }
    expect(catchError(() => withPoliteness({}, { ...base, store: url } as never)).message).toContain(
      '`store: createKeyv(url)`',
    );
  });

  it('`scheduler: url` says the same', () => {
    const error = catchError(() => createPoliteness({ ...base, scheduler: url } as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(
      /^Expected option `scheduler` to be .* got `"redis:\/\/cache.internal:6379"`/,
    );
    expect(error.message).toContain("`store: createKeyv(url)` (`import { createKeyv } from '@keyv/redis'`)");
    expect(error.message).not.toContain('s3cret');
    // 'auto' and 'memory' stay what they are.
    return createPoliteness({ ...base, scheduler: 'memory' }).close();
  });
});

/** Every option that was top-level before the groups, and where it lives now. */
const MOVED: readonly (readonly [string, string])[] = [
  ['fetch', 'robots.fetch'],
  ['robotsTimeoutMs', 'robots.timeoutMs'],
  ['robotsMaxBytes', 'robots.maxBytes'],
  ['robotsMaxRedirects', 'robots.maxRedirects'],
  ['cacheTtlMs', 'robots.cacheTtlMs'],
  ['minTtlMs', 'robots.minTtlMs'],
  ['staleTtlMs', 'robots.staleTtlMs'],
  ['unreachableRetryMs', 'robots.unreachableRetryMs'],
  ['onUnauthorized', 'robots.onUnauthorized'],
  ['onUnreachable', 'robots.onUnreachable'],
  ['unreachablePolicy', 'robots.unreachablePolicy'],
  ['parse', 'robots.parse'],
  ['minDelayMs', 'pacing.minDelayMs'],
  ['respectCrawlDelay', 'pacing.respectCrawlDelay'],
  ['maxCrawlDelayMs', 'pacing.maxCrawlDelayMs'],
  ['crawlDelayAboveMax', 'pacing.crawlDelayAboveMax'],
  ['maxWaitMs', 'pacing.maxWaitMs'],
  ['maxConcurrentPerHost', 'pacing.maxConcurrentPerHost'],
  ['maxBackoffMs', 'pacing.maxBackoffMs'],
  ['latencyFactor', 'pacing.latencyFactor'],
  ['maxDelayMs', 'pacing.maxDelayMs'],
  ['rateLimitHeaders', 'pacing.rateLimitHeaders'],
  ['maxRateLimitDelayMs', 'pacing.maxRateLimitDelayMs'],
  ['rateLimitAboveMax', 'pacing.rateLimitAboveMax'],
  ['hostKey', 'pacing.hostKey'],
  ['lookup', 'pacing.lookup'],
  ['persistPace', 'pacing.persistPace'],
  ['memoryCacheSize', 'memory.cacheSize'],
  ['memoryBudgetBytes', 'memory.budgetBytes'],
];

describe('an old flat option name (before the groups)', () => {
  const base = { userAgent: 'Bot', logger: false } as const;

  it.each(MOVED)('`%s` is refused with its new place, `%s`', (flat, place) => {
    expect(() => createPoliteness({ ...base, [flat]: 1 } as never)).toThrow(
      new TypeError(`Unknown option \`${flat}\` (value \`1\` (number)): \`${flat}\` moved to \`${place}\``),
    );
  });

  it('is refused the same way by every adapter that takes the options', () => {
    const moved =
      /^Unknown option `minDelayMs` \(value `500` \(number\)\): `minDelayMs` moved to `pacing.minDelayMs`$/;
    expect(() => politeGot({ ...base, minDelayMs: 500 } as never)).toThrow(moved);
    expect(() => politeFetch({ ...base, minDelayMs: 500 } as never)).toThrow(moved);
    expect(() => withPoliteness({}, { ...base, minDelayMs: 500 } as never)).toThrow(moved);
  });

  it('given in the wrong group, says which group it belongs in', () => {
    expect(() => createPoliteness({ ...base, pacing: { cacheTtlMs: 1 } } as never)).toThrow(
      'Unknown option `pacing.cacheTtlMs` (value `1` (number)): `pacing.cacheTtlMs` belongs in `robots.cacheTtlMs`',
    );
    expect(() => createPoliteness({ ...base, robots: { minDelayMs: 1 } } as never)).toThrow(
      /`robots.minDelayMs` belongs in `pacing.minDelayMs`$/,
    );
  });

  it('is no option of the public type', () => {
    // @ts-expect-error minDelayMs moved to pacing.minDelayMs
    expect(() => createPoliteness({ ...base, minDelayMs: 1 })).toThrow(TypeError);
    // @ts-expect-error clock is internal: accepted, but no part of PolitenessOptions
    const politeness = createPoliteness({ ...base, clock: { now: Date.now, sleep: async () => {} } });
    return politeness.close();
  });

  it('the list above is every option that moved', () => {
    expect(Object.entries(MOVED_OPTIONS)).toEqual(expect.arrayContaining(MOVED.map(([a, b]) => [a, b])));
    expect(Object.keys(MOVED_OPTIONS)).toHaveLength(MOVED.length);
  });
});
