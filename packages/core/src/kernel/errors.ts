/**
 * Typed errors with stable codes. got wraps errors thrown in hooks (copying `code`, keeping `cause`
 * only from 14.6), so every guard here looks at `code`, then through `cause`, and works across realms
 * via a Symbol.for brand rather than `instanceof`.
 */

import type { Decision } from './decision.js';
import { withoutCredentials } from './redact.js';

const BRAND = Symbol.for('politely.error');

export type PolitelyErrorCode =
  | 'ERR_ROBOTS_DISALLOWED'
  | 'ERR_USAGE_REFUSED'
  | 'ERR_TDM_RESERVED'
  | 'ERR_WAIT_TOO_LONG'
  | 'ERR_DEADLINE_EXCEEDED'
  | 'ERR_CLOSED';

export class PolitelyError extends Error {
  readonly code: PolitelyErrorCode;
  readonly [BRAND] = true;

  constructor(code: PolitelyErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PolitelyError';
    this.code = code;
  }
}

/**
 * The URL may not be fetched: disallowed by a rule, robots.txt unreachable, or a Crawl-delay above the
 * maximum. A refusal by usage preferences (reason 'usage-refused') is one too, with its own code,
 * `ERR_USAGE_REFUSED`, and name, so code that handles refusals handles it and code that must tell it
 * apart can (`isUsageRefusedError`). So is a TDMRep reservation (reason 'tdm-reserved'): code
 * `ERR_TDM_RESERVED`, name `TdmReservedError`, a usage refusal too (`isUsageRefusedError` is true;
 * tell it apart by its code or `decision.reason`). A variant rather than a class of its own: the root
 * entry point has room for few names, and the guards already look through wrappers by code.
 */
export class RobotsDisallowedError extends PolitelyError {
  readonly decision: Decision;

  constructor(decision: Decision) {
    const { code, name } = REFUSAL_KINDS[decision.reason] ?? REFUSAL_KINDS.disallowed;
    super(code, describeDecision(decision));
    this.name = name;
    this.decision = decision;
  }

  get url(): string {
    return this.decision.url;
  }
  get reason(): Decision['reason'] {
    return this.decision.reason;
  }
}

const REFUSAL_KINDS: Partial<
  Record<Decision['reason'], { readonly code: PolitelyErrorCode; readonly name: string }>
> & { readonly disallowed: { readonly code: PolitelyErrorCode; readonly name: string } } = {
  disallowed: { code: 'ERR_ROBOTS_DISALLOWED', name: 'RobotsDisallowedError' },
  'usage-refused': { code: 'ERR_USAGE_REFUSED', name: 'UsageRefusedError' },
  'tdm-reserved': { code: 'ERR_TDM_RESERVED', name: 'TdmReservedError' },
};

/**
 * A blocking reservation would have waited longer than `maxWaitMs`; nothing was reserved. Also what
 * `rateLimitAboveMax: 'fail'` fails a request with while its host's rate-limit headers hold it longer
 * than maxRateLimitDelayMs (`maxWaitMs` is then that limit, and the message names it).
 */
export class WaitTooLongError extends PolitelyError {
  readonly host: string;
  readonly waitMs: number;
  readonly maxWaitMs: number;

  constructor(
    host: string,
    waitMs: number,
    maxWaitMs: number,
    limit: 'maxWaitMs' | 'maxRateLimitDelayMs' = 'maxWaitMs',
  ) {
    super(
      'ERR_WAIT_TOO_LONG',
      limit === 'maxWaitMs'
        ? `Next slot for host "${host}" is ${Math.ceil(waitMs)} ms away, more than maxWaitMs (${maxWaitMs} ms); retry later`
        : `Host "${host}" is held ${Math.ceil(waitMs)} ms more by its rate-limit headers, which ask for more time between requests than maxRateLimitDelayMs (${maxWaitMs} ms; rateLimitAboveMax: 'fail'); retry later`,
    );
    this.name = 'WaitTooLongError';
    this.host = host;
    this.waitMs = waitMs;
    this.maxWaitMs = maxWaitMs;
  }

  /** Milliseconds after which a retry can expect a free slot. */
  get retryAfterMs(): number {
    return Math.ceil(this.waitMs);
  }
}

