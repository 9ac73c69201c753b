/**
 * The hooks and the handler one `politeGot` call gives got: a thin translator from got's lifecycle to
 * core's send pass. got runs `beforeRequest` again for every redirect hop and every retry, so that
 * hook checks each hop against its own host's robots.txt and takes a pass for each attempt. The
 * handler watches each attempt's ClientRequest, which reports to that pass its real send and its
 * response; got's error hooks report its failure to it. The pass alone feeds the host's pacing and
 * backoff, as in `sendHop` for politeFetch and the Crawlee plugin.
 */
import type { ClientRequest } from 'node:http';
import {
  type Decision,
  isDeadlineExceededError,
  isWaitTooLongError,
  type Politeness,
  RobotsDisallowedError,
} from '@politely/core';
import {
  type AdapterKit,
  adapterKit,
  type ResponseHeadersLike,
  responseVerdict,
  robotsTransportError,
  type Spacing,
} from '@politely/core/adapter';
import { reportAttempt, retryAfterOf } from './attempt-report.js';
import {
  type CallState,
  callOf,
  carry,
  dropPending,
  existingCall,
  joinCall,
  startCall,
} from './call-state.js';
import type { GotErrorLike, GotRequestOptionsLike, GotResponseLike } from './got-shapes.js';
import { asGotTimeout, timeoutError } from './got-timeout.js';
import { holdHost, passWithoutWatch } from './host-hold.js';
import { identify, limitsOf, type RequestLimits, recordDetails } from './request-context.js';
import type { RobotsRoute } from './robots-route.js';

/** What a got promise or stream offers the handler, by shape. */
interface CallResult {
  on?: (event: string, listener: (...args: unknown[]) => void) => unknown;
  then?: (onDone: () => void, onError: () => void) => unknown;
  /** A stream's: ends it with an error (got's Request is a Duplex). */
  destroy?: (error: Error) => unknown;
}

export class PoliteGotHooks {
  readonly #politeness: Politeness;
  readonly #kit: AdapterKit;
  readonly #robotsRoute: RobotsRoute;
  readonly #spacing: Spacing;
  /**
   * The options of hops got reached by following a redirect: got hands the same object to
   * `beforeRedirect` and then to the hop's `beforeRequest`, so a refusal there is reported as a
   * 'redirect' skip (a retry starts over from new options: a 'send' again).
   */
  readonly #redirectHops = new WeakSet<object>();

  constructor(politeness: Politeness, robotsRoute: RobotsRoute, spacing: Spacing) {
    this.#politeness = politeness;
    this.#kit = adapterKit(politeness);
    this.#robotsRoute = robotsRoute;
    this.#spacing = spacing;
  }

  /** Checks appended to an attempt's hook array by `beforeRequest`, to run after the caller's hooks. */
  readonly #deferred = new WeakSet<object>();

