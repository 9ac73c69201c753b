/**
 * got extend-options that make every request polite: a thin translator from got's hooks to the core
 * facade. got runs `beforeRequest` again for every redirect hop and every retry, so this one hook
 * checks each hop against its own host's robots.txt and takes a pacing slot for each attempt. A
 * handler watches each attempt's ClientRequest and tells the facade when it really went out (and,
 * with `spacing: 'response'`, when it was over), so the host's next slot counts from what happened.
 */

import type { ClientRequest } from 'node:http';
import {
  createPoliteness,
  type Decision,
  getDisallowedDecision,
  getWaitTooLongError,
  isPoliteness,
  isWaitTooLongError,
  type Politeness,
  type PolitenessOptions,
  RobotsDisallowedError,
} from '@politely/core';
import {
  adapterKit,
  contentUsageRefusal,
  isHttpUrl,
  isServerTroubleError,
  type SendPass,
} from '@politely/core/adapter';
import type {
  GotErrorLike,
  GotRequestOptionsLike,
  GotResponseLike,
  PoliteGotOptions,
  PoliteHandler,
} from './got-shapes.js';
import { createRobotsRoute } from './robots-route.js';
import { observeSend } from './send-observer.js';
import { createHostGate } from './send-order.js';
import { type GotPacingOptions, resolvePacingOptions, type Spacing } from './spacing.js';

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

/**
 * Per got call, shared by its attempts: the handler puts it on the call's `context` (got copies the
 * context shallowly into each retry, so every attempt sees the same object), `beforeRequest` leaves
 * the attempt's decision in it, and the attempt's ClientRequest takes it from there.
 */
const CALL = Symbol('politely.got.call');
interface CallState {
  /** The admitted attempt that has not been sent yet. */
  pending?: HostHold | undefined;
}

/** What an admitted attempt holds on its host until it is over: core's send pass, and the send order. */
interface HostHold {
  /** The pass the attempt was admitted with (its place in flight and its slot). */
  readonly pass: SendPass;
  /** The attempt is on the wire and the host's next slot moved: the next may reserve ('start'). */
  sent(): void;
  /** The attempt is over (body read, failed, or never sent): gives back its place in flight. */
  done(): void;
}

/**
 * got's own default User-Agent (14.x to 16.x). A request carrying it was given none by the caller, so
 * it gets the crawler's: the site then sees the product token the rules were matched with.
 */
const GOT_DEFAULT_USER_AGENT = /^got \(https:\/\/github\.com\/sindresorhus\/got\)$/;

/**
 * Returns got extend-options: `got.extend(politeGot({ userAgent: 'MyBot/1.0' }))`.
 * robots.txt goes out through the got options of the request that needs it (agents, proxy,
 * `dnsLookup`, `https`, timeouts, headers), unless a `fetch` is given.
 * Pass an existing Politeness instead of options to share its cache, pacing and stats with other
 * clients; it fetches robots.txt with its own `fetch`.
 */
