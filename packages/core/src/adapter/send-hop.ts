/**
 * One hop of a request an adapter sends itself, sent politely: its robots.txt verdict, a pass for its
 * host (the kit's `pass`: a place in flight, then the binding slot), the send, then what the response tells
 * the host's schedule, in the order pacing needs. An adapter that follows redirects calls it per hop;
 * what stays the adapter's is its client's shapes: how to send, and how to read a response.
 */

import type { Decision, DisallowedDecision } from '../kernel/decision.js';
import { RobotsDisallowedError } from '../kernel/errors.js';
import type { SkipStage } from '../kernel/events.js';
import { isHttpUrl } from '../kernel/http-url.js';
import type { TdmDeclaration } from '../kernel/tdm-reservation.js';
import type { ResponseHeaders } from '../signals/rate-limit-headers.js';
import { type Hop, openHop } from './hop.js';
import { type AdapterKit, adapterKit } from './kit.js';
import { responseVerdict } from './response-verdict.js';
import type { SendPassOptions } from './send-pass.js';
import type { Spacing } from './spacing.js';

/**
 * What a hop needs of the crawler-facing Politeness (facade/types.ts), by shape: a Politeness fits,
 * and its kit (`adapterKit`) does the rest.
 */
export interface HopPoliteness {
  check(url: string | URL, options?: { readonly signal?: AbortSignal }): Promise<Decision>;
  observeResponse(
    url: string,
    status: number,
    retryAfter?: string | null,
    details?: { readonly latencyMs?: number; readonly headers?: ResponseHeaders },
  ): Promise<number | undefined>;
}

/** A response body the caller reads after the hop (a Node stream fits). */
export interface HopBody {
  once(event: 'end' | 'close' | 'error', listener: () => void): unknown;
  readonly destroyed?: boolean;
  readonly readableEnded?: boolean;
}

/** What a hop's response tells its host's schedule, as the adapter reads it from its client. */
export interface HopAnswer {
  readonly status: number;
  /** The Retry-After header, if any (core's backoff policy decides for which statuses it counts). */
  readonly retryAfter?: string | null;
  /**
   * The URL that answered. A client that followed redirects itself answers for another URL: that
   * URL's host is fed, not the hop's. Default: the hop's URL. A non-http(s) URL feeds no host.
   */
  readonly url?: string;
  /** ms from the request going out to the response's headers. Default: from the call to `send` to its response. */
  readonly latencyMs?: number;
  /** The response's headers: their rate-limit fields pace the host. Default: none read. */
  readonly headers?: ResponseHeaders;
  /**
   * When the request really went out (epoch ms), counted with spacing `'start'`. Default: once the
   * response is fed back (it proves the send).
   */
  readonly sentAt?: number;
  /**
   * When the response arrived (epoch ms, an upper bound), counted with spacing `'response'`. Default:
   * once the response is fed back.
   */
  readonly answeredAt?: number;
  /**
   * The body the caller reads later: the host's place stays taken until it ends, closes or errors.
   * Default: none, the place is given back at once (a redirect's body to be drained, or a body the
   * caller may read much later or never).
   */
  readonly body?: HopBody;
  /**
   * The response's `Content-Usage` header. When it says no for the `purpose` option, the hop fails
   * with `refuse(decision, 'response')` after its response was fed back (kernel/content-usage.ts).
   */
  readonly contentUsage?: string | readonly string[] | null;
  /**
   * The response's TDMRep headers (`tdm-reservation`, `tdm-policy`). When they reserve TDM rights for
   * a TDM `purpose` (over what the origin's tdmrep.json said), the hop fails as for Content-Usage
   * (kernel/tdm-reservation.ts).
   */
  readonly tdm?: TdmDeclaration;
  /** Called when the content is withheld that way: cancel the body nobody will read. */
  readonly withhold?: () => unknown;
}

export interface SendHopOptions<R>
  extends Pick<SendPassOptions, 'signal' | 'maxWaitMs' | 'inFlightMaxWaitMs'> {
  /**
   * Reads what the response tells the host's schedule; called once, as soon as the response arrives.
   * `decision` is the hop's: without a `purpose` nothing judges `contentUsage` or `tdm`, which need
   * not be read then.
   */
  readonly answer: (response: R, decision: Decision) => HopAnswer;
  /** Where in the request the hop lies, for the skip a refusal reports. Default 'send'. */
  readonly stage?: SkipStage;
  /**
   * The error a hop robots.txt refuses fails with, after reporting it. Default: `reportSkip(decision,
   * stage)`, then RobotsDisallowedError.
   */
  readonly refuse?: (decision: DisallowedDecision, stage: SkipStage) => Error | Promise<Error>;
  /**
   * True: a decision in memory (`checkCached`) answers without recording another check, for URLs the
   * adapter checked before (when they were queued). Default false: each hop is a recorded `check`.
   */
  readonly cachedCheck?: boolean;
  /**
   * What the host's next hop counts its delay from: this one's response (`'response'`: `answer`'s
   * `answeredAt`, else once it is fed back) or its send (`'start'`: `answer`'s `sentAt`, else the
   * response, which is all a client that cannot see its send can give). Default 'start'.
   */
  readonly spacing?: Spacing;
  /** The send was recorded: `at` is the moment the host's next start counts from. */
  readonly onSent?: (decision: Decision, at: number) => void;
}