  /**
   * got runs an attempt's beforeRequest hooks in order over the attempt's own array, read live (got
   * 14.0 to 16.2). The check runs after the last of them, so the URL and options judged are the ones
   * sent: a hook after politely's (a later `extend`, a per-call hook) that rewrote `options.url` was
   * sent unchecked. With hooks after this one, the check is appended to the array; a hook before it
   * that answers (a cached response) or throws means nothing is sent, so nothing is checked, as got
   * runs no hook after those.
   */
  readonly beforeRequest = async (request: GotRequestOptionsLike): Promise<undefined> => {
    if (request.url === undefined) return undefined; // got reports a missing URL itself
    if (this.#kit.sendUserAgent) identify(request, this.#politeness.userAgent);
    // A retry's context carries the call enumerable (call-state.ts): hidden before the caller's hooks see it.
    callOf(request.context);
    const hooks = request.hooks?.beforeRequest;
    if (Array.isArray(hooks)) {
      const at = hooks.indexOf(this.beforeRequest);
      // A check an earlier hop or attempt appended and never reached (a hook before it threw; got
      // copies the array into a retry): it sits after this hook, so removing it leaves got's loop alone.
      for (let index = hooks.length - 1; index > at; index--) {
        if (this.#deferred.has(hooks[index] as object)) hooks.splice(index, 1);
      }
      if (at !== -1 && at < hooks.length - 1) {
        const last = (options: GotRequestOptionsLike) => this.#admit(options);
        this.#deferred.add(last);
        hooks.push(last);
        return undefined;
      }
    }
    return this.#admit(request);
  };

  /** Checks the hop, then takes its pass; always resolves with undefined (anything else is a response to got). */
  async #admit(request: GotRequestOptionsLike): Promise<undefined> {
    if (request.url === undefined) return undefined;
    const call = callOf(request.context);
    if (call) dropPending(call);
    const limits = limitsOf(request);
    try {
      const checked = this.#check(request, request.url, limits);
      const decision = checked instanceof Promise ? await checked : checked;
      // Only with the handler installed is the real send seen, so only then is the hop paced by the
      // delay asked (measured at the wire: no gap below the delay without core's margin;
      // bench/pacing.ts). Hooks taken alone keep the margin. What is left of the limit bounds the
      // pacing wait: a slot beyond it is refused at once.
      if (call?.watched) {
        call.pending = await holdHost(this.#kit, this.#spacing, decision, limits);
        call.latest = call.pending;
      } else {
        const pass = await passWithoutWatch(this.#kit, decision, limits);
        if (call) {
          call.latest = pass;
          call.unwatched = pass;
        }
      }
    } catch (error) {
      recordDetails(request.context, error);
      // The caller's timeout.request ran out while robots.txt was awaited (the shared fetch goes on),
      // or would run out before the host's slot: got's own timeout error (code ETIMEDOUT, retried by
      // got), as got's timer would have fired; ours is its cause (`getRetryAfterMs` still reads it).
      // A phase limit that ended robots.txt is got's timeout of that phase too (got-timeout.ts).
      const thrown =
        limits.timeoutMs !== undefined && (isDeadlineExceededError(error) || isWaitTooLongError(error))
          ? timeoutError('request', limits.timeoutMs, error)
          : error;
      throw thrown instanceof Error ? await asGotTimeout(request, thrown) : thrown;
    }
    return undefined;
  }

  /** Starts the call's state and hands each attempt's ClientRequest the pass it was admitted with. */
  handler<Options extends GotRequestOptionsLike, Result>(
    callOptions: Options,
    next: (options: Options) => Result,
  ): Result {
    const context = (callOptions as Partial<GotRequestOptionsLike> | undefined)?.context;
    if (typeof context !== 'object' || context === null) return next(callOptions);
    const call = startCall(context);
    const result = next(callOptions);
    const emitter = result as CallResult;
    if (typeof emitter?.on !== 'function') return result;
    emitter.on('request', (clientRequest) => {
      const pending = call.pending;
      call.pending = undefined;
      if (pending) reportAttempt(clientRequest as ClientRequest, pending);
    });
    // The call is over however it ended: an admitted attempt that never got a ClientRequest lets go.
    const settle = () => dropPending(call);
    if (typeof emitter.then === 'function') emitter.then(settle, settle);
    else {
      emitter.on('close', settle);
      // got runs no afterResponse hook for streams: the same verdict is given here, on got's
      // 'response' event, which comes before the body is read (this listener is the first).
      emitter.on('response', (response) => {
        const error = this.#withheld(response as GotResponseLike, callOptions.context, call);
        if (error) emitter.destroy?.(error);
      });
    }
    return result;
  }

  /**
   * A response whose Content-Usage header refuses the purpose, or whose TDMRep `tdm-reservation`
   * header reserves TDM rights for a TDM purpose: its content is withheld, the call rejects as a
   * robots.txt refusal would (kernel/content-usage.ts and kernel/tdm-reservation.ts in core say why). A call nobody
   * watches reports the response to its latest pass here (the URL that answered is the hop got
   * followed last).
   */
  async afterResponse<Response extends GotResponseLike>(response: Response): Promise<Response> {
    const context = (response as { request?: { options?: GotRequestOptionsLike } }).request?.options?.context;
    const call = existingCall(context);
    if (call?.unwatched) {
      const latencyMs = response.timings?.phases?.firstByte;
      await call.unwatched.answered(response.statusCode, retryAfterOf(response), latencyMs, response.headers);
    }
    const error = this.#withheld(response, context, call);
    if (error) throw error;
    return response;
  }

  /** core's one verdict on a response (promise and stream alike); the refusal reported, as an error. */
  #withheld(
    response: GotResponseLike,
    context: Record<string, unknown> | undefined,
    call: CallState | undefined,
  ): Error | undefined {
    // Only a crawl with a `purpose` judges responses, and every decision of the instance carries it:
    // the attempt's own says whether one is set, without deciding the URL again.
    if (call?.latest && call.latest.decision.purpose === undefined) return undefined;
    const decision = this.#kit.checkCached(checkedUrl(response.url));
    const withheld =
      decision &&
      responseVerdict(decision, {
        status: response.statusCode,
        headers: response.headers as ResponseHeadersLike,
      });
    if (!withheld) return undefined;
    this.#kit.reportSkip(withheld, 'response');
    const error = new RobotsDisallowedError(withheld);
    recordDetails(context, error);
    return error;
  }

  /**
   * An attempt failed and got will retry it: the failure is the latest attempt's. got calls its error
   * hooks for its own errors only, never for a call the caller aborted or a stream the caller
   * destroyed (on the ClientRequest both look like a dropped connection), so a failure is reported
   * here, for watched calls too; what slows the host (a timeout, a dropped connection) the pass decides.
   */
  async beforeRetry(error: GotErrorLike): Promise<void> {
    const call = existingCall(error.options?.context);
    if (call) {
      // got copies the attempt's options for the next one once every beforeRetry hook has run: the
      // call is carried into the copy by a hook appended to this attempt's own array (got iterates it
      // live), so the caller's hooks after this one see the context as they gave it (a strict
      // deepEqual would see an enumerable symbol).
      const carryNow = () => carry(call, error.options?.context);
      const hooks = error.options?.hooks?.beforeRetry;
      if (Array.isArray(hooks)) {
        const carryLast = () => {
          const at = hooks.indexOf(carryLast);
          if (at !== -1) hooks.splice(at, 1);
          carryNow();
        };
        hooks.push(carryLast);
      } else carryNow();
    }
    await call?.latest?.failed(error);
  }

  /** The call failed for good: the failure is its latest attempt's, as in `beforeRetry`. */
  async beforeError<Failure extends GotErrorLike>(error: Failure): Promise<Failure> {
    await existingCall(error.options?.context)?.latest?.failed(error);
    return error;
  }

  /** The verdict from memory (counted as a check's), when the caller gave no signal to honour. */
  #cached(url: URL | string, signal: AbortSignal | undefined): Decision | undefined {
    if (signal !== undefined) return undefined;
    try {
      return this.#kit.checkCached(url, COUNTED);
    } catch {
      return undefined; // check says what is wrong with the URL
    }
  }

  beforeRedirect(hop: GotRequestOptionsLike, response?: GotResponseLike): void {
    this.#redirectHops.add(hop);
    const from = (response as { request?: { options?: GotRequestOptionsLike } } | undefined)?.request
      ?.options;
    joinCall(from?.context, hop.context);
  }

  /**
   * The hop's verdict, robots.txt sent through the hop's own got options; a refusal is reported and
   * thrown. A verdict from memory comes back as it is, not in a promise: every request pays for the
   * promise and the turn of the loop an await costs, when no delay is asked.
   */
  #check(
    request: GotRequestOptionsLike,
    url: URL | string,
    limits: RequestLimits,
  ): Decision | Promise<Decision> {
    const { signal, timeoutMs } = limits;
    // robots.txt in memory: nothing is fetched, so nothing is routed through got's options.
    const checked = checkedUrl(url);
    const cached = this.#cached(checked, signal);
    if (cached) return this.#verdict(request, cached);
    return this.#robotsRoute
      .through(request, () =>
        this.#politeness.check(checked, {
          ...(signal ? { signal } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        }),
      )
      .then((decision) => this.#verdict(request, decision));
  }

