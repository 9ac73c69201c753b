/**
 * `npm run example:got`: starts the demo web on loopback (seven hosts: a disallowed section, a
 * Crawl-delay, robots.txt answering 503 / 404 / a redirect, a redirect trap, a fast host), scrapes it
 * breadth-first with got + politeGot, and prints a per-host summary judged from the servers' logs and,
 * for pacing, at the wire (tcpdump's time of each request line; without tcpdump it says so and falls
 * back to the servers' logs). Exit code 0 when every host behaved as a polite crawler must, with no slack.
 */
import { politeGot, politenessOf } from '@politely/got';
import got from 'got';
import { type Column, formatMs, textTable } from '../demo/table.js';
import { captureDemoWeb, startDemoWeb } from '../demo-web/index.js';
import { judgeDemoWeb } from '../demo-web/judge.js';
import { type PageOutcome, scrape } from './scraper.js';

/** Small enough for a quick demo; the default (1000 ms) suits real sites. */
const MIN_DELAY_MS = 100;

const web = await startDemoWeb();
const polite = politeGot({
  userAgent: 'GotScraperExample/1.0 (+https://example.com/bot)',
  pacing: { minDelayMs: MIN_DELAY_MS },
});
const client = got.extend(polite, {
  retry: { limit: 0 },
  throwHttpErrors: false,
  timeout: { request: 10_000 },
});

const capture = await captureDemoWeb(web);
const started = performance.now();
const outcomes = await scrape(client, web.startUrls, {
  follow: (url) => web.hostOf(url.href) !== undefined,
  onOutcome: (outcome) => console.log(`  ${describe(outcome)}`),
});
const elapsedMs = performance.now() - started;
const wire = await capture.stop();
await politenessOf(polite).close();

const verdict = judgeDemoWeb(web, { minDelayMs: MIN_DELAY_MS, wire });
const columns: Column[] = [
  { title: 'host' },
  { title: 'fetched', align: 'right' },
  { title: 'blocked (reason)' },
  { title: 'delay asked', align: 'right' },
  { title: 'smallest gap', align: 'right' },
  { title: 'as expected' },
];
const rows = verdict.hosts.map((host) => {
  const mine = outcomes.filter((outcome) => web.hostOf(outcome.url)?.key === host.key);
  const blocked = countBy(mine.flatMap((outcome) => (outcome.result === 'blocked' ? [outcome.reason] : [])));
  return [
    `${host.key} (${new URL(host.origin).hostname})`,
    String(mine.filter((outcome) => outcome.result === 'fetched').length),
    blocked || '-',
    `${host.askedDelayMs} ms`,
    formatMs(host.smallestGapMs),
    host.problems.length === 0 ? 'yes' : `NO: ${host.problems.join('; ')}`,
  ];
});
console.log(`\n${textTable(columns, rows)}`);
console.log(
  capture.source === 'tcpdump'
    ? '\nGaps judged at the wire (tcpdump), with no slack.'
    : "\nGaps judged from the servers' own logs: tcpdump is not available (see the warning above).",
);
console.log(
  `\n${outcomes.length} URLs in ${(elapsedMs / 1000).toFixed(1)} s; stats: ${JSON.stringify(politenessOf(polite).stats().decisions)}`,
);
await web.close();
process.exitCode = verdict.ok ? 0 : 1;

function describe(outcome: PageOutcome): string {
  switch (outcome.result) {
    case 'fetched':
      return `fetched  ${outcome.status}  ${outcome.url}${outcome.finalUrl === outcome.url ? '' : ` -> ${outcome.finalUrl}`}`;
    case 'blocked':
      return `blocked  ${outcome.reason}${outcome.line ? ` (robots.txt line ${outcome.line})` : ''}  ${outcome.url}${outcome.refused ? ` -> ${outcome.refused} not followed` : ''}`;
    case 'failed':
      return `failed   ${outcome.url}: ${outcome.error}`;
  }
}

function countBy(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${count} ${value}`).join(', ');
}
