/**
 * Where a host's time goes in a crawl of an ordinary mix of pages (bench/crawlee-pacing.ts's mix row,
 * with `POLITELY_BENCH_TRACE=<dir>`): the crawl process records what each request went through
 * (`Timeline`: its Crawlee task, its hops' sends, headers and body ends, Crawlee's retries, the
 * host's pace changes), and `accountFor` splits every gap between two requests to a host at the wire
 * into its causes, from the earlier request's send to the later one's:
 *
 * - `response`: the earlier request's response time (spacing counts the delay from the response);
 * - `asked`: the delay asked;
 * - `latency` / `errors`: the host's delay above the one asked (`pace-changed`: latency following,
 *   the penalty of a 5xx), counted from the earlier request's response, or from its start at the
 *   pace in force when it started (its slot was reserved at that pace), whichever ends later;
 * - `held`: the host's place still held once the delay was over (a body being read, or a body
 *   nobody reads given back only when the Crawlee task ends);
 * - `pool`: the later request not yet handed out while Crawlee's autoscaled pool ran all the tasks
 *   it wanted (its concurrency starts at 10; tasks held by slow responses and redirect hops waiting
 *   for their target host fill it);
 * - `retry`: the later request is Crawlee's retry, not yet handed out again by the request queue
 *   (the pool not full);
 * - `queue`: the later request not yet handed out, the pool not full (not found yet, or the queue);
 * - `send`: from the later request's hand-out (or the end of what held it) to the wire.
 */
import { writeFileSync } from 'node:fs';
import type { BaseHttpClient, HttpRequest, RedirectHandler, StreamingHttpResponse } from '@crawlee/core';
import type { PolitelyEvent } from '@politely/core';
import type { WireRequest } from '../test/helpers/wire.js';

export interface CrawlContext {
  readonly request: { readonly url: string };
  readonly enqueueLinks: () => Promise<unknown>;
}

type Kind =
  | 'task'
  | 'send'
  | 'headers'
  | 'body-end'
  | 'handler'
  | 'handler-end'
  | 'retry'
  | 'failed'
  | 'pace'
  | 'backoff'
  | 'pool';

export interface Mark {
  readonly kind: Kind;
  /** Epoch ms. */
  readonly at: number;
  readonly url: string;
  readonly status?: number;
  /** `pace`: the host's new delay and why. */
  readonly toMs?: number;
  readonly reason?: string;
  /** `headers` of a redirect: where it leads. */
  readonly location?: string;
  /** `pool`: Crawlee's autoscaled pool ran as many tasks as it wanted (sampled every 50 ms). */
  readonly full?: boolean;
}

const nowMs = () => performance.timeOrigin + performance.now();

/** The crawl process's record of what each request went through. */
export class Timeline {
  private readonly marks: Mark[] = [];

  record(kind: Kind, url: string, more: Partial<Mark> = {}): void {
    this.marks.push({ kind, at: nowMs(), url, ...more });
  }

  readonly onEvent = (event: PolitelyEvent): void => {
    if (event.type === 'pace-changed')
      this.record('pace', `http://${event.host}/`, { toMs: event.toMs, reason: event.reason });
    else if (event.type === 'backoff') this.record('backoff', `http://${event.host}/`);
  };

  /** Crawler options that record tasks, retries and failures, and an HTTP client that records hops. */
  crawlerOptions(inner: BaseHttpClient) {
    return {
      httpClient: this.tracing(inner),
      preNavigationHooks: [({ request }: { request: { url: string } }) => this.record('task', request.url)],
      errorHandler: ({ request }: { request: { url: string } }) => this.record('retry', request.url),
      failedRequestHandler: ({ request }: { request: { url: string } }) => this.record('failed', request.url),
    };
  }

  /** `inner`, with each hop's send (its slot granted), headers and body end recorded. */
  private tracing(inner: BaseHttpClient): BaseHttpClient {
    const record = this.record.bind(this);
    return {
      sendRequest: (request) => inner.sendRequest(request),
      async stream(request: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
        const url = String(request.url);
        record('send', url);
        const response = await inner.stream(request, onRedirect);
        const location = response.headers.location;
        record('headers', url, {
          status: response.statusCode,
          ...(typeof location === 'string' ? { location: new URL(location, url).href } : {}),
        });
        let ended = false;
        const end = () => {
          if (!ended) record('body-end', url);
          ended = true;
        };
        response.stream.once('end', end);
        response.stream.once('close', end);
        return response;
      },
    };
  }

