/**
 * The margin core adds to a delay for requests whose real send nobody reports, and the rule that
 * takes it off again for those whose send is reported. Shared by the decision policy (which adds it)
 * and the send pass (which drops it), so both sit on one definition.
 */
import type { Decision } from './decision.js';

/**
 * Spacing is enforced when a request starts on our side; the server sees it shifted by connection
 * latency, which varies from one request to the next (a new connection, a busy event loop). A small
 * upward margin, 10% of the delay and at most 50 ms, keeps the gaps the server sees at or above the
 * delay asked. Jitter only ever goes upward: a Crawl-delay is a floor.
 *
 * Measured at the wire (bench/pacing.ts, two CPU burners), a margin cannot cover latency that varies
 * by more than itself (120 ms of connection setup: gaps of 99 ms for 200 asked), and an adapter that
 * reports the real send with `markSent` needs none (0 gaps below the delay from 50 ms to 1 s), so
 * @politely/got paces by `askedDelayMs`; the margin stays for adapters that cannot see the send.
 */
export function withSafetyMargin(delayMs: number): number {
  return delayMs + Math.min(50, Math.round(delayMs * 0.1));
}

/**
 * The decision paced by the delay asked (`askedDelayMs`), without the margin above: for a request
 * whose real send is reported (`markSent`) before the host's next one reserves. A decision without
 * a margin (disallowed, or made elsewhere) comes back unchanged.
 */
export function withoutSafetyMargin<D extends Decision>(decision: D): D {
  const asked = decision.askedDelayMs;
  return asked === undefined || asked === decision.delayMs ? decision : { ...decision, delayMs: asked };
}
