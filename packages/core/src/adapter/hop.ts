/**
 * One hop's lifecycle, the same for every adapter: sent → answered → done. An adapter opens a hop
 * (`openHop`: the kit's pass, a place in flight and the binding slot) and reports what its client
 * shows it; the order in which those reports reach the host's schedule, and what `spacing` makes of
 * them, is decided here and nowhere else:
 *
 * - sent: the request went out. With spacing 'start' the host's next start counts from here.
 * - answered: the response's headers. What they say about the host (status, Retry-After, latency,
 *   rate-limit fields) is fed first, so a gap counted afterwards already follows its pace; then, with
 *   'response', the host's next start counts from the answer (with 'start', from the send, when it
 *   was not counted yet).
 * - done: the body ended, or the hop failed, was aborted or dropped. A hop that ends without an answer
 *   may still have reached the server: with 'response' its end is counted as its answer. Then the
 *   place in flight is given back, after every report before it.
 *
 * Every report is idempotent and safe in any order (an answer after the end, a second end, a failure
 * before any answer); reports are chained so that none overtakes another, and none rejects.
 */
import type { Decision } from '../kernel/decision.js';
import type { ResponseHeaders } from '../signals/rate-limit-headers.js';
import type { AdapterKit } from './kit.js';
import { createHostGate, type HostGate } from './send-order.js';
import type { SendPass, SendPassOptions } from './send-pass.js';
import type { Spacing } from './spacing.js';

const SETTLED: Promise<void> = Promise.resolve();
const NOTHING = () => {};

/** Each Politeness' send order (by its kit), shared by every adapter that orders its sends on it. */
const sendOrders = new WeakMap<AdapterKit, HostGate>();

export interface HopOptions extends Omit<SendPassOptions, 'sendReported'> {
  readonly spacing: Spacing;
  /**
   * True when the adapter reports every send it can see (`sent`), or learns it by the answer (a
   * client's timings): the hop is then paced by the delay asked, and with 'start' an answered hop
   * whose send was not reported counts from the answer. False when the send cannot be seen (a browser
   * intercepted with `page.route`): with 'start' the slot keeps core's safety margin, and with
   * 'response' an unanswered end counts as the answer whether or not a send was reported.
   */
  readonly seesSend: boolean;
  /**
   * True when the adapter reports each send as it happens, before its answer (got's ClientRequest):
   * with 'start' and a delay, the host's next hop then reserves only once this one went out (or
   * ended), since until then nobody knows when the host's next slot is (send-order.ts). Default false.
   */
  readonly ordered?: boolean;
  /**
   * The host's next start was counted from `at` (epoch ms) at the answer or the end; a send reported
   * with `sent` is the adapter's own to tell.
   */
  readonly onCounted?: (decision: Decision, at: number) => void;
}

/** What a hop's response tells the host, as the adapter reads it from its client. */
export interface HopResponse {
  /**
   * The status. Undefined when the answer came from another host (a client that followed redirects
   * itself): the adapter feeds that host, and only the answer's moment counts here.
   */
  readonly status?: number;
  readonly retryAfter?: string | null;
  /** ms from the send to the headers, when measured. */
  readonly latencyMs?: number | undefined;
  readonly headers?: ResponseHeaders;
  /** When the headers arrived (epoch ms, an upper bound). Default: now, on the Politeness' clock. */
  readonly at?: number;
  /** When the request went out, when the client tells only now (its timings); counts with 'start'. */
  readonly sentAt?: number;
}

export interface Hop {
  /** The decision the hop is paced by. */
  readonly decision: Decision;
  /** The request is on the wire at `at` (an upper bound, epoch ms). Resolves once counted. */
  sent(at: number): Promise<void>;
  /**
   * The response's headers arrived; resolves, once its reports are in, with the backoff set, in ms,
   * if any.
   */
  answered(response: HopResponse): Promise<number | undefined>;
  /**
   * The hop failed (a timeout or a dropped connection slows the host; what counts is core's rule): it
   * is over, at `at` (epoch ms, an upper bound; default now). Reported once, even after `done` (a
   * client that tells its failure after its end).
   */
  failed(error: unknown, at?: number): Promise<void>;
  /**
   * The hop is over (body read, dropped, destroyed) at `at` (epoch ms, an upper bound; default now):
   * its place is given back.
   */
  done(at?: number): Promise<void>;
  /** The hop never went out (given up before its send): its place is given back, nothing counted. */
  notSent(): Promise<void>;
}

