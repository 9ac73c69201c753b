/**
 * The public API of each package, as names: adding or removing an export is a deliberate change that
 * shows up here (and in the package README), never an accident of a refactor.
 */

import * as core from '@politely/core';
import * as crawlee from '@politely/crawlee';
import * as fetch from '@politely/fetch';
import * as got from '@politely/got';
import { describe, expect, it } from 'vitest';

const exportsOf = (module: object) => Object.keys(module).sort();

describe('public API', () => {
  it('@politely/core', () => {
    expect(exportsOf(core)).toEqual([
      'DEFAULT_OPTIONS',
      'DEFAULT_REDIS_PREFIX',
      'DeadlineExceededError',
      'LINT_CODES',
      'MAX_CRAWL_DELAY_SECONDS',
      'MAX_LINE_BYTES',
      'PolitelyError',
      'RobotsDisallowedError',
      'RobotsTxt',
      'WaitTooLongError',
      'createMemoryScheduler',
      'createMemoryStore',
      'createPoliteness',
      'createRedisScheduler',
      'diffRobotsTxt',
      'escapePattern',
      'fetchRobotsTxt',
      'getDisallowedDecision',
      'getPathParamsQuery',
      'getWaitTooLongError',
      'isDeadlineExceededError',
      'isPoliteness',
      'isRedisClient',
      'isRobotsDisallowedError',
      'isRobotsTxtUrl',
      'isServerTroubleError',
      'isValidProductToken',
      'isWaitTooLongError',
      'lintRobotsTxt',
      'nodeFetch',
      'parseRobotsTxt',
      'productTokenOf',
      'readRobotsTxtLines',
      'redisClientFromStore',
      'resolveOptions',
      'retryAfterMs',
      'robotsLocation',
      'robotsPolicy',
      'systemClock',
    ]);
  });

  it('@politely/got', () => {
    expect(exportsOf(got)).toEqual([
      'RobotsDisallowedError',
      'WaitTooLongError',
      'getDisallowedDecision',
      'getRetryAfterMs',
      'isRobotsDisallowedError',
      'isWaitTooLongError',
      'politeGot',
      'politenessOf',
    ]);
  });

  it('@politely/fetch', () => {
    expect(exportsOf(fetch)).toEqual([
      'RobotsDisallowedError',
      'WaitTooLongError',
      'getDisallowedDecision',
      'getWaitTooLongError',
      'isRobotsDisallowedError',
      'isWaitTooLongError',
      'politeFetch',
      'politenessOf',
    ]);
  });

  it('@politely/crawlee', () => {
    expect(exportsOf(crawlee)).toEqual([
      'PoliteRequestManager',
      'RobotsDisallowedError',
      'RobotsRedirectError',
      'createPoliteness',
      'findRobotsRedirectError',
      'getDisallowedDecision',
      'isRobotsDisallowedError',
      'politenessOf',
      'withPoliteness',
    ]);
  });

  it('the error guards are one implementation, whichever package they are imported from', () => {
    expect(got.isRobotsDisallowedError).toBe(core.isRobotsDisallowedError);
    expect(crawlee.getDisallowedDecision).toBe(core.getDisallowedDecision);
    expect(crawlee.createPoliteness).toBe(core.createPoliteness);
  });
});
