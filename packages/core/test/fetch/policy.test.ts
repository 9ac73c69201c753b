import { describe, expect, it } from 'vitest';
import { charsetOf, robotsPolicy } from '../../src/fetch/policy.js';

describe('robotsPolicy: HTTP outcome -> rules (RFC 9309 2.3.1)', () => {
  it.each([
    [200, 'ok', 'parse'],
    [204, 'ok', 'parse'],
    [299, 'ok', 'parse'],
    [300, 'unavailable', 'allow-all'],
    // A 304 answers only a conditional request (RFC 9110 15.4.5): one we did not ask for is no rules.
    [304, 'unreachable', 'disallow-all'],
    [400, 'unavailable', 'allow-all'],
    [401, 'unavailable', 'allow-all'],
    [403, 'unavailable', 'allow-all'],
    [404, 'unavailable', 'allow-all'],
    [410, 'unavailable', 'allow-all'],
    [451, 'unavailable', 'allow-all'],
    [429, 'unreachable', 'disallow-all'],
    [500, 'unreachable', 'disallow-all'],
    [503, 'unreachable', 'disallow-all'],
    [599, 'unreachable', 'disallow-all'],
    [0, 'unreachable', 'disallow-all'],
    [101, 'unreachable', 'disallow-all'],
    [600, 'unreachable', 'disallow-all'],
  ] as const)('%i -> %s (%s)', (status, outcome, rules) => {
    expect(robotsPolicy({ status })).toMatchObject({ outcome, rules });
  });

  it('too many redirects is unavailable (2.3.1.2), unlike other status-0 failures', () => {
    expect(robotsPolicy({ status: 0, failure: 'too-many-redirects' })).toMatchObject({
      outcome: 'unavailable',
      basis: 'RFC 9309 2.3.1.2',
    });
    expect(robotsPolicy({ status: 0, failure: 'timeout' }).outcome).toBe('unreachable');
    expect(robotsPolicy({ status: 0, failure: 'network' }).outcome).toBe('unreachable');
  });

  it.each([401, 403])("%i follows onUnauthorized: 'disallow' makes it unreachable-like", (status) => {
    expect(robotsPolicy({ status }, { onUnauthorized: 'disallow' })).toMatchObject({
      outcome: 'unreachable',
      rules: 'disallow-all',
    });
    expect(robotsPolicy({ status }, { onUnauthorized: 'allow' }).outcome).toBe('unavailable');
  });

  it('onUnauthorized does not touch other 4xx', () => {
    expect(robotsPolicy({ status: 404 }, { onUnauthorized: 'disallow' }).outcome).toBe('unavailable');
  });
});

describe('charsetOf', () => {
  it.each([
    ['text/plain; charset=ISO-8859-1', 'iso-8859-1'],
    ['text/plain;charset="utf-16"', 'utf-16'],
    ['text/plain', undefined],
    [undefined, undefined],
  ])('%s -> %s', (contentType, expected) => {
    expect(charsetOf(contentType)).toBe(expected);
  });
});
