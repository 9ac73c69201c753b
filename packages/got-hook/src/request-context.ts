/**
 * What the hooks read from and leave on got's options: the User-Agent, the request's own limits, and
 * the details of a refusal on `context.politely`.
 */
import { type Decision, getDisallowedDecision, getWaitTooLongError } from '@politely/core';
import type { GotRequestOptionsLike } from './got-shapes.js';
import type { WaitLimits } from './host-hold.js';

/**
 * Left on `options.context.politely` before the hook rejects, because got 14.0.x wraps hook errors
 * without a `cause` (14.2.1 and later keep it): `error.options.context.politely` is the one place the
 * details survive in every version.
 */
export interface PolitelyGotContext {
  readonly decision?: Decision;
  readonly retryAfterMs?: number;
  /** The error the hook threw: core's guards follow it where got kept no `cause`. */
  readonly error?: unknown;
}

/**
 * got's own default User-Agent (14.x to 16.x). A request carrying it was given none by the caller, so
 * it gets the crawler's: the site then sees the product token the rules were matched with.
 */
const GOT_DEFAULT_USER_AGENT = /^got \(https:\/\/github\.com\/sindresorhus\/got\)$/;

/**
 * Sets the User-Agent header unless the caller chose one (got's default does not count). A header
 * set to undefined is a choice too: got then sends none (it deletes the header before its
 * beforeRequest hooks, so here it is absent: every got has a default), and so does the page.
 */
export function identify(request: GotRequestOptionsLike, userAgent: string): void {
  const headers = request.headers;
  if (headers === undefined || !('user-agent' in headers)) return;
  const current = headers['user-agent'];
  if (
    current === undefined ||
    current === '' ||
    (typeof current === 'string' && GOT_DEFAULT_USER_AGENT.test(current))
  ) {
    headers['user-agent'] = userAgent;
  }
}

export interface RequestLimits extends WaitLimits {
  /** The request's `timeout.request`, if finite. */
  readonly timeoutMs?: number | undefined;
}

/**
 * got's own limits bound our waits too: its `signal`, and `timeout.request` (got starts that timer
 * only once the hooks are done, so without this a robots.txt wait could outlast it many times over).
 */
export function limitsOf(request: GotRequestOptionsLike): RequestLimits {
  const limit = request.timeout?.request;
  const timeoutMs = typeof limit === 'number' && Number.isFinite(limit) && limit >= 0 ? limit : undefined;
  const startedAt = Date.now();
  return {
    signal: request.signal,
    timeoutMs,
    left: () => (timeoutMs === undefined ? undefined : Math.max(0, timeoutMs - (Date.now() - startedAt))),
  };
}

/** Leaves a refusal's details (the decision, or when to retry) where every got version keeps them. */
export function recordDetails(context: Record<string, unknown> | undefined, error: unknown): void {
  if (typeof context !== 'object' || context === null) return;
  const decision = getDisallowedDecision(error);
  const tooLong = decision ? undefined : getWaitTooLongError(error);
  context.politely = {
    ...(decision ? { decision } : {}),
    ...(tooLong ? { retryAfterMs: tooLong.retryAfterMs } : {}),
    error,
  } satisfies PolitelyGotContext;
}
