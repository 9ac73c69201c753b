/**
 * What one got attempt tells its pass, from its ClientRequest: every attempt and redirect hop, in the
 * promise API and the stream API alike. The pass alone feeds the host's schedule: its real send, its
 * response (status, Retry-After, latency, rate-limit headers; what a 429 or 503 means is decided in
 * core's backoff policy, behind `answered`), or its failure (a timeout or a dropped connection slows
 * the host). Reports are chained in the order pacing needs, as core's `sendHop` makes them: what the
 * response says about the host before the gap counted from it, and all of them before the attempt
 * gives its place back, so the next request to the host already goes at the pace they set.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Spacing } from '@politely/core/adapter';
import type { HostHold } from './host-hold.js';
import { observeSend } from './send-observer.js';

export function reportAttempt(clientRequest: ClientRequest, hold: HostHold, spacing: Spacing): void {
  const { pass } = hold;
  let reports: Promise<unknown> = Promise.resolve();
  // Reports never reject (SendPass), so the chain always reaches the attempt's end.
  const then = (report: () => Promise<unknown>) => {
    reports = reports.then(report);
    return reports;
  };
  let sentAt: number | undefined;
  let answered = false;
  observeSend(clientRequest, {
    onSent: (at) => {
      sentAt = at;
      if (spacing === 'start') void then(() => pass.sent(at)).finally(() => hold.sent());
    },
    onResponse: (at, response) => {
      answered = true;
      void then(() =>
        pass.answered(
          response.statusCode ?? 0,
          retryAfterOf(response),
          latencyOf(response, at, sentAt),
          response.headers,
        ),
      );
      // Counting from the response covers latency the client cannot see (a proxy that connects
      // onward late): the server had the request before it answered. Its headers prove that as
      // well as the body's end does, without charging the body's download to the next gap; the
      // place in flight (maxConcurrentPerHost) is still held until the end.
      if (spacing === 'response') void then(() => pass.sent(at));
    },
    onFailed: (error) => {
      void then(() => pass.failed(error));
    },
    onDone: (at) => {
      // Sent but never answered (reset, timeout): the server may have had it until now.
      if (spacing === 'response' && sentAt !== undefined && !answered) void then(() => pass.sent(at));
      void reports.finally(() => hold.done());
    },
  });
}

/** got's timings (http-timer: request sent to response headers), else the same span as seen here. */
function latencyOf(response: IncomingMessage, at: number, sentAt: number | undefined): number | undefined {
  const measured = (response as { timings?: { phases?: { firstByte?: unknown } } }).timings?.phases
    ?.firstByte;
  if (typeof measured === 'number') return measured;
  return sentAt === undefined ? undefined : Math.max(0, at - sentAt);
}

export function retryAfterOf(response: {
  readonly headers: Record<string, string | string[] | undefined>;
}): string | null {
  const header = response.headers['retry-after'];
  return (Array.isArray(header) ? header[0] : header) ?? null;
}
