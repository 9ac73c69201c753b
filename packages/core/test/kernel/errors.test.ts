/**
 * `getRetryAfterMs`: one way to read when a request refused for waiting too long may be retried,
 * whichever adapter threw and however the error was wrapped.
 */
import { describe, expect, it } from 'vitest';
import { getRetryAfterMs, WaitTooLongError } from '../../src/index.js';

describe('getRetryAfterMs', () => {
  const tooLong = new WaitTooLongError('a.test', 1234.2, 500);

  it('reads a WaitTooLongError thrown directly, rounded up to whole ms', () => {
    expect(getRetryAfterMs(tooLong)).toBe(1235);
  });

  it('reads one wrapped in a cause chain (a client that wraps errors)', () => {
    const wrapped = new Error('request failed', { cause: new Error('inner', { cause: tooLong }) });
    expect(getRetryAfterMs(wrapped)).toBe(1235);
  });

  it("reads got 14.0's form: the code copied, the details on error.options.context.politely only", () => {
    const gotError = Object.assign(new Error('wrapped'), {
      code: 'ERR_WAIT_TOO_LONG',
      options: { context: { politely: { retryAfterMs: 900 } } },
    });
    expect(getRetryAfterMs(gotError)).toBe(900);
  });

  it('is undefined for other errors and for values that are no errors', () => {
    expect(getRetryAfterMs(new Error('other'))).toBeUndefined();
    expect(getRetryAfterMs(Object.assign(new Error('x'), { retryAfterMs: 5 }))).toBeUndefined();
    expect(getRetryAfterMs(null)).toBeUndefined();
    expect(getRetryAfterMs('ERR_WAIT_TOO_LONG')).toBeUndefined();
    const refused = Object.assign(new Error('refused'), { code: 'ERR_ROBOTS_DISALLOWED', retryAfterMs: 5 });
    expect(getRetryAfterMs(refused)).toBeUndefined();
  });
});
