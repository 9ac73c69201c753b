/**
 * got extend-options that make every request polite: a thin translator from got's hooks to the core
 * facade. got runs `beforeRequest` again for every redirect hop and every retry, so this one hook
 * checks each hop against its own host's robots.txt and takes a pacing slot for each attempt.
 */
import {
  createPoliteness,
  type Decision,
  getDisallowedDecision,
  getWaitTooLongError,
  isWaitTooLongError,
  type Politeness,
  type PolitenessOptions,
  type ReserveOptions,
} from '@politely/core';
import type { GotRequestOptionsLike, GotResponseLike, PoliteGotOptions } from './got-shapes.js';

/**
 * Left on `options.context.politely` before the hook rejects, because got 14.0.x wraps hook errors
 * without a `cause` (14.2.1 and later keep it): `error.options.context.politely` is the one place the
 * details survive in every version.
 */
export interface PolitelyGotContext {
  readonly decision?: Decision;
  readonly retryAfterMs?: number;
}

const POLITENESS = Symbol.for('politely.got.politeness');

/** Statuses whose Retry-After backs a host off (RFC 9110 15.5.30 / 15.6.4). */
const BACKOFF_STATUSES = new Set([429, 503]);

/**
 * Returns got extend-options: `got.extend(politeGot({ userAgent: 'MyBot/1.0' }))`.
 * Pass an existing Politeness instead of options to share its cache, pacing and stats with other clients.
 */
export function politeGot(options: PolitenessOptions | Politeness): PoliteGotOptions {
  const politeness = createPoliteness(options); // hands back a Politeness it is given

  const beforeRequest = async (request: GotRequestOptionsLike): Promise<undefined> => {
    if (request.url === undefined) return undefined; // got reports a missing URL itself
    const reserveOptions: ReserveOptions = request.signal ? { signal: request.signal } : {};
    try {
      await politeness.admit(request.url, reserveOptions);
    } catch (error) {
      recordDetails(request.context, error);
      throw error;
    }
    return undefined; // anything else would be taken by got as the response
  };

  const afterResponse = async <Response extends GotResponseLike>(response: Response): Promise<Response> => {
    if (BACKOFF_STATUSES.has(response.statusCode)) {
      const retryAfter = response.headers['retry-after'];
      try {
        await politeness.observeResponse(response.url, response.statusCode, firstValue(retryAfter) ?? null);
      } catch {
        // Backoff is advice: a scheduler failure must not turn a response into a crash.
      }
    }
    return response;
  };

  const extendOptions: PoliteGotOptions = {
    hooks: { beforeRequest: [beforeRequest], afterResponse: [afterResponse] },
  };
  // Symbol-keyed and non-enumerable, so got's option validation never sees it.
  Object.defineProperty(extendOptions, POLITENESS, { value: politeness, enumerable: false });
  return extendOptions;
}

/** The Politeness behind options returned by `politeGot`: for `stats()`, `subscribe()`, `close()`. */
export function politenessOf(extendOptions: PoliteGotOptions): Politeness {
  const politeness = (extendOptions as { [POLITENESS]?: Politeness })[POLITENESS];
  if (politeness === undefined) {
    throw new TypeError('politenessOf() expects the options object returned by politeGot()');
  }
  return politeness;
}

/**
 * Milliseconds after which a request rejected for waiting too long can be retried, whether got wrapped
 * the WaitTooLongError or not (got 14.0.x keeps no `cause`); undefined for other errors.
 */
export function getRetryAfterMs(error: unknown): number | undefined {
  if (!isWaitTooLongError(error)) return undefined;
  const wrapped = error as { retryAfterMs?: unknown; cause?: { retryAfterMs?: unknown } };
  for (const candidate of [wrapped.retryAfterMs, wrapped.cause?.retryAfterMs]) {
    if (typeof candidate === 'number') return candidate;
  }
  const context = (error as { options?: { context?: { politely?: PolitelyGotContext } } }).options?.context;
  return context?.politely?.retryAfterMs;
}

function recordDetails(context: Record<string, unknown> | undefined, error: unknown): void {
  if (typeof context !== 'object' || context === null) return;
  const decision = getDisallowedDecision(error);
  if (decision) {
    context.politely = { decision } satisfies PolitelyGotContext;
  } else {
    const tooLong = getWaitTooLongError(error);
    if (tooLong) context.politely = { retryAfterMs: tooLong.retryAfterMs } satisfies PolitelyGotContext;
  }
}

function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}
