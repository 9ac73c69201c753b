/**
 * The demo as a function: crawl the demo web politely, then judge every host by its server log and by
 * what the crawler reported. `main.ts` prints it; the tests call it directly.
 */
import type { KeyvLike } from '@politely/core';
import type { WireRequest } from '../../test/helpers/wire.js';
import {
  captureDemoWeb,
  type DemoHostKey,
  type DemoVerdict,
  type DemoWeb,
  judgeDemoWeb,
} from '../demo-web/index.js';
import { type CrawlOutcome, type CrawlProgress, crawlDemoWeb, DEMO_MIN_DELAY_MS } from './crawl.js';
import { formatMs, textTable } from './table.js';

export interface DemoOptions {
  readonly web: DemoWeb;
  /** Fleet mode: robots.txt cache and pacing in this store (e.g. `createKeyv(REDIS_URL)`). */
  readonly store?: KeyvLike;
  readonly minDelayMs?: number;
  readonly onProgress?: (progress: CrawlProgress) => void;
}

export interface DemoHostRow {
  readonly key: DemoHostKey;
  readonly fetched: number;
  /**
   * What the crawler reported skipping, by reason (`redirect`: a request whose redirect into a
   * disallowed path was stopped): the log's `skip` and `blocked` lines, counted.
   */
  readonly skipped: Readonly<Record<string, number>>;
  readonly robotsFetches: number;
  readonly smallestGapMs: number;
  readonly askedDelayMs: number;
  /** Server-side and crawler-side problems; empty when the host behaved as expected. */
  readonly problems: readonly string[];
}

export interface DemoReport {
  readonly ok: boolean;
  readonly outcome: CrawlOutcome;
  readonly verdict: DemoVerdict;
  readonly rows: readonly DemoHostRow[];
  /** Every request line as the kernel timed it (tcpdump on lo), or the servers' logs in the loud fallback. */
  readonly wire: readonly WireRequest[];
}

export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const minDelayMs = options.minDelayMs ?? DEMO_MIN_DELAY_MS;
  // Gaps are judged at the wire, with no slack: the servers' own clocks stall under load.
  const capture = await captureDemoWeb(options.web);
  let outcome: CrawlOutcome;
  let wire: WireRequest[];
  try {
    outcome = await crawlDemoWeb({
      startUrls: options.web.startUrls,
      mode: 'politely',
      minDelayMs,
      ...(options.store ? { store: options.store } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    wire = await capture.stop();
  }
  const verdict = judgeDemoWeb(options.web, {
    minDelayMs,
    ...(capture.source === 'tcpdump' ? { wire } : {}),
  });
  const rows = verdict.hosts.map((host): DemoHostRow => {
    const web = options.web.host(host.key);
    const problems = [...host.problems, ...crawlerSideProblems(web, outcome)];
    const skipped: Record<string, number> = {};
    for (const page of web.blueprint.pages) {
      const url = web.url(page.path);
      // A stopped redirect ends its request as a skip (the log's `blocked` line): counted as one here.
      const reason = outcome.skipped.get(url) ?? (outcome.redirectsStopped.has(url) ? 'redirect' : undefined);
      if (reason !== undefined) skipped[reason] = (skipped[reason] ?? 0) + 1;
    }
    return {
      key: host.key,
      fetched: host.pagesFetched,
      skipped,
      robotsFetches: host.robotsFetches,
      smallestGapMs: host.smallestGapMs,
      askedDelayMs: host.askedDelayMs,
      problems,
    };
  });
  return { ok: rows.every((row) => row.problems.length === 0), outcome, verdict, rows, wire };
}

/** Each page the crawler must not fetch was reported, and for the reason the blueprint gives. */
function crawlerSideProblems(host: ReturnType<DemoWeb['host']>, outcome: CrawlOutcome): string[] {
  const problems: string[] = [];
  for (const page of host.blueprint.pages) {
    const url = host.url(page.path);
    const expect = page.expect;
    if (expect.outcome === 'skipped') {
      const reported = outcome.skipped.get(url);
      if (reported !== expect.reason) {
        problems.push(`${page.path}: crawler reported ${reported ?? 'no skip'}, expected ${expect.reason}`);
      }
    } else if (expect.outcome === 'redirect-blocked') {
      if (!outcome.redirectsStopped.has(url))
        problems.push(`${page.path}: the redirect into ${expect.target} was not stopped`);
    } else if (outcome.failed.has(url)) {
      problems.push(`${page.path}: failed (${outcome.failed.get(url)})`);
    }
  }
  return problems;
}

/** The per-host summary table. */
export function demoTable(report: DemoReport): string {
  return textTable(
    [
      { title: 'host' },
      { title: 'fetched', align: 'right' },
      { title: 'skipped (reason)' },
      { title: 'robots.txt', align: 'right' },
      { title: 'smallest gap', align: 'right' },
      { title: 'asked', align: 'right' },
      { title: 'verdict' },
    ],
    report.rows.map((row) => {
      const skipped = Object.entries(row.skipped)
        .map(([reason, count]) => `${count} ${reason}`)
        .join(', ');
      return [
        row.key,
        String(row.fetched),
        skipped || '-',
        String(row.robotsFetches),
        formatMs(row.smallestGapMs),
        `${row.askedDelayMs} ms`,
        row.problems.length === 0 ? 'OK' : 'PROBLEM',
      ];
    }),
  );
}
