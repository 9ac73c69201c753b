/**
 * A page refused because its robots.txt could not be reached at the transport (no answer: refused,
 * unresolved, a bad certificate, a timeout) fails as the client would have failed on the page itself:
 * with the transport's own `code`, so the client's retry by error code (got's `retry.errorCodes`)
 * applies, and core fetches robots.txt again for that retry (cache/origin-state.ts keeps no first
 * transport failure). The refusal is still the page's verdict: the RobotsDisallowedError is the
 * error's `cause` (`getDisallowedDecision` finds it) and the page is never sent (RFC 9309 2.3.1.4).
 */
import type { Decision } from '../kernel/decision.js';
import { RobotsDisallowedError } from '../kernel/errors.js';

/** What `robotsTransportError` returns: an Error with the transport's code and the refusal as cause. */
export interface RobotsTransportError extends Error {
  readonly code: string;
  readonly cause: RobotsDisallowedError;
}

/**
 * The error for a decision refused because robots.txt was unreachable at the transport (its
 * `robots.code`), or undefined for any other decision (throw RobotsDisallowedError then).
 */
export function robotsTransportError(decision: Decision): RobotsTransportError | undefined {
  const code = decision.robots?.code;
  if (decision.allowed || decision.reason !== 'unreachable' || code === undefined) return undefined;
  const refusal = new RobotsDisallowedError(decision);
  const error = new Error(`${decision.robots?.error ?? code} (robots.txt ${decision.robotsUrl})`, {
    cause: refusal,
  }) as Error & { code: string };
  error.code = code;
  return error as RobotsTransportError;
}
