/**
 * How a got attempt takes its host: core's send pass (the kit's `pass`: a place among the host's
 * requests in flight, the facade's lease, `maxConcurrentPerHost`, fleet-wide with Redis, then its
 * binding pacing slot), bounded by got's own limits only, as the queue of a crawl is.
 */
import type { Decision } from '@politely/core';
import type { AdapterKit, SendPass, SendPassOptions, Spacing } from '@politely/core/adapter';
import type { HostGate } from './send-order.js';

/** What an admitted attempt holds on its host until it is over: its send pass, and the send order. */
export interface HostHold {
  /** The pass the attempt was admitted with (its place in flight and its slot). */
  readonly pass: SendPass;
  /** The attempt is on the wire and the host's next slot moved: the next may reserve ('start'). */
  sent(): void;
  /** The attempt is over (body read, failed, or never sent): gives back its place in flight. */
  done(): void;
}

/** got's limits on one attempt's wait: its `signal`, and what is left of `timeout.request`. */
export interface WaitLimits {
  readonly signal?: AbortSignal | undefined;
  /** ms left of the request's limit now, or undefined for none. */
  left(): number | undefined;
}

/**
 * Takes the attempt's pass for a send the handler will report (so the pass paces by the delay asked).
 * With 'start' spacing and a delay, the attempt first enters the host's send order: it reserves only
 * once the one before it has gone out, since until then nobody knows when the host's next slot is.
 */
export async function holdHost(
  kit: AdapterKit,
  sendOrder: HostGate,
  spacing: Spacing,
  decision: Decision,
  limits: WaitLimits,
): Promise<HostHold> {
  const ordered = spacing === 'start' && decision.delayMs > 0;
  const sent = ordered ? await sendOrder.enter(decision.hostKey, limits.signal) : () => {};
  let pass: SendPass;
  try {
    pass = await kit.pass(decision, { ...passOptions(limits), sendReported: true });
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
}

/**
 * For hooks taken without the handler, which cannot see the send: the attempt takes its slot with
 * core's safety margin, and its place in flight only while it waits for it (nothing would give it
 * back). The pass is returned released: got's response and error hooks still report to it.
 */
export async function passWithoutWatch(
  kit: AdapterKit,
  decision: Decision,
  limits: WaitLimits,
): Promise<SendPass> {
  const pass = await kit.pass(decision, passOptions(limits));
  pass.release();
  return pass;
}

/** A slot beyond what is left of the limit is refused at once; a place in flight waits that long. */
function passOptions(limits: WaitLimits): SendPassOptions {
  const leftMs = limits.left();
  return {
    ...(limits.signal ? { signal: limits.signal } : {}),
    ...(leftMs !== undefined ? { maxWaitMs: leftMs } : {}),
    inFlightMaxWaitMs: leftMs ?? Number.POSITIVE_INFINITY,
  };
}