/**
 * The request's own time limit (`timeoutMs`, got's `timeout.request`) ran out while politely waited
 * for it: for robots.txt (the shared fetch goes on for other callers) or for a pacing slot. Not a
 * verdict: the URL was neither allowed nor disallowed, and can be retried.
 */
export class DeadlineExceededError extends PolitelyError {
  readonly url: string;
  readonly phase: 'robots.txt' | 'pacing';
  readonly timeoutMs: number;

  constructor(url: string, phase: 'robots.txt' | 'pacing', timeoutMs: number) {
    const target = withoutCredentials(url);
    super(
      'ERR_DEADLINE_EXCEEDED',
      phase === 'robots.txt'
        ? `Gave up waiting for robots.txt after ${timeoutMs} ms (the request's own time limit); nothing was decided for ${target}`
        : `Gave up waiting for a pacing slot after ${timeoutMs} ms (the request's own time limit): ${target}`,
    );
    this.name = 'DeadlineExceededError';
    this.url = target;
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The instance (or its scheduler) was closed while the caller waited, or before it asked: for a
 * pacing slot, a place in flight or robots.txt. Nothing was sent for it, and nothing will be.
 */
export class ClosedError extends PolitelyError {
  constructor(what = 'politeness instance') {
    super('ERR_CLOSED', `The ${what} was closed: nothing more is sent through it`);
    this.name = 'ClosedError';
  }
}

/** True for a ClosedError, thrown directly or wrapped (by `code`, through `cause`). */
export const isClosedError = (error: unknown): boolean => hasCode(error, 'ERR_CLOSED');

/** True for a DeadlineExceededError, thrown directly or wrapped (by `code`, through `cause`). */
export const isDeadlineExceededError = (error: unknown): boolean => hasCode(error, 'ERR_DEADLINE_EXCEEDED');

/** Ours somewhere down the chain, or a wrapper that copied only the code (got's). */
function hasCode(error: unknown, code: PolitelyErrorCode): boolean {
  return findByCode(error, code) !== undefined || (error as { code?: unknown } | null)?.code === code;
}

function describeDecision(decision: Decision): string {
  const target = `GET ${withoutCredentials(decision.url)} (user-agent "${decision.productToken}")`;
  switch (decision.reason) {
    case 'disallowed': {
      const rule = decision.rule;
      const by = rule
        ? `"Disallow: ${rule.pattern}" at line ${rule.line} of ${decision.robotsUrl}`
        : decision.robotsUrl;
      return `Disallowed by robots.txt: ${target}, by ${by}`;
    }
    case 'unreachable': {
      // What went wrong first: a DNS failure or a proxy's 502 must not read as the site's own rules.
      const why = decision.robots
        ? `robots.txt unreachable: ${decision.robots.error}`
        : 'robots.txt unreachable';
      return `Disallowed, ${why} (${decision.robotsUrl}; RFC 9309 2.3.1.4 disallows all until it answers): ${target}`;
    }
    case 'crawl-delay-too-long':
      return `Skipped: Crawl-delay of ${decision.crawlDelayMs} ms at ${decision.robotsUrl} is above maxCrawlDelayMs: ${target}`;
    case 'rate-limited': {
      const limit = decision.rateLimit;
      const asked = limit
        ? `ask for ${limit.spacingMs} ms between requests until ${new Date(limit.untilMs).toISOString()}`
        : 'ask for more time between requests';
      return `Skipped: the host's rate-limit headers ${asked}, above maxRateLimitDelayMs: ${target}`;
    }
    case 'usage-refused': {
      const refusal = decision.usageRefusal;
      const where = refusal?.source === 'header' ? "the response's Content-Usage header" : decision.robotsUrl;
      const by = refusal ? `${refusal.by} ${refusal.label}=no in ${where}` : where;
      return `Refused for purpose "${refusal?.purpose ?? '?'}": ${by}: ${target}`;
    }
    case 'tdm-reserved': {
      const tdm = decision.tdm;
      const where =
        tdm?.source === 'tdmrep.json'
          ? `${tdm.file ?? 'tdmrep.json'} (location "${tdm.location ?? '?'}")`
          : tdm?.source === 'meta'
            ? "the page's tdm-reservation meta tag"
            : "the response's tdm-reservation header";
      const policy = tdm?.policy ? `; policy: ${tdm.policy}` : '';
      return `Refused for purpose "${decision.purpose ?? '?'}": text and data mining rights reserved by ${where} (TDMRep)${policy}: ${target}`;
    }
    default:
      return `Disallowed: ${target}`;
  }
}

/** Walks an error and its `cause` chain (bounded, cycle-safe). */
function* errorChain(error: unknown): Generator<unknown> {
  let current = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    yield current;
    // got 14.0-14.1 wrap a hook's error without `cause`: the got hook leaves the error it threw on
    // `options.context.politely.error`, the next link of the chain there.
    current =
      (current as { cause?: unknown }).cause ??
      (current as { options?: { context?: { politely?: { error?: unknown } } } }).options?.context?.politely
        ?.error;
  }
}

function findByCode(error: unknown, code: PolitelyErrorCode): unknown {
  for (const candidate of errorChain(error)) {
    if ((candidate as { code?: unknown }).code === code && BRAND in (candidate as object)) return candidate;
  }
  return undefined;
}

/** Reads details that got 14.0-14.5 keeps only on `error.options.context` (no `cause` there). */
function contextDecision(error: unknown): Decision | undefined {
  const context = (error as { options?: { context?: { politely?: { decision?: Decision } } } } | null)
    ?.options?.context;
  return context?.politely?.decision;
}

/**
 * True for a RobotsDisallowedError, thrown directly or wrapped by got/Crawlee (looked up by `code`
 * and through `cause`). `getDisallowedDecision` returns its details.
 */
export function isRobotsDisallowedError(error: unknown): boolean {
  return getDisallowedDecision(error) !== undefined;
}

export function getDisallowedDecision(error: unknown): Decision | undefined {
  for (const code of REFUSAL_CODES) {
    const own = findByCode(error, code) as RobotsDisallowedError | undefined;
    if (own) return own.decision;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (REFUSAL_CODES.includes(code as PolitelyErrorCode)) return contextDecision(error);
  return undefined;
}

const REFUSAL_CODES: readonly PolitelyErrorCode[] = [
  'ERR_ROBOTS_DISALLOWED',
  'ERR_USAGE_REFUSED',
  'ERR_TDM_RESERVED',
];

/**
 * True for a refusal by AI usage preferences (`purpose` option; code `ERR_USAGE_REFUSED`) or by a
 * TDMRep reservation (code `ERR_TDM_RESERVED`, reason 'tdm-reserved'), thrown directly or wrapped. It
 * is also a RobotsDisallowedError (`isRobotsDisallowedError` is true).
 */
export function isUsageRefusedError(error: unknown): boolean {
  const reason = getDisallowedDecision(error)?.reason;
  return reason === 'usage-refused' || reason === 'tdm-reserved';
}

/**
 * True for a WaitTooLongError, thrown directly or wrapped (by `code`, through `cause`). A wrapper that
 * only copied the code may not carry the details: use `getWaitTooLongError` to read them.
 */
export const isWaitTooLongError = (error: unknown): boolean => hasCode(error, 'ERR_WAIT_TOO_LONG');

export function getWaitTooLongError(error: unknown): WaitTooLongError | undefined {
  return findByCode(error, 'ERR_WAIT_TOO_LONG') as WaitTooLongError | undefined;
}

/**
 * Milliseconds after which a request rejected for waiting too long may be retried, whether the
 * WaitTooLongError was thrown directly or wrapped (through `cause`, or got 14.0-14.5's
 * `error.options.context.politely`, which keeps no `cause`); undefined for other errors.
 */
export function getRetryAfterMs(error: unknown): number | undefined {
  if (!isWaitTooLongError(error)) return undefined;
  const own = getWaitTooLongError(error)?.retryAfterMs;
  if (typeof own === 'number') return own;
  const direct = (error as { retryAfterMs?: unknown }).retryAfterMs;
  if (typeof direct === 'number') return direct;
  const context = (error as { options?: { context?: { politely?: { retryAfterMs?: unknown } } } }).options
    ?.context;
  const fromContext = context?.politely?.retryAfterMs;
  return typeof fromContext === 'number' ? fromContext : undefined;
}
