/**
 * One request's way through the host's schedule, for an adapter that sends it itself: a place among
 * the host's requests in flight, then the binding pacing slot (`openSendPass`), and afterwards what
 * happened on the wire (`SendPass`): when the request really went out, what answered it or how it
 * failed, and when it no longer occupies the host. Adapters take a pass per hop and never touch the
 * scheduler; the order in which they report is theirs (their clients differ in what they can see).
 */

import type { Decision } from '../kernel/decision.js';
import { RobotsDisallowedError } from '../kernel/errors.js';
import { withoutSafetyMargin } from '../kernel/safety-margin.js';
import type { InFlightLease, InFlightOptions } from '../schedule/types.js';
import { isServerTroubleError } from '../signals/host-signal.js';
import type { ResponseHeaders } from '../signals/rate-limit-headers.js';
import type { PlaceHolder, SharedPlace, StalledPlaces } from './stalled-places.js';
import type { UnreportedSends } from './unreported-sends.js';

/** How a caller waits for its pass, and whether it will report the real send. */
export interface SendPassOptions {
  /** Stops both waits (in-flight place and pacing slot) with the signal's reason; nothing is held after. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Longest wait for the pacing slot: a slot further away rejects at once with WaitTooLongError.
   * Default: the `maxWaitMs` option.
   */
  readonly maxWaitMs?: number | undefined;
  /** Longest wait for a place among the host's requests in flight. Default: the `maxWaitMs` option. */
  readonly inFlightMaxWaitMs?: number | undefined;
  /**
   * True when the caller reports the request's real send (or its response) with `sent()`: the
   * request is then paced by the delay asked, without the margin core adds for sends nobody reports,
   * unless another request to the host holds a slot with its send not yet reported (its slot, not
   * its send, spaces this one). Leave it false when the send cannot be observed. Default false.
   */
  readonly sendReported?: boolean;
}

/**
 * An admitted request: its host's in-flight place is held and its pacing slot has started. Report
 * what happened; every report is best effort and never rejects.
 */
export interface SendPass {
  /** The decision the request is paced by (without the safety margin when `sendReported`). */
  readonly decision: Decision;
  /**
   * The request really went out at `at` (epoch ms, default now), or was proven to have reached the
   * server by then: the host's next start moves to at least `at` plus its pace.
   */
  sent(at?: number): Promise<void>;
  /**
   * A response arrived: its status (and latency from send to headers, when measured) feeds the
   * host's pace, and so do its rate-limit headers when given; a 429 or 503 backs the host off by
   * `retryAfter` (ignored for other statuses). Resolves with the backoff set, in ms, if any.
   */
  answered(
    status: number,
    retryAfter?: string | null,
    latencyMs?: number,
    headers?: ResponseHeaders,
  ): Promise<number | undefined>;
  /** The send failed: a timeout or a dropped connection slows the host's pace as a 5xx does. */
  failed(error: unknown): Promise<void>;
  /** Gives the in-flight place back (when the body has ended or the request is over). Idempotent. */
  release(): void;
}

/**
 * What a pass is made of: the facade's own waits and reports (facade/politeness.ts hands them over
 * when it builds its kit). `observe` and `sent` never reject.
 */
export interface SendPassParts {
  acquireInFlight(decision: Decision, options: InFlightOptions): Promise<InFlightLease>;
  /**
   * A place taken in this synchronous step when the host has one free, else undefined (then
   * `acquireInFlight` waits for one). Optional: without it every place is waited for.
   */
  tryAcquireInFlight?(decision: Decision): InFlightLease | undefined;
  reserve(decision: Decision, options: Pick<SendPassOptions, 'signal' | 'maxWaitMs'>): Promise<unknown>;
  /** What a response (or, with status 0, no response) tells the decision's host; the backoff set, if any. */
  observe(
    decision: Decision,
    status: number,
    retryAfter: string | null | undefined,
    details:
      | { readonly latencyMs?: number | undefined; readonly headers?: ResponseHeaders | undefined }
      | undefined,
  ): Promise<number | undefined>;
  sent(decision: Decision, at: number | undefined): Promise<void>;
  readonly unreported: UnreportedSends;
  /** This process's places in flight, and the ones a stalled request lends (stalled-places.ts). */
  readonly places: StalledPlaces;
  /** A request shares the place of one stalled that long: reported (an event, a warning once per host). */
  shared(decision: Decision, stalledMs: number): void;
}

