/**
 * The error a request fails with when a redirect hop leads into a disallowed path. It is a Crawlee
 * NonRetryableError (so the request fails once, not retried) that core's guards also recognise:
 * `isRobotsDisallowedError(error)` and `getDisallowedDecision(error)` find it by code and brand.
 */
import { NonRetryableError } from '@crawlee/core';
import type { Decision } from '@politely/core';

const POLITELY_ERROR_BRAND = Symbol.for('politely.error');

export class RobotsRedirectError extends NonRetryableError {
  readonly code = 'ERR_ROBOTS_DISALLOWED';
  readonly [POLITELY_ERROR_BRAND] = true;
  readonly decision: Decision;

  constructor(decision: Decision, cause?: unknown) {
    const rule = decision.rule;
    const by = rule
      ? ` by "${rule.directive}: ${rule.pattern}" at line ${rule.line} of ${decision.robotsUrl}`
      : '';
    super(`Redirect into a path robots.txt disallows (${decision.reason}): ${decision.url}${by}`, { cause });
    this.name = 'RobotsRedirectError';
    this.decision = decision;
  }
}

/** Finds our error at the top of an error or in its `cause` chain (got wraps what hooks throw). */
export function findRobotsRedirectError(error: unknown): RobotsRedirectError | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    if (current instanceof RobotsRedirectError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
