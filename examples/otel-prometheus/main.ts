/**
 * `npm run example:otel`: politely's OpenTelemetry metrics served to Prometheus. Registers an SDK
 * MeterProvider whose reader is @opentelemetry/exporter-prometheus, then scrapes the demo web (seven
 * loopback hosts: a disallowed section, a Crawl-delay, robots.txt answering 503 / 404 / a redirect,
 * a redirect trap, a fast host) with politeFetch, which records through the global provider with no
 * option at all. Prints the URL of the /metrics endpoint, scrapes it once itself, prints the politely
 * lines and exits (at most a minute; exit code 1 when something is missing).
 *
 * POLITELY_EXAMPLE_FIRST_OCTET moves the demo web to other loopback addresses (tests use it).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { politeFetch, politenessOf } from '@politely/fetch';
import { startDemoWeb } from '../demo-web/index.js';
import { scrape } from '../fetch-scraper/scraper.js';

const deadline = setTimeout(() => {
  console.error('the example took over a minute: giving up');
  process.exit(1);
}, 60_000);
deadline.unref();

// The exporter's own server would listen on 9464 on every interface; this one serves its handler on
// loopback, on a free port, so the example runs beside anything.
const exporter = new PrometheusExporter({ preventServerStart: true });
const provider = new MeterProvider({ readers: [exporter] });
// Before the Politeness is created: instrumentation libraries read the global provider then.
metrics.setGlobalMeterProvider(provider);
const endpoint = createServer((request, response) => exporter.getMetricsRequestHandler(request, response));
await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
const metricsUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/metrics`;
console.log(`Prometheus metrics at ${metricsUrl}`);

const firstOctet = Number(process.env.POLITELY_EXAMPLE_FIRST_OCTET ?? 101);
const web = await startDemoWeb({ firstOctet });
const polite = politeFetch({
  userAgent: 'OtelExample/1.0 (+https://example.com/bot)',
  // Small enough for a quick example; the default (1000 ms) suits real sites.
  pacing: { minDelayMs: 100 },
  logger: false,
});
const outcomes = await scrape(polite, web.startUrls, { follow: (url) => web.hostOf(url.href) !== undefined });
console.log(`crawled ${outcomes.length} URLs on ${web.hosts.length} hosts; scraping ${metricsUrl} once:\n`);

const exposition = await (await fetch(metricsUrl)).text();
const lines = exposition.split('\n').filter((line) => /^(# (HELP|TYPE) )?politely_/.test(line));
console.log(lines.join('\n'));

await politenessOf(polite).close();
await web.close();
await provider.shutdown();
endpoint.close();
metrics.disable();
const expected = ['politely_decisions', 'politely_robots_fetches', 'politely_pacing_wait_time'];
const missing = expected.filter((name) => !lines.some((line) => line.startsWith(name)));
if (missing.length > 0) console.error(`\nmissing from /metrics: ${missing.join(', ')}`);
process.exitCode = missing.length === 0 ? 0 : 1;