/**
 * Takes an allowed decision's in-flight place, then its pacing slot (a slot reserved and then held
 * up waiting for a place would be wasted). Rejects like `acquireInFlight` and `reserve`; nothing is
 * held after a rejection.
 */
export async function openSendPass(
  parts: SendPassParts,
  checked: Decision,
  options: SendPassOptions = {},
): Promise<SendPass> {
  if (!checked.allowed) throw new RobotsDisallowedError(checked);
  const { signal, inFlightMaxWaitMs, sendReported = false } = options;
  // A free place is taken at once: no wait, so nothing to race against a stalled request's place.
  const lease =
    (signal?.aborted ? undefined : parts.tryAcquireInFlight?.(checked)) ??
    (await takePlace(parts, checked, signal, inFlightMaxWaitMs));
  // Decided once the place is held: a request that waited for it usually finds the one before it
  // answered by then.
  const overlapping = parts.unreported.any(checked.hostKey);
  const decision = sendReported && !overlapping ? withoutSafetyMargin(checked) : checked;
  const reported = parts.unreported.enter(checked.hostKey);
  try {
    // The caller's options as they are: `reserve` reads only their signal and maxWaitMs.
    await parts.reserve(decision, options);
  } catch (error) {
    reported();
    lease.release();
    throw error;
  }
  return createPass(parts, decision, lease, reported, parts.places.hold(checked.hostKey));
}

/**
 * A place among the host's requests in flight: a free one (`acquireInFlight`), or, after a wait, the
 * place of a request of this process that has stalled (stalled-places.ts says why), whichever comes
 * first; the other is given back. Rejects like `acquireInFlight`.
 */
function takePlace(
  parts: SendPassParts,
  decision: Decision,
  signal: AbortSignal | undefined,
  maxWaitMs: number | undefined,
): Promise<InFlightLease> {
  const stop = new AbortController();
  const waiting = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const acquired = parts.acquireInFlight(decision, {
    signal: waiting,
    ...(maxWaitMs !== undefined ? { maxWaitMs } : {}),
  });
  const joined = parts.places.join(decision.hostKey, waiting);
  let settled = false;
  return new Promise<InFlightLease>((resolve, reject) => {
    acquired.then(
      (lease) => {
        if (settled) return lease.release();
        settled = true;
        stop.abort();
        resolve(lease);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        stop.abort();
        reject(error);
      },
    );
    joined.then(
      (place: SharedPlace) => {
        if (settled) return place.release();
        settled = true;
        stop.abort();
        parts.shared(decision, place.stalledMs);
        resolve(place);
      },
      () => {}, // aborted: the caller's signal, or the place was taken another way
    );
  });
}

function createPass(
  parts: SendPassParts,
  decision: Decision,
  lease: InFlightLease,
  reported: () => void,
  holder: PlaceHolder,
): SendPass {
  let released = false;
  return {
    decision,
    async sent(at) {
      holder.progress();
      await parts.sent(decision, at);
      // Only now does the host's next slot count from the send.
      reported();
    },
    answered(status, retryAfter, latencyMs, headers) {
      holder.progress();
      // What a status means for the host (which ones back it off) is decided in one place,
      // signals/backoff-policy.ts, behind `observe`.
      return parts.observe(decision, status, retryAfter, { latencyMs, headers });
    },
    async failed(error) {
      reported();
      if (!isServerTroubleError(error)) return;
      // Status 0: no response at all.
      await parts.observe(decision, 0, null, undefined);
    },
    release() {
      if (released) return;
      released = true;
      reported();
      holder.release();
      lease.release();
    },
  };
}
