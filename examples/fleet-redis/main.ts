/**
 * A fleet of three crawler processes sharing one Redis, crawling the same demo web (started here).
 * Judged from the servers' logs (each robots.txt fetched once for the whole fleet) and at the wire,
 * with no slack (each host's pace holds across all processes together; without tcpdump it says so
 * and falls back to the servers' logs). Run: `tsx examples/fleet-redis/main.ts`
 * (REDIS_URL, default redis://127.0.0.1:6379).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createKeyv } from '@keyv/redis';
import { DEMO_MIN_DELAY_MS } from '../demo/crawl.js';
import { redisReachable } from '../demo/redis-check.js';
import { formatMs, textTable } from '../demo/table.js';
import { captureDemoWeb, judgeDemoWeb, startDemoWeb } from '../demo-web/index.js';
import type { WorkerResult, WorkerTask } from './worker.js';

const CRAWLERS = 3;
/** Crawlers join a second and a half apart, as a fleet's machines do, not at the very same instant. */
const JOIN_INTERVAL_MS = 1500;
const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

if (!(await redisReachable(redisUrl))) {
  console.error(`Redis does not answer at ${redisUrl}. Start redis-server (or set REDIS_URL) and run again.`);
  process.exit(2);
}

// Its own IPs (.141-.147), so it can run next to `npm run demo` without sharing pace keys.
const web = await startDemoWeb({ firstOctet: 141 });
const namespace = `politely-fleet-example:${process.pid}:${Date.now().toString(36)}`;
const task: WorkerTask = { redisUrl, namespace, startUrls: web.startUrls };
console.log(`fleet: ${CRAWLERS} crawler processes, one Redis (${redisUrl}), ${web.hosts.length} hosts\n`);

function runWorker(index: number): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = fork(WORKER, [JSON.stringify(task)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: WorkerResult | undefined;
    child.on('message', (message) => {
      result = message as WorkerResult;
      console.log(
        `  crawler ${index + 1} (pid ${result.pid}): ${result.handled} pages handled, ${result.skipped} skipped, ` +
          `${result.failed} stopped redirects, ${(result.elapsedMs / 1000).toFixed(1)} s, pacing: ${result.scheduler}`,
      );
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      result && code === 0
        ? resolve(result)
        : reject(new Error(`crawler ${index + 1} exited with code ${code}`)),
    );
  });
}

let exitCode = 1;
try {
  const capture = await captureDemoWeb(web);
  const crawls: Promise<WorkerResult>[] = [];
  for (let index = 0; index < CRAWLERS; index++) {
    if (index > 0) await new Promise((resolve) => setTimeout(resolve, JOIN_INTERVAL_MS));
    crawls.push(runWorker(index));
  }
  const results = await Promise.all(crawls);
  const wire = await capture.stop();
  console.log(
    capture.source === 'tcpdump'
      ? '\nGaps judged at the wire (tcpdump), with no slack.'
      : "\nGaps judged from the servers' own logs: tcpdump is not available (see the warning above).",
  );

  const verdict = judgeDemoWeb(web, {
    minDelayMs: DEMO_MIN_DELAY_MS,
    crawlers: CRAWLERS,
    maxRobotsFetchesPerPath: 1,
    wire,
  });
  const rows = verdict.hosts.map((host) => {
    const pageRequests = web
      .host(host.key)
      .log.filter((request) => !request.path.endsWith('robots.txt')).length;
    return [
      host.key,
      String(pageRequests),
      String(host.robotsFetches),
      formatMs(host.smallestGapMs),
      `${host.askedDelayMs} ms`,
      host.problems.length === 0 ? 'OK' : 'PROBLEM',
    ];
  });
  console.log(
    `\n${textTable(
      [
        { title: 'host' },
        { title: 'page requests (all crawlers)', align: 'right' },
        { title: 'robots.txt fetches', align: 'right' },
        { title: 'smallest gap (all crawlers)', align: 'right' },
        { title: 'asked', align: 'right' },
        { title: 'verdict' },
      ],
      rows,
    )}\n`,
  );
  const allRedis = results.every((result) => result.scheduler === 'redis');
  if (verdict.ok && allRedis) {
    console.log(
      `Every host kept its pace across ${CRAWLERS} processes, and each robots.txt was fetched once for the fleet.`,
    );
    exitCode = 0;
  } else {
    if (!allRedis) console.log('Some crawler paced in memory only: Redis was lost during the run.');
    for (const host of verdict.hosts)
      for (const problem of host.problems) console.log(`  ${host.key}: ${problem}`);
  }
} catch (error) {
  console.error('The fleet crawl failed:', error);
} finally {
  await web.close();
  const store = createKeyv(redisUrl, { namespace });
  await store.clear();
  await store.disconnect();
}
process.exit(exitCode);