/** Takes the hop's pass (its place in flight, then its slot) and starts its lifecycle. */
export function openHop(kit: AdapterKit, decision: Decision, options: HopOptions): Promise<Hop> {
  const { spacing, seesSend, ordered = false, onCounted } = options;
  // A send that will be counted (reported, or proven by the answer) needs no margin on its slot.
  // Only the pass's own fields are handed on: a copy of the hop's options would be made per hop.
  const passOptions: SendPassOptions = {
    signal: options.signal,
    maxWaitMs: options.maxWaitMs,
    inFlightMaxWaitMs: options.inFlightMaxWaitMs,
    sendReported: spacing === 'response' || seesSend,
  };
  if (!(ordered && spacing === 'start' && decision.delayMs > 0)) {
    return kit.pass(decision, passOptions).then((pass) => trackHop(pass, spacing, seesSend, onCounted));
  }
  return openOrderedHop(kit, decision, options, passOptions);
}

/** A hop that waits for its host's previous send before taking its pass (send-order.ts says why). */
async function openOrderedHop(
  kit: AdapterKit,
  decision: Decision,
  options: HopOptions,
  passOptions: SendPassOptions,
): Promise<Hop> {
  let order = sendOrders.get(kit);
  if (!order) {
    order = createHostGate();
    sendOrders.set(kit, order);
  }
  const leave = await order.enter(decision.hostKey, options.signal);
  let pass: SendPass;
  try {
    pass = await kit.pass(decision, passOptions);
  } catch (error) {
    leave();
    throw error;
  }
  return trackHop(pass, options.spacing, options.seesSend, options.onCounted, leave);
}

/** The lifecycle of a hop whose pass is taken (`openHop`). */
function trackHop(
  pass: SendPass,
  spacing: Spacing,
  seesSend: boolean,
  onCounted?: (decision: Decision, at: number) => void,
  leaveOrder: () => void = NOTHING,
): Hop {
  /** The reports so far, in order; SendPass reports never reject, so the chain always reaches the end. */
  let reports: Promise<unknown> = SETTLED;
  /** Reports queued and not yet done: none, and a report that only notes (`sent`) makes no promise. */
  let queued = 0;
  const reported = <T>(value: T): T => {
    queued--;
    return value;
  };
  // A stand-in's report that rejects all the same is dropped: the chain, and the client, go on.
  const dropped = (): undefined => {
    queued--;
    return undefined;
  };
  const then = <T>(report: () => T | Promise<T>): Promise<T | undefined> => {
    queued++;
    const next = reports.then(report).then(reported<T>, dropped);
    reports = next;
    return next;
  };
  let sentSeen = false;
  let counted = false;
  let answered = false;
  let failed = false;
  let over = false;
  const settled = (): Promise<void> => (queued === 0 ? SETTLED : reports.then(NOTHING));
  /** Counts the host's next start from `at`, or (undefined) from when the report is made. */
  const count = (at: number | undefined, tell: boolean) => {
    counted = true;
    return then(() => {
      const sent = pass.sent(at);
      return tell && onCounted ? sent.then(() => onCounted(pass.decision, at ?? Date.now())) : sent;
    });
  };
  const end = (sent: boolean, at: number | undefined): Promise<void> => {
    if (over) return settled();
    over = true;
    // Sent (or perhaps sent, unseen) and never answered: the server may have had it until its end.
    // +1: the real moment may lie up to 1 ms past a whole millisecond of Date.now().
    if (sent && spacing === 'response' && !answered && (sentSeen || !seesSend))
      void count(at ?? Date.now() + 1, true);
    return then(() => {
      leaveOrder();
      pass.release();
    });
  };
  return {
    decision: pass.decision,
    sent(at) {
      if (over) return settled();
      sentSeen = true;
      if (spacing !== 'start') return settled();
      // The host's next hop may reserve once this one's slot has moved to its real send.
      return count(at, false).finally(leaveOrder);
    },
    answered(response) {
      if (over || answered) return Promise.resolve(undefined);
      answered = true;
      const { status } = response;
      const fed =
        status === undefined
          ? Promise.resolve(undefined)
          : then(() =>
              pass.answered(status, response.retryAfter ?? null, response.latencyMs, response.headers),
            );
      if (spacing === 'response') void count(response.at, true);
      else if (!counted && seesSend) void count(response.sentAt ?? response.at, true);
      return reports.then(() => fed);
    },
    failed(error, at) {
      if (failed) return settled();
      failed = true;
      void then(() => pass.failed(error));
      return end(true, at);
    },
    done: (at) => end(true, at),
    notSent: () => end(false, undefined),
  };
}
