/**
 * `npm run example:frontier`: a scraper of your own, eight workers on a polite fetch,
 * crawling the demo web on loopback (seven hosts, one with a Crawl-delay) with the core's frontier
 * deciding which URL goes next: a worker never waits for a host that is not due, it takes another
 * host's page instead. Prints when each host's pages were fetched and the per-host verdict judged from
 * the servers' logs (or the wire, when tcpdump is there). Exit code 0 when every host behaved.
 */
import { createPoliteness } from '@politely/core';
import { createFrontier } from '@politely/core/frontier';
import { getDisallowedDecision, politeFetch } from '@politely/fetch';
import { type Column, formatMs, textTable } from '../demo/table.js';
import { captureDemoWeb, startDemoWeb } from '../demo-web/index.js';
import { judgeDemoWeb } from '../demo-web/judge.js';
import { extractLinks } from '../fetch-scraper/scraper.js';

/** Small enough for a quick demo; the default (1000 ms) suits real sites. */
const MIN_DELAY_MS = 100;
const WORKERS = 8;

const web = await startDemoWeb();
const politeness = createPoliteness({
  userAgent: 'FrontierPoolExample/1.0 (+https://example.com/bot)',
  pacing: { minDelayMs: MIN_DELAY_MS },
});
const fetchPolitely = politeFetch(politeness);
const skipped: string[] = [];
const frontier = createFrontier<{ url: string }>(politeness, {
  onSkip: (item, decision) => skipped.push(`${item.url} (${decision.reason})`),
});

const seen = new Set<string>();
const todo: { url: string }[] = [];
const enqueue = (url: string) => {
  if (seen.has(url) || !web.hostOf(url)) return;
  seen.add(url);
  const refused = frontier.screen(url); // robots.txt in memory says no: never queued
  if (refused) {
    skipped.push(`${url} (${refused.reason})`);
    return;
  }
  todo.push({ url });
  frontier.wake(); // a worker in waitForWork may take it
};
for (const url of web.startUrls) enqueue(url);

const capture = await captureDemoWeb(web);
const started = performance.now();
const fetchedAt = new Map<string, number[]>();

async function visit(url: string): Promise<void> {
  try {
    const response = await fetchPolitely(url, { signal: AbortSignal.timeout(30_000) });
    const body = await response.text();
    const host = web.hostOf(url)?.key ?? '?';
    fetchedAt.set(host, [...(fetchedAt.get(host) ?? []), performance.now() - started]);
    if ((response.headers.get('content-type') ?? '').includes('html'))
      for (const link of extractLinks(body, response.url)) enqueue(link.href);
  } catch (error) {
    const refused = getDisallowedDecision(error); // a redirect hop robots.txt refuses
    if (!refused) console.log(`  failed ${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function worker(): Promise<void> {
  for (;;) {
    const item = await frontier.next(() => todo.shift());
    if (item) {
      try {
        await visit(item.url); // enqueues its links before `finished` frees the host
      } finally {
        frontier.finished(item);
      }
    } else if (!(await frontier.waitForWork({ sourceEmpty: () => todo.length === 0 }))) {
      // Nothing parked, held or being checked, and nothing queued: no page can bring more links.
      return;
    }
  }
}
await Promise.all(Array.from({ length: WORKERS }, worker));
const wire = await capture.stop();
await politeness.close();

const verdict = judgeDemoWeb(web, { minDelayMs: MIN_DELAY_MS, wire });
const columns: Column[] = [
  { title: 'host' },
  { title: 'fetched', align: 'right' },
  { title: 'first / last', align: 'right' },
  { title: 'delay asked', align: 'right' },
  { title: 'smallest gap', align: 'right' },
  { title: 'as expected' },
];
const rows = verdict.hosts.map((host) => {
  const times = fetchedAt.get(host.key) ?? [];
  return [
    host.key,
    String(times.length),
    times.length > 0 ? `${formatMs(Math.min(...times))} / ${formatMs(Math.max(...times))}` : '-',
    `${host.askedDelayMs} ms`,
    formatMs(host.smallestGapMs),
    host.problems.length === 0 ? 'yes' : `NO: ${host.problems.join('; ')}`,
  ];
});
console.log(textTable(columns, rows));
console.log(`\nskipped by robots.txt: ${skipped.length}`);
for (const line of skipped) console.log(`  ${line}`);
await web.close();
process.exitCode = verdict.ok ? 0 : 1;
