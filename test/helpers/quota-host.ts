/**
 * A host that keeps a request quota and says so in the draft's `RateLimit` header
 * (draft-ietf-httpapi-ratelimit-headers): `quota` page requests per fixed window of `windowMs`, the
 * first window starting at the first page request. Each answer carries `r` (requests left in the
 * window) and `t` (whole seconds until it resets, rounded up); a request over the quota gets a 429,
 * as a real rate limiter would. robots.txt allows everything and is not counted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startHost, type TestHost, text } from './hosts.js';
import type { WireRequest } from './wire.js';

export interface QuotaAnswer {
  /** Epoch ms when the server answered. */
  readonly at: number;
  readonly status: number;
  /** `r`: requests left before the reset. */
  readonly remaining: number;
  /** `t`: seconds until the reset (rounded up: a little later than the true end of the window). */
  readonly resetSeconds: number;
  /** Epoch ms when the answer's window really ends. */
  readonly windowEnd: number;
}

export interface QuotaHost {
  readonly host: TestHost;
  /** Every page answer, in order. */
  readonly answers: readonly QuotaAnswer[];
}

export async function startQuotaHost(ip: string, quota: number, windowMs: number): Promise<QuotaHost> {
  const answers: QuotaAnswer[] = [];
  let windowStart: number | undefined;
  let used = 0;
  const page = (_req: IncomingMessage, res: ServerResponse) => {
    const now = Date.now();
    if (windowStart === undefined) windowStart = now;
    // Fixed windows from the first request: a new one starts each `windowMs`.
    while (now >= windowStart + windowMs) {
      windowStart += windowMs;
      used = 0;
    }
    used++;
    const status = used > quota ? 429 : 200;
    const remaining = Math.max(0, quota - used);
    const resetSeconds = Math.ceil((windowStart + windowMs - now) / 1000);
    answers.push({ at: now, status, remaining, resetSeconds, windowEnd: windowStart + windowMs });
    res.writeHead(status, {
      'content-type': 'text/html',
      ratelimit: `"default";r=${remaining};t=${resetSeconds}`,
    });
    res.end('<p>page</p>');
  };
  const host = await startHost({
    ip,
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') },
    fallback: page,
  });
  return { host, answers };
}

/** One answer whose promise the crawl broke: more page requests reached the wire before its reset than it had left. */
export interface QuotaViolation {
  readonly answer: QuotaAnswer;
  readonly requestsBeforeReset: number;
}

/**
 * For every answer: the page requests the wire saw after it and before its reset must number at most
 * its `r`. The reset is `t` after the answer, or the window's true end when that comes first: `t` is
 * rounded up to whole seconds, and a later answer's rounding may say the window ends sooner.
 */
export function judgeQuota(
  wire: readonly WireRequest[],
  ip: string,
  answers: readonly QuotaAnswer[],
): QuotaViolation[] {
  const pages = wire
    .filter((request) => request.ip === ip && request.path !== '/robots.txt')
    .map((r) => r.at);
  const violations: QuotaViolation[] = [];
  for (const answer of answers) {
    const resetAt = Math.min(answer.at + answer.resetSeconds * 1000, answer.windowEnd);
    const requestsBeforeReset = pages.filter((at) => at > answer.at && at < resetAt).length;
    if (requestsBeforeReset > answer.remaining) violations.push({ answer, requestsBeforeReset });
  }
  return violations;
}
