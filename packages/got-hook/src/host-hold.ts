/**
 * How a got attempt takes its host: a hop of core's lifecycle (`openHop`: a place among the host's
 * requests in flight, `maxConcurrentPerHost`, fleet-wide with Redis, then its binding pacing slot,
 * and with spacing 'start' the host's send order), bounded by got's own limits only, as the queue of
 * a crawl is.
 */
import type { Decision } from '@politely/core';
import {
  type AdapterKit,
  type Hop,
  openHop,
  type SendPass,
  type SendPassOptions,
  type Spacing,
} from '@politely/core/adapter';

/** got's limits on one attempt's wait: its `signal`, and what is left of `timeout.request`. */
export interface WaitLimits {
  readonly signal?: AbortSignal | undefined;
  /** ms left of the request's limit now, or undefined for none. */
  left(): number | undefined;
}

/**
 * Opens the attempt's hop, for an attempt whose ClientRequest the handler watches: it reports each
 * send as it happens (so the hop is paced by the delay asked, and with 'start' spacing ordered behind
 * the host's previous send).
 */
export function holdHost(
  kit: AdapterKit,
  spacing: Spacing,
  decision: Decision,
  limits: WaitLimits,
): Promise<Hop> {
  const leftMs = limits.left();
  return openHop(kit, decision, {
    signal: limits.signal,
    // A slot beyond what is left of the limit is refused at once; a place in flight waits that long.
    maxWaitMs: leftMs,
    inFlightMaxWaitMs: leftMs ?? Number.POSITIVE_INFINITY,
    spacing,
    seesSend: true,
    ordered: true,
  });
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
  const pass = await kit.pass(decision, waitOptions(limits));
  pass.release();
  return pass;
}

/** A slot beyond what is left of the limit is refused at once; a place in flight waits that long. */
function waitOptions(limits: WaitLimits): SendPassOptions {
  const leftMs = limits.left();
  return {
    signal: limits.signal,
    maxWaitMs: leftMs,
    inFlightMaxWaitMs: leftMs ?? Number.POSITIVE_INFINITY,
  };
}
