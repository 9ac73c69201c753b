/**
 * What the soak's processes tell each other over Node's IPC channel: the coordinator (main.ts), the
 * loopback web (web.ts) and the crawler workers (worker.ts).
 */

/** One simulated site. */
export interface SoakHost {
  readonly ip: string;
  /** Crawl-delay in robots.txt, seconds; undefined: none, so the crawler's minDelayMs paces it. */
  readonly crawlDelaySeconds: number | undefined;
  /** Pages /p/0 .. /p/(pages-1), a binary tree from /p/0, so the crawl discovers them as it goes. */
  readonly pages: number;
}

export type ToWeb =
  | { readonly t: 'start'; readonly hosts: readonly SoakHost[] }
  | { readonly t: 'dump'; readonly file: string };

export type FromWeb =
  | { readonly t: 'ready'; readonly port: number }
  | { readonly t: 'dumped' }
  | { readonly t: 'error'; readonly message: string };

export interface WorkerSetup {
  readonly redisUrl: string;
  readonly namespace: string;
  readonly minDelayMs: number;
  readonly maxWaitMs: number;
  /** Items this worker crawls at once. */
  readonly slots: number;
}

export type ToWorker =
  | { readonly t: 'setup'; readonly setup: WorkerSetup }
  | { readonly t: 'item'; readonly id: number; readonly url: string }
  | { readonly t: 'stop' };

export type ItemOutcome =
  /** Fetched with a 200: `links` are the page's links. */
  | 'fetched'
  /** Refused by robots.txt before any request. */
  | 'refused'
  /** Not sent this time (a wait over maxWaitMs, a network error, a status other than 200): hand it out again. */
  | 'retry';

export type FromWorker =
  | { readonly t: 'ready' }
  | {
      readonly t: 'done';
      readonly id: number;
      readonly outcome: ItemOutcome;
      readonly links: readonly string[];
      readonly detail?: string;
    }
  | { readonly t: 'memory'; readonly rss: number; readonly heapUsed: number }
  | {
      readonly t: 'event';
      readonly type: 'scheduler-fallback' | 'scheduler-recovered' | 'robots-fetch';
      readonly at: number;
      /** robots-fetch: whose robots.txt. */
      readonly origin?: string;
    }
  | { readonly t: 'stopped' };