/**
 * Sends one hop to `url` with `send` and resolves with its response. A hop robots.txt refuses is never
 * sent and rejects with `refuse`'s error; the waits (robots.txt, a place in flight, the slot) end with
 * the signal's reason, or WaitTooLongError after `maxWaitMs` / `inFlightMaxWaitMs`; a failed send is
 * reported as such (a timeout or a dropped connection slows the host) and its error rethrown. A URL no
 * robots.txt speaks for (data:, blob:) is sent as is.
 */
export async function sendHop<R>(
  politeness: HopPoliteness,
  url: string | URL,
  send: () => Promise<R>,
  options: SendHopOptions<R>,
): Promise<R> {
  const href = String(url);
  if (!isHttpUrl(href)) return send();
  const kit = adapterKit(politeness);
  const { signal, stage = 'send' } = options;
  const waitOptions = signal ? { signal } : {};
  // A URL goes to the check as it is: parsed once more, it costs every request as much again.
  const checked =
    (options.cachedCheck ? kit.checkCached(href) : undefined) ??
    (await politeness.check(typeof url === 'string' ? href : url, waitOptions));
  if (!checked.allowed) throw await (options.refuse ?? defaultRefusal(kit))(checked, stage);
  // The send is counted at the response, before the host's next hop may count from this one's slot,
  // so the hop is paced by the delay asked, without the margin core adds for sends nobody reports.
  let hop: Hop;
  try {
    // The caller's options as they are (their signal and limits): a hop reads only its own fields.
    hop = await openHop(kit, checked, {
      ...options,
      spacing: options.spacing ?? 'start',
      seesSend: true,
      ...(options.onSent ? { onCounted: options.onSent } : {}),
    });
  } catch (error) {
    // Refused while it waited for its place (its host's rate limit went above maxRateLimitDelayMs,
    // rateLimitAboveMax: 'skip'): the same refusal, and skip, its check would now give.
    const refused = refusalIn(error);
    if (refused) throw await (options.refuse ?? defaultRefusal(kit))(refused, stage);
    throw error;
  }
  let response: R;
  const calledAt = performance.now();
  try {
    response = await send();
  } catch (error) {
    // Reported before the place is given back, so the next request to the host already goes at the
    // pace a timeout or a dropped connection slowed.
    await hop.failed(error);
    throw error;
  }
  const elapsedMs = performance.now() - calledAt;
  let withheld: DisallowedDecision | undefined;
  try {
    const answer = options.answer(response, hop.decision);
    await feed(politeness, kit, hop, href, answer, elapsedMs);
    releaseWhenRead(hop, answer.body);
    // Only a crawl with a `purpose` judges responses (every decision of the instance carries it).
    withheld =
      hop.decision.purpose === undefined
        ? undefined
        : responseVerdict(hop.decision, {
            status: answer.status,
            headers: {
              'content-usage': answer.contentUsage,
              'tdm-reservation': answer.tdm?.reservation,
              'tdm-policy': answer.tdm?.policy,
            },
          });
    if (withheld) answer.withhold?.();
  } catch (error) {
    void hop.done();
    throw error;
  }
  if (withheld) throw await (options.refuse ?? defaultRefusal(kit))(withheld, 'response');
  return response;
}

function refusalIn(error: unknown): DisallowedDecision | undefined {
  if (!(error instanceof RobotsDisallowedError)) return undefined;
  return error.decision.allowed ? undefined : error.decision;
}

function defaultRefusal(kit: AdapterKit) {
  return (decision: DisallowedDecision, stage: SkipStage): Error => {
    kit.reportSkip(decision, stage);
    return new RobotsDisallowedError(decision);
  };
}

/**
 * The response feeds the host that answered: the hop's, or the one a self-following client reached
 * (then the hop itself is counted as answered without feeding its own host).
 */
async function feed(
  politeness: HopPoliteness,
  kit: AdapterKit,
  hop: Hop,
  hopUrl: string,
  answer: HopAnswer,
  elapsedMs: number,
): Promise<void> {
  const from = answer.url ?? hopUrl;
  const latencyMs = answer.latencyMs ?? elapsedMs;
  const retryAfter = answer.retryAfter ?? null;
  const own = from === hopUrl || (isHttpUrl(from) && kit.hostKey(from) === hop.decision.hostKey);
  if (!own && isHttpUrl(from)) {
    await politeness.observeResponse(from, answer.status, retryAfter, {
      latencyMs,
      ...(answer.headers ? { headers: answer.headers } : {}),
    });
  }
  // Resolves once the host's next start is counted too.
  await hop.answered({
    ...(own ? { status: answer.status, retryAfter, latencyMs } : {}),
    ...(own && answer.headers ? { headers: answer.headers } : {}),
    ...(answer.sentAt === undefined ? {} : { sentAt: answer.sentAt }),
    ...(answer.answeredAt === undefined ? {} : { at: answer.answeredAt }),
  });
}

/**
 * The place is held until the caller has the whole body: its end, close or error (a consumer that
 * gives up destroys it), whichever comes first.
 */
function releaseWhenRead(hop: Hop, body: HopBody | undefined): void {
  if (!body || typeof body.once !== 'function' || body.destroyed || body.readableEnded) {
    void hop.done();
    return;
  }
  const done = () => void hop.done();
  body.once('end', done);
  body.once('close', done);
  body.once('error', done);
}
