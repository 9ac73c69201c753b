/**
 * The smallest polite Crawlee crawl: `withPoliteness` around CheerioCrawler's options, over the local
 * demo web. Run: `npm run example:crawlee`. It then judges itself like the other examples: nothing
 * disallowed requested, robots.txt read once per host, and every host's gaps at the wire (tcpdump's
 * time of each request line; without tcpdump it says so and falls back to the servers' logs), with no
 * slack. Exit code 0 when every host behaved as a polite crawler must.
 */
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import { crawlStats, politenessOf, withPoliteness } from '@politely/crawlee';
import { quietInMemoryCrawlee } from '../demo/crawlee-env.js';
import { captureDemoWeb, judgeDemoWeb, startDemoWeb } from '../demo-web/index.js';

const MIN_DELAY_MS = 200;

// No ./storage left behind; Crawlee's own log off (a stopped redirect would be logged as a failed request).
quietInMemoryCrawlee('off');
const web = await startDemoWeb();

const crawler = new CheerioCrawler(
  // The type argument gives the handlers their context types (withPoliteness fits any crawler).
  withPoliteness<CheerioCrawlerOptions>(
    {
      maxRequestRetries: 0,
      requestHandler: async ({ request, $, enqueueLinks }) => {
        console.log(`fetched  ${request.url}  "${$('title').text()}"`);
        await enqueueLinks({ strategy: 'all' });
      },
      failedRequestHandler: ({ request }, error) => console.log(`failed   ${request.url}  ${error.message}`),
    },
    {
      userAgent: 'ExampleBot/1.0 (+https://example.com/bot)',
      pacing: { minDelayMs: MIN_DELAY_MS },
      // Every event of the crawl comes here; skips say where robots.txt stopped the URL.
      onEvent: (event) => {
        if (event.type === 'skip')
          console.log(`skipped  ${event.url}  (${event.decision.reason}, ${event.stage})`);
      },
    },
  ),
);

const capture = await captureDemoWeb(web);
await crawler.run([...web.startUrls]);
const wire = await capture.stop();
const { fetched, skipped, robotsFetches } = crawlStats(crawler);
console.log({ fetched, skipped, robotsFetches });
await politenessOf(crawler).close();

const verdict = judgeDemoWeb(web, { minDelayMs: MIN_DELAY_MS, wire });
for (const host of verdict.hosts) {
  const smallest = Number.isFinite(host.smallestGapMs) ? `${host.smallestGapMs.toFixed(1)} ms` : '-';
  const gap = `smallest gap ${smallest} (asked ${host.askedDelayMs} ms)`;
  console.log(
    `${host.key.padEnd(15)} ${gap}: ${host.problems.length === 0 ? 'OK' : host.problems.join('; ')}`,
  );
}
console.log(
  capture.source === 'tcpdump'
    ? 'Gaps judged at the wire (tcpdump), with no slack.'
    : "Gaps judged from the servers' own logs: tcpdump is not available (see the warning above).",
);
await web.close();
process.exitCode = verdict.ok ? 0 : 1;
