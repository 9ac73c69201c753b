/**
 * A page refused because its robots.txt could not be reached at the transport (no answer: refused,
 * unresolved, a bad certificate, a timeout) fails as the client would have failed on the page itself:
 * with the transport's own message and `code`, so the client's retry by error code (got's `retry.errorCodes`)
 * applies, and core fetches robots.txt again for that retry (cache/origin-state.ts keeps no first
 * transport failure). The refusal is still the page's verdict: the RobotsDisallowedError is the
 * error's `cause` (`getDisallowedDecision` finds it) and the page is never sent (RFC 9309 2.3.1.4).
 */
import type { Decision } from '../kernel/decision.js';
import { RobotsDisallowedError } from '../kernel/errors.js';

/** What `robotsTransportError` returns: the transport's error again, the refusal as its cause. */
export interface RobotsTransportError extends Error {
  /** The transport's code (`robots.code`), when it had one (a custom `checkServerIdentity` error has none). */
  readonly code?: string;
  readonly cause: RobotsDisallowedError;
}

/**
 * The error for a decision refused because robots.txt got no answer at all (status 0: its
 * `robots.code` and `robots.error`), or undefined for any other decision (throw
 * RobotsDisallowedError then). Its message is the transport's own (`connect ECONNREFUSED
 * 127.0.0.1:9`), as the client would show it for the page.
 */
export function robotsTransportError(decision: Decision): RobotsTransportError | undefined {
  const robots = decision.robots;
  if (decision.allowed || decision.reason !== 'unreachable' || robots?.status !== 0) return undefined;
  const error = new Error(robots.error, { cause: new RobotsDisallowedError(decision) }) as Error & {
    code?: string;
  };
  if (robots.code !== undefined) error.code = robots.code;
  return error as RobotsTransportError;
}