export function politeGot(
  options: PolitenessOptions | Politeness,
  pacing: GotPacingOptions = {},
): PoliteGotOptions {
  const robotsRoute = createRobotsRoute();
  // An explicit `fetch` wins; a Politeness handed in is used as it is.
  const routed =
    typeof options === 'object' &&
    options !== null &&
    !isPoliteness(options) &&
    (options as { fetch?: unknown }).fetch === undefined;
  // Anything else (a Politeness, a fetch of the user's, invalid options) goes to createPoliteness as it is.
  const politeness = createPoliteness(routed ? { ...options, fetch: robotsRoute.fetch } : options);
  const kit = adapterKit(politeness);
  const { spacing } = resolvePacingOptions(pacing);
  const sendOrder = createHostGate();
  /**
   * The options of hops got reached by following a redirect: got hands the same object to
   * `beforeRedirect` and then to the hop's `beforeRequest`, so a refusal there is reported as a
   * 'redirect' skip (a retry starts over from new options: a 'send' again).
   */
  const redirectHops = new WeakSet<object>();

  /**
   * Takes the request's pass (core's send pass: its place among the host's requests in flight, the
   * facade's lease, `maxConcurrentPerHost`, fleet-wide with Redis, then its binding pacing slot),
   * bounded by got's own limits only, as the queue of a crawl is. With 'start' spacing and more than
   * one in flight, the request also enters the host's send order first: it reserves only once the
   * one before it has gone out, since until then nobody knows when the host's next slot really is.
   * The send is reported (the handler watches the wire), so the pass paces by the delay asked.
   */
  const holdHost = async (
    decision: Decision,
    signal: AbortSignal | undefined,
    left: () => number | undefined,
  ): Promise<HostHold> => {
    const ordered = spacing === 'start' && decision.delayMs > 0;
    const sent = ordered ? await sendOrder.enter(decision.hostKey, signal) : () => {};
    let pass: SendPass;
    try {
      const leftMs = left();
      pass = await kit.pass(decision, {
        ...(signal ? { signal } : {}),
        ...(leftMs !== undefined ? { maxWaitMs: leftMs } : {}),
        inFlightMaxWaitMs: leftMs ?? Number.POSITIVE_INFINITY,
        sendReported: true,
      });
    } catch (error) {
      sent();
      throw error;
    }
    return {
      pass,
      sent,
      done: () => {
        sent();
        pass.release();
      },
    };
  };

  /**
   * Hooks taken without the handler cannot see the send: the request takes its slot with core's
   * safety margin, and its place in flight only while it waits for it (nothing would give it back).
   */
  const slotOnly = async (
    decision: Decision,
    signal: AbortSignal | undefined,
    leftMs: number | undefined,
  ) => {
    const pass = await kit.pass(decision, {
      ...(signal ? { signal } : {}),
      ...(leftMs !== undefined ? { maxWaitMs: leftMs } : {}),
      inFlightMaxWaitMs: leftMs ?? Number.POSITIVE_INFINITY,
    });
    pass.release();
  };

  const beforeRequest = async (request: GotRequestOptionsLike): Promise<undefined> => {
    if (request.url === undefined) return undefined; // got reports a missing URL itself
    if (kit.sendUserAgent) identify(request, politeness.userAgent);
    const call = callState(request.context);
    // An earlier attempt of this call that never reached the wire (another hook answered it) is over.
    call?.pending?.done();
    if (call) call.pending = undefined;
    const signal = request.signal;
    // got's own limits bound our waits too: its `signal`, and `timeout.request` (got starts that timer
    // only once the hooks are done, so without this a robots.txt wait could outlast it many times over).
    const limit = request.timeout?.request;
    const timeoutMs = typeof limit === 'number' && Number.isFinite(limit) && limit >= 0 ? limit : undefined;
    const startedAt = Date.now();
    const left = () =>
      timeoutMs === undefined ? undefined : Math.max(0, timeoutMs - (Date.now() - startedAt));
    try {
      const url = request.url;
      const decision = await robotsRoute.through(request, () =>
        politeness.check(url, {
          ...(signal ? { signal } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        }),
      );
      if (!decision.allowed) {
        kit.reportSkip(decision, redirectHops.has(request) ? 'redirect' : 'send');
        throw new RobotsDisallowedError(decision);
      }
      // Only with the handler installed is the real send seen, so only then is the hop paced by the
      // delay asked (measured at the wire: no gap below the delay without core's margin;
      // bench/pacing.ts). Hooks taken alone keep the margin. What is left of the limit bounds the
      // pacing wait: a slot beyond it is refused at once.
      if (call) call.pending = await holdHost(decision, signal, left);
      else await slotOnly(decision, signal, left());
    } catch (error) {
      recordDetails(request.context, error);
      throw error;
    }
    return undefined; // anything else would be taken by got as the response
  };

  const handler: PoliteHandler = (callOptions, next) => {
    const context = (callOptions as Partial<GotRequestOptionsLike> | undefined)?.context;
    if (typeof context !== 'object' || context === null) return next(callOptions);
    const call: CallState = {};
    Object.defineProperty(context, CALL, { value: call, enumerable: true, configurable: true });
    const result = next(callOptions);
    const emitter = result as { on?: (event: string, listener: (...args: unknown[]) => void) => unknown };
    if (typeof emitter?.on !== 'function') return result;
    emitter.on('request', (clientRequest) => {
      const pending = call.pending;
      call.pending = undefined;
      if (pending) watchAttempt(clientRequest as ClientRequest, pending, spacing);
    });
    // The call is over however it ended: an admitted attempt that never got a ClientRequest lets go.
    const settle = () => {
      call.pending?.done();
      call.pending = undefined;
    };
    const thenable = result as { then?: (onDone: () => void, onError: () => void) => unknown };
    if (typeof thenable.then === 'function') thenable.then(settle, settle);
    else emitter.on('close', settle);
    return result;
  };

  const watchAttempt = (clientRequest: ClientRequest, hold: HostHold, mode: Spacing) => {
    const { pass } = hold;
    let sent = false;
    let moved: Promise<void> = Promise.resolve();
    let answered = false;
    observeSend(clientRequest, {
      onSent: (at) => {
        sent = true;
        moved = pass.sent(at);
        if (mode === 'start') void moved.finally(() => hold.sent());
      },
      onResponse: (at) => {
        // Counting from the response covers latency the client cannot see (a proxy that connects
        // onward late): the server had the request before it answered. Its headers prove that as
        // well as the body's end does, without charging the body's download to the next gap; the
        // place in flight (maxConcurrentPerHost) is still held until the end.
        if (mode !== 'response') return;
        answered = true;
        moved = pass.sent(at);
      },
      onDone: (at) => {
        // Sent but never answered (reset, timeout): the server may have had it until now.
        if (mode === 'response' && sent && !answered) moved = pass.sent(at);
        // The next request to the host goes only once the host's next slot has been moved.
        void moved.finally(() => hold.done());
      },
    });
  };

  // Every response tells the host's pace how fast the site answers (got's timings: request sent to
  // response headers) and its rate-limit headers, and its Retry-After what core's backoff policy makes
  // of it. It is fed for the URL that answered (got's final URL), which is the hop got followed last;
  // never rejects.
  const afterResponse = async <Response extends GotResponseLike>(response: Response): Promise<Response> => {
    const latencyMs = response.timings?.phases?.firstByte;
    await politeness.observeResponse(
      response.url,
      response.statusCode,
      firstValue(response.headers['retry-after']) ?? null,
      { ...(typeof latencyMs === 'number' ? { latencyMs } : {}), headers: response.headers },
    );
    // A response whose Content-Usage header refuses the purpose: its content is withheld, the call
    // rejects as a robots.txt refusal would (kernel/content-usage.ts in core says why).
    const header = response.headers['content-usage'];
    const decision = header === undefined ? undefined : kit.checkCached(response.url);
    const withheld = decision && contentUsageRefusal(decision, header);
    if (withheld) {
      kit.reportSkip(withheld, 'response');
      const error = new RobotsDisallowedError(withheld);
      recordDetails(
        (response as { request?: { options?: GotRequestOptionsLike } }).request?.options?.context,
        error,
      );
      throw error;
    }
    return response;
  };

  // A timeout or a dropped connection is the host struggling too: it slows the pace as a 5xx does.
  const beforeError = async <Failure extends GotErrorLike>(error: Failure): Promise<Failure> => {
    const url = error.options?.url;
    if (url !== undefined && isHttpUrl(String(url)) && isServerTroubleError(error)) {
      await politeness.observeResponse(url, 0);
    }
    return error;
  };

  const beforeRedirect = (hop: GotRequestOptionsLike): void => {
    redirectHops.add(hop);
  };

  const extendOptions: PoliteGotOptions = {
    handlers: [handler],
    hooks: {
      beforeRequest: [beforeRequest],
      afterResponse: [afterResponse],
      beforeError: [beforeError],
      beforeRedirect: [beforeRedirect],
    },
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

function callState(context: Record<string, unknown> | undefined): CallState | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  return (context as { [CALL]?: CallState })[CALL];
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

/** Sets the User-Agent header unless the caller chose one (got's default does not count). */
function identify(request: GotRequestOptionsLike, userAgent: string): void {
  const headers = request.headers;
  if (headers === undefined) return;
  const current = headers['user-agent'];
  if (
    current === undefined ||
    current === '' ||
    (typeof current === 'string' && GOT_DEFAULT_USER_AGENT.test(current))
  ) {
    headers['user-agent'] = userAgent;
  }
}

function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}
