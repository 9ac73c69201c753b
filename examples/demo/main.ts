/**
 * `npm run demo`: starts the demo web on loopback, crawls it with CheerioCrawler + withPoliteness,
 * prints every request as the servers see it, then a per-host table: what was requested from the server
 * logs, and when from the wire (tcpdump on lo, the kernel's time of each request line; the server logs in
 * a loud fallback where tcpdump cannot run).
 * Exit code 0 when every expectation held. With REDIS_URL set, robots.txt cache and pacing live in Redis.
 */
import { createKeyv } from '@keyv/redis';
import { DEMO_SITE, type DemoHostKey, startDemoWeb } from '../demo-web/index.js';
import type { CrawlProgress } from './crawl.js';
import { quietInMemoryCrawlee } from './crawlee-env.js';
import { redisReachable } from './redis-check.js';
import { demoTable, runDemo } from './run-demo.js';

const redisUrl = process.env.REDIS_URL;
const started = performance.now();
const clock = () => `+${((performance.now() - started) / 1000).toFixed(2)}s`.padStart(7);
const width = Math.max(...DEMO_SITE.map((host) => host.key.length));
const say = (what: string, host: string, path: string, note = '') =>
  console.log(`  ${clock()}  ${what.padEnd(7)}  ${host.padEnd(width)}  ${path}${note ? `  ${note}` : ''}`);

quietInMemoryCrawlee('off');

let store: ReturnType<typeof createKeyv> | undefined;
if (redisUrl) {
  if (!(await redisReachable(redisUrl))) {
    console.error(
      `REDIS_URL is set but Redis does not answer at ${redisUrl}. Start Redis or unset REDIS_URL.`,
    );
    process.exit(2);
  }
  // A namespace of our own, cleared at the end, so the demo leaves nothing behind in a shared Redis.
  store = createKeyv(redisUrl, { namespace: `politely-demo:${process.pid}:${Date.now().toString(36)}` });
}

// Requests the crawler holds per host until the host's next slot, shown next to that host's fetches.
const parked = new Map<string, number>();
const web = await startDemoWeb({
  onRequest: (host, request) => {
    if (request.path.endsWith('robots.txt')) {
      say('robots', host, request.path);
      return;
    }
    const waiting = parked.get(web.host(host).hostname) ?? 0;
    say('fetch', host, request.path, waiting > 0 ? `(${waiting} more parked for this host)` : '');
  },
});
const hostKeyOf = (url: string): DemoHostKey | '?' => web.hostOf(url)?.key ?? '?';
const pathOf = (url: string) => new URL(url).pathname;
const onProgress = (progress: CrawlProgress) => {
  switch (progress.type) {
    case 'skipped': {
      const detail = progress.detail ? ` (${progress.detail})` : '';
      say('skip', hostKeyOf(progress.url), pathOf(progress.url), `${progress.reason}${detail}`);
      break;
    }
    case 'redirect-stopped':
      say(
        'blocked',
        hostKeyOf(progress.url),
        pathOf(progress.url),
        `redirect into ${pathOf(progress.target)}, disallowed: not followed, the request skipped`,
      );
      break;
    case 'failed':
      say('failed', hostKeyOf(progress.url), pathOf(progress.url), progress.message);
      break;
    case 'parked':
      parked.set(progress.hostname, progress.parked);
      break;
    case 'handled':
      break;
  }
};

console.log(
  `politely demo: ${web.hosts.length} hosts on ${web.hosts[0]?.hostname}..${web.hosts.at(-1)?.hostname}, ` +
    `CheerioCrawler + withPoliteness, ${redisUrl ? `fleet mode (Redis at ${redisUrl})` : 'one process'}\n`,
);

let exitCode = 1;
try {
  const report = await runDemo({ web, onProgress, ...(store ? { store } : {}) });
  console.log(`\n${demoTable(report)}\n`);
  for (const host of DEMO_SITE)
    console.log(`  ${host.key.padEnd(width)}  ${host.demonstrates}: ${host.expected}`);
  const seconds = (report.outcome.elapsedMs / 1000).toFixed(1);
  const pacing = report.outcome.scheduler ?? 'memory';
  if (report.ok) {
    console.log(`\nEvery expectation held (crawl ${seconds} s, pacing: ${pacing}).`);
    exitCode = 0;
  } else {
    console.log(`\nProblems (crawl ${seconds} s, pacing: ${pacing}):`);
    for (const row of report.rows)
      for (const problem of row.problems) console.log(`  ${row.key}: ${problem}`);
  }
} catch (error) {
  console.error('The demo crawl crashed:', error);
} finally {
  await web.close();
  if (store) {
    await store.clear();
    await store.disconnect();
  }
}
process.exit(exitCode);