  /** An allowed decision as it is; a refusal reported and thrown. */
  #verdict(request: GotRequestOptionsLike, decision: Decision): Decision {
    if (decision.allowed) return decision;
    this.#kit.reportSkip(decision, this.#redirectHops.has(request) ? 'redirect' : 'send');
    // robots.txt that got no answer fails as got would on the page (its code, retried by got's
    // retry.errorCodes: core fetches robots.txt again for the retry), the refusal as its cause.
    throw robotsTransportError(decision) ?? new RobotsDisallowedError(decision);
  }
}

/** `checkCached`'s options for the hop's own verdict: counted as a check is. */
const COUNTED = { count: true } as const;

/**
 * The URL robots.txt judges: a UNIX socket URL (`http://unix:/run/app.sock:/page?q`, got's
 * `enableUnixSockets`) is judged by the path sent over the socket (`/page?q`) at origin `http://unix`,
 * whose robots.txt is asked over the same socket (robots-route.ts). got's own split: the socket path
 * runs to the first colon.
 */
function checkedUrl(url: URL | string): URL | string {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (parsed.hostname !== 'unix') return url;
  const match = /^(.+?):(.+)$/.exec(`${parsed.pathname}${parsed.search}`);
  return match?.[2] ? new URL(match[2], `${parsed.protocol}//unix`) : url;
}
