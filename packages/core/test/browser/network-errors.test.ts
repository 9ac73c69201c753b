/**
 * Which of a browser's network failures are the host's trouble: the names Chromium and Firefox give
 * them, judged as got's and fetch's errors are (`isServerTroubleError`). Chromium's are also seen on
 * the wire in by-hand.test.ts; Firefox's only here (the suites run on Chromium).
 */
import { describe, expect, it } from 'vitest';
import { browserNetworkError } from '../../src/browser/network-error.js';
import { isServerTroubleError } from '../../src/signals/host-signal.js';

const trouble = (errorText: string) => isServerTroubleError(browserNetworkError(errorText));

describe('browserNetworkError', () => {
  it("counts a reset, refused, closed or timed-out connection as the host's trouble", () => {
    for (const text of [
      'net::ERR_CONNECTION_RESET',
      'net::ERR_EMPTY_RESPONSE',
      'net::ERR_CONNECTION_CLOSED',
      'net::ERR_CONNECTION_REFUSED',
      'net::ERR_TIMED_OUT',
      'net::ERR_CONNECTION_TIMED_OUT',
      'NS_ERROR_NET_RESET',
      'NS_ERROR_CONNECTION_REFUSED',
      'NS_ERROR_NET_TIMEOUT',
    ]) {
      expect([text, trouble(text)]).toEqual([text, true]);
    }
  });

  it('does not count our own aborts, a page closing, DNS or certificate errors, or no text', () => {
    for (const text of [
      'net::ERR_ABORTED',
      'net::ERR_FAILED',
      'net::ERR_BLOCKED_BY_CLIENT',
      'net::ERR_NAME_NOT_RESOLVED',
      'net::ERR_CERT_AUTHORITY_INVALID',
      'NS_BINDING_ABORTED',
      'NS_ERROR_UNKNOWN_HOST',
      '',
    ]) {
      expect([text, trouble(text)]).toEqual([text, false]);
    }
  });

  it("keeps the browser's text in the message", () => {
    expect(browserNetworkError('net::ERR_CONNECTION_RESET').message).toMatch(/net::ERR_CONNECTION_RESET/);
  });
});