  /** Samples the crawler's autoscaled pool every 50 ms until the returned stop is called. */
  watch(crawler: object): () => void {
    const seen = crawler as { autoscaledPool?: { currentConcurrency: number; desiredConcurrency: number } };
    const timer = setInterval(() => {
      const pool = seen.autoscaledPool;
      if (pool)
        this.record('pool', 'http://pool/', { full: pool.currentConcurrency >= pool.desiredConcurrency });
    }, 50);
    return () => clearInterval(timer);
  }

  write(path: string): void {
    writeFileSync(path, JSON.stringify(this.marks));
  }
}

export const CAUSES = ['response', 'latency', 'errors', 'held', 'retry', 'pool', 'queue', 'send'] as const;
export type Cause = (typeof CAUSES)[number];

export interface Gap {
  readonly from: string;
  readonly to: string;
  readonly gapMs: number;
  /** ms of the gap beyond the asked delay, by cause (they sum to gapMs - asked). */
  readonly lost: Record<Cause, number>;
}

export interface HostAccount {
  readonly ip: string;
  readonly requests: number;
  readonly spanMs: number;
  readonly efficiency: number;
  readonly gaps: readonly Gap[];
  readonly lost: Record<Cause, number>;
}

const zero = (): Record<Cause, number> => ({
  response: 0,
  latency: 0,
  errors: 0,
  held: 0,
  retry: 0,
  pool: 0,
  queue: 0,
  send: 0,
});

/**
 * Every host's gaps at the wire, split by cause (see the file's comment). Marks are matched to wire
 * requests by host and path, the n-th request to a path with the n-th mark of each kind for it.
 */
export function accountFor(
  wire: readonly WireRequest[],
  marks: readonly Mark[],
  askedMs: number,
): HostAccount[] {
  const byUrl = new Map<string, Mark[]>();
  for (const mark of marks) {
    const url = new URL(mark.url);
    const key = `${url.hostname} ${url.pathname}`;
    const list = byUrl.get(key) ?? [];
    list.push(mark);
    byUrl.set(key, list);
  }
  const nth = (ip: string, path: string, kind: Kind, n: number) =>
    (byUrl.get(`${ip} ${path}`) ?? []).filter((m) => m.kind === kind)[n];
  const pool = marks.filter((m) => m.kind === 'pool');
  /** The share of [from, to) during which Crawlee's pool was full (by its samples). */
  const fullShare = (from: number, to: number) => {
    const samples = pool.filter((m) => m.at >= from && m.at < to);
    return samples.length === 0 ? 0 : samples.filter((m) => m.full).length / samples.length;
  };
  const paces = marks.filter((m) => m.kind === 'pace');
  /** The host's delay at `t`, by the last pace change before it (the asked delay before any). */
  const paceOf = (ip: string, t: number) => {
    const last = paces.filter((m) => new URL(m.url).hostname === ip && m.at <= t).at(-1);
    return { ms: Math.max(askedMs, last?.toMs ?? askedMs), reason: last?.reason };
  };
  const redirectsTo = (ip: string, path: string) =>
    marks.filter(
      (m) => m.location && new URL(m.location).hostname === ip && new URL(m.location).pathname === path,
    );
  const hosts = new Map<string, WireRequest[]>();
  for (const r of wire) {
    if (r.path.endsWith('/robots.txt')) continue;
    hosts.set(r.ip, [...(hosts.get(r.ip) ?? []), r]);
  }
  const accounts: HostAccount[] = [];
  for (const [ip, unsorted] of hosts) {
    const sorted = [...unsorted].sort((a, b) => a.at - b.at);
    const seen = new Map<string, number>();
    const hops = sorted.map((r) => {
      const n = seen.get(r.path) ?? 0;
      seen.set(r.path, n + 1);
      const headers = nth(ip, r.path, 'headers', n);
      const send = nth(ip, r.path, 'send', n);
      // A redirect's target is handed out when its redirect's headers are in (another host's hop).
      const handedOut = nth(ip, r.path, 'task', n)?.at ?? redirectsTo(ip, r.path)[n]?.at ?? send?.at ?? r.at;
      return {
        path: r.path,
        at: r.at,
        headersAt: headers?.at ?? r.at,
        releasedAt: nth(ip, r.path, 'body-end', n)?.at ?? headers?.at ?? r.at,
        handedOut,
        retry: n > 0,
      };
    });
    const gaps: Gap[] = [];
    const lost = zero();
    for (let i = 1; i < hops.length; i++) {
      const a = hops[i - 1];
      const b = hops[i];
      if (!a || !b) continue;
      const gap = zero();
      gap.response = a.headersAt - a.at;
      // The host's pace when a went out spaces b from a's start (its slot was reserved at that pace);
      // the pace after a's response spaces b from the response. Whichever ends later binds.
      const paceAt = (t: number) => paceOf(ip, t);
      const before = paceAt(a.at);
      const after = paceAt(b.at);
      const due = Math.max(a.at + before.ms, a.headersAt + after.ms);
      const binding = a.at + before.ms > a.headersAt + after.ms ? before : after;
      gap[binding.reason === 'latency' ? 'latency' : 'errors'] += due - a.headersAt - askedMs;
      gap.held = Math.max(0, a.releasedAt - due);
      let cursor = Math.max(due, a.releasedAt);
      const waited = Math.max(0, b.handedOut - cursor);
      const full = waited > 0 ? fullShare(cursor, b.handedOut) : 0;
      gap.pool = waited * full;
      gap[b.retry ? 'retry' : 'queue'] = waited * (1 - full);
      cursor = Math.max(cursor, b.handedOut);
      gap.send = b.at - cursor;
      for (const cause of CAUSES) lost[cause] += gap[cause];
      gaps.push({ from: a.path, to: b.path, gapMs: b.at - a.at, lost: gap });
    }
    const spanMs = (hops.at(-1)?.at ?? 0) - (hops[0]?.at ?? 0);
    accounts.push({
      ip,
      requests: hops.length,
      spanMs,
      efficiency: spanMs > 0 ? ((hops.length - 1) * askedMs) / spanMs : 1,
      gaps,
      lost,
    });
  }
  return accounts.sort((a, b) => a.efficiency - b.efficiency);
}

