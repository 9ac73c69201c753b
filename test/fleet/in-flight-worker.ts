/**
 * One crawler process of the in-flight fleet test. Connects to Redis, says `ready`, waits for `go` on
 * stdin, then (mode `crawl`) sends `count` pages at once through politeGot and prints `done`, or
 * (mode `hold`) takes one in-flight lease for the origin's host, prints `held` and keeps it until it
 * is killed.
 *
 * argv: mode redisUrl prefix origin maxConcurrentPerHost count leaseTtlMs
 */
import got from 'got';
import { createClient } from 'redis';
import { createPoliteness } from '../../packages/core/src/index.js';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';
import { politeGot } from '../../packages/got-hook/src/index.js';

const [mode, redisUrl, prefix, origin, limit, count, leaseTtlMs] = process.argv.slice(2);
if (!mode || !redisUrl || !prefix || !origin || !limit || !count || !leaseTtlMs) {
  throw new Error(
    'usage: in-flight-worker mode redisUrl prefix origin maxConcurrentPerHost count leaseTtlMs',
  );
}

const client = createClient({ url: redisUrl });
client.on('error', (error: unknown) => process.stderr.write(`redis error: ${String(error)}\n`));
await client.connect();
const scheduler = createRedisScheduler({
  client,
  prefix,
  leaseTtlMs: Number(leaseTtlMs),
  emit: (event) => process.stdout.write(`${JSON.stringify({ event: event.type })}\n`),
});
const politeness = createPoliteness({
  userAgent: 'politely-fleet-test',
  pacing: { minDelayMs: 0, maxConcurrentPerHost: Number(limit) },
  scheduler,
  logger: false,
});
const polite = got.extend(politeGot(politeness), { retry: { limit: 0 } });

// Never outlive the test: exit when the parent goes away (stdin closes) or after a minute regardless.
process.stdin.once('end', () => process.exit(1));
setTimeout(() => process.exit(2), 60_000).unref();

process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  if (mode === 'hold') {
    // Nothing listens at the origin: the lease is taken on the scheduler, as the facade would for it.
    await scheduler.acquireInFlight(new URL(origin).hostname, Number(limit));
    process.stdout.write('held\n');
    return; // held until killed
  }
  await Promise.all(Array.from({ length: Number(count) }, (_, i) => polite(`${origin}/p${i}`)));
  await politeness.close();
  client.destroy();
  process.stdout.write('done\n');
  process.exit(0);
});
