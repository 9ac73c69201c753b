/**
 * The error a request fails with when robots.txt refuses it after it left the queue: a redirect hop
 * into a disallowed path, or (rarely) its own URL once robots.txt changed. A Crawlee
 * NonRetryableError (the request fails once, not retried) that core's guards also recognise:
 * `isRobotsDisallowedError(error)` and `getDisallowedDecision(error)` find it by code and brand.
 * It carries no `cause`: Crawlee's error summary counts every error of a cause chain, and one
 * refusal is one error.
 */
import { NonRetryableError } from '@crawlee/core';
import type { Decision } from '@politely/core';

const POLITELY_ERROR_BRAND = Symbol.for('politely.error');

export class RobotsRedirectError extends NonRetryableError {
  readonly code = 'ERR_ROBOTS_DISALLOWED';
  readonly [POLITELY_ERROR_BRAND] = true;
  readonly decision: Decision;

  constructor(decision: Decision, stage: 'redirect' | 'send' = 'redirect') {
    const rule = decision.rule;
    const by = rule
      ? ` by "${rule.directive}: ${rule.pattern}" at line ${rule.line} of ${decision.robotsUrl}`
      : '';
    const what =
      stage === 'redirect' ? 'Redirect into a path robots.txt disallows' : 'robots.txt no longer allows';
    super(`${what} (${decision.reason}): ${decision.url}${by}`);
    this.name = 'RobotsRedirectError';
    this.decision = decision;
  }
}
