/**
 * What one got attempt tells its pass, from its ClientRequest: every attempt and redirect hop, in the
 * promise API and the stream API alike. The pass alone feeds the host's schedule: the real send, and
 * the response (status, Retry-After, latency, rate-limit headers; what a 429 or 503 means is decided
 * in core's backoff policy, behind `answered`). A failure reaches the pass from got's error hooks
 * (got-hooks.ts). Reports are chained in the order pacing needs, as core's `sendHop` makes them: what
 * the response says about the host before the gap counted from it, and both before the attempt gives
 * its place back, so the next request to the host already goes at the pace they set.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { SendPass, Spacing } from '@politely/core/adapter';
import type { HostHold } from './host-hold.js';
import { observeSend, type SendObserver } from './send-observer.js';

/** Reports what happens to `clientRequest` to the pass its attempt was admitted with. */
export function reportAttempt(clientRequest: ClientRequest, hold: HostHold, spacing: Spacing): void {
  observeSend(clientRequest, new AttemptReport(hold, spacing));
}

class AttemptReport implements SendObserver {
  readonly #hold: HostHold;
  readonly #pass: SendPass;
  readonly #spacing: Spacing;
  /** The reports so far, in order; they never reject (SendPass), so the chain always reaches the end. */
  #reports: Promise<unknown> = Promise.resolve();
  #sentAt: number | undefined;
  #answered = false;

  constructor(hold: HostHold, spacing: Spacing) {
    this.#hold = hold;
    this.#pass = hold.pass;
    this.#spacing = spacing;
  }

  onSent(at: number): void {
    this.#sentAt = at;
    // The next request to the host may reserve once this one's slot has moved to its real send.
    if (this.#spacing === 'start')
      void this.#then(() => this.#pass.sent(at)).finally(() => this.#hold.sent());
  }

  onResponse(at: number, response: IncomingMessage): void {
    this.#answered = true;
    const latencyMs = latencyOf(response, at, this.#sentAt);
    void this.#then(() =>
      this.#pass.answered(response.statusCode ?? 0, retryAfterOf(response), latencyMs, response.headers),
    );
    // Counting from the response covers latency the client cannot see (a proxy that connects onward
    // late): the server had the request before it answered. Its headers prove that as well as the
    // body's end does, without charging the body's download to the next gap; the place in flight
    // (maxConcurrentPerHost) is still held until the end.
    if (this.#spacing === 'response') void this.#then(() => this.#pass.sent(at));
  }

  onDone(at: number): void {
    // Sent but never answered (reset, timeout): the server may have had it until now.
    if (this.#spacing === 'response' && this.#sentAt !== undefined && !this.#answered) {
      void this.#then(() => this.#pass.sent(at));
    }
    void this.#reports.finally(() => this.#hold.done());
  }

  #then(report: () => Promise<unknown>): Promise<unknown> {
    this.#reports = this.#reports.then(report);
    return this.#reports;
  }
}

/** got's timings (http-timer: request sent to response headers), else the same span as seen here. */
function latencyOf(response: IncomingMessage, at: number, sentAt: number | undefined): number | undefined {
  const measured = (response as { timings?: { phases?: { firstByte?: unknown } } }).timings?.phases
    ?.firstByte;
  if (typeof measured === 'number') return measured;
  return sentAt === undefined ? undefined : Math.max(0, at - sentAt);
}

/** A response's Retry-After header (its first, if repeated), or null. */
export function retryAfterOf(response: {
  readonly headers: Record<string, string | string[] | undefined>;
}): string | null {
  const header = response.headers['retry-after'];
  return (Array.isArray(header) ? header[0] : header) ?? null;
}
