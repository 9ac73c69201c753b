/**
 * The smallest polite Crawlee crawl: `withPoliteness` around CheerioCrawler's options, over the local
 * demo web. Run: `tsx examples/crawlee-cheerio/main.ts`.
 */
import { CheerioCrawler, type CheerioCrawlerOptions } from '@crawlee/cheerio';
import { politenessOf, withPoliteness } from '@politely/crawlee';
import { quietInMemoryCrawlee } from '../demo/crawlee-env.js';
import { startDemoWeb } from '../demo-web/index.js';

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
    { userAgent: 'ExampleBot/1.0 (+https://example.com/bot)', minDelayMs: 200 },
    { onSkip: ({ url, reason }) => console.log(`skipped  ${url}  (${reason})`) },
  ),
);

await crawler.run([...web.startUrls]);
const polite = politenessOf(crawler);
const { fetched, skipped, robotsFetches } = polite.stats();
console.log({ fetched, skipped, robotsFetches });
await polite.close();
await web.close();
