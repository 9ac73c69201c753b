/**
 * What one got attempt tells its hop, from its ClientRequest: every attempt and redirect hop, in the
 * promise API and the stream API alike. The events are core's hop lifecycle (sent → answered → done);
 * the order their reports reach the host's schedule, and what `spacing` makes of them, is core's.
 * A failure reaches the hop from got's error hooks (got-hooks.ts).
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Hop } from '@politely/core/adapter';
import { observeSend } from './send-observer.js';

/** Reports what happens to `clientRequest` to the hop its attempt was admitted with. */
export function reportAttempt(clientRequest: ClientRequest, hop: Hop): void {
  let sentAt: number | undefined;
  observeSend(clientRequest, {
    onSent(at) {
      sentAt = at;
      void hop.sent(at);
    },
    onResponse(at, response) {
      void hop.answered({
        status: response.statusCode ?? 0,
        retryAfter: retryAfterOf(response),
        latencyMs: latencyOf(response, at, sentAt),
        headers: response.headers,
        at,
      });
    },
    onDone: (at) => void hop.done(at),
  });
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
