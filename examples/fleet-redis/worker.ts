/**
 * One crawler of the fleet: crawls the demo web with CheerioCrawler + withPoliteness, robots.txt cache
 * and pacing in the shared Redis, then sends its outcome to the parent over IPC.
 * argv: one JSON object { redisUrl, namespace, startUrls }.
 */
import { createKeyv } from '@keyv/redis';
import { crawlDemoWeb } from '../demo/crawl.js';
import { quietInMemoryCrawlee } from '../demo/crawlee-env.js';

export interface WorkerTask {
  readonly redisUrl: string;
  readonly namespace: string;
  readonly startUrls: readonly string[];
}

export interface WorkerResult {
  readonly pid: number;
  readonly handled: number;
  readonly skipped: number;
  readonly failed: number;
  readonly elapsedMs: number;
  readonly scheduler: string;
}

const task = JSON.parse(process.argv[2] ?? '{}') as WorkerTask;
quietInMemoryCrawlee('off');
const store = createKeyv(task.redisUrl, { namespace: task.namespace });
try {
  const outcome = await crawlDemoWeb({ startUrls: task.startUrls, mode: 'politely', store });
  const result: WorkerResult = {
    pid: process.pid,
    handled: outcome.handled,
    skipped: outcome.skipped.size,
    failed: outcome.failed.size,
    elapsedMs: outcome.elapsedMs,
    scheduler: outcome.scheduler ?? 'unknown',
  };
  process.send?.(result);
} finally {
  await store.disconnect();
}