const s = (ms: number) => (ms / 1000).toFixed(2);

/** The account as printed: each cause's range over the hosts, the worst hosts, the worst host's gaps. */
export function printAccount(accounts: readonly HostAccount[], askedMs: number): void {
  const range = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return [at(0), at(0.5), at(1)] as const;
  };
  const bound = (a: HostAccount) => (a.requests - 1) * askedMs;
  console.log(
    `\nWhere the hosts' time went beyond the asked delay (${accounts.length} hosts; causes: bench/pacing-account.ts)\n`,
  );
  console.log("| cause | seconds per host, min / median / max | share of the host's bound, min - max |");
  console.log('| --- | ---: | ---: |');
  for (const cause of [...CAUSES, 'all'] as const) {
    const lost = (a: HostAccount) => (cause === 'all' ? a.spanMs - bound(a) : a.lost[cause]);
    const [min, median, max] = range(accounts.map(lost));
    const [lo, , hi] = range(accounts.map((a) => lost(a) / bound(a)));
    console.log(`| ${cause} | ${s(min)} / ${s(median)} / ${s(max)} | ${lo.toFixed(2)} - ${hi.toFixed(2)} |`);
  }
  console.log(`\nThe five worst hosts, seconds\n`);
  console.log(`| host | requests | span | efficiency | ${CAUSES.join(' | ')} |`);
  console.log(`| --- | ---: | ---: | ---: | ${CAUSES.map(() => '---:').join(' | ')} |`);
  for (const a of accounts.slice(0, 5)) {
    console.log(
      `| ${a.ip} | ${a.requests} | ${s(a.spanMs)} | ${a.efficiency.toFixed(2)} | ${CAUSES.map((c) => s(a.lost[c])).join(' | ')} |`,
    );
  }
  const worst = accounts[0];
  if (!worst) return;
  console.log(`\nThe worst host's gaps (${worst.ip}), seconds beyond the asked delay by cause\n`);
  console.log(`| from | to | gap | ${CAUSES.join(' | ')} |`);
  console.log(`| --- | --- | ---: | ${CAUSES.map(() => '---:').join(' | ')} |`);
  for (const g of worst.gaps) {
    console.log(
      `| ${g.from} | ${g.to} | ${s(g.gapMs)} | ${CAUSES.map((c) => (Math.abs(g.lost[c]) >= 5 ? s(g.lost[c]) : '')).join(' | ')} |`,
    );
  }
}
