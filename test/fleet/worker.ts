/**
 * One crawler process of the fleet test. Connects to Redis, says `ready`, waits for `go` on stdin,
 * then reserves slots for a slow host and a fast host at the same time and prints one JSON line per
 * start: {"host": ..., "start": Date.now() when reserve resolved, "seen": the loop's own read}.
 *
 * argv: redisUrl prefix slowHost slowDelayMs fastHost fastDelayMs count
 */
import { createClient } from 'redis';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';

const [redisUrl, prefix, slowHost, slowDelay, fastHost, fastDelay, count] = process.argv.slice(2);
if (
  redisUrl === undefined ||
  prefix === undefined ||
  slowHost === undefined ||
  fastHost === undefined ||
  count === undefined
) {
  throw new Error('usage: worker redisUrl prefix slowHost slowDelayMs fastHost fastDelayMs count');
}

const client = createClient({ url: redisUrl });
client.on('error', (error: unknown) => process.stderr.write(`redis error: ${String(error)}\n`));
await client.connect();
const scheduler = createRedisScheduler({
  client,
  prefix,
  emit: (event) => process.stdout.write(`${JSON.stringify({ event: event.type })}\n`),
});

async function crawl(host: string, delayMs: number): Promise<void> {
  for (let i = 0; i < Number(count); i++) {
    // startAt is Date.now() read by the scheduler as the reservation resolves (the moment it hands
    // the slot over); `seen` is this loop's own read a few microtasks later, kept for information.
    const { startAt } = await scheduler.reserve(host, delayMs);
    process.stdout.write(`${JSON.stringify({ host, start: startAt, seen: Date.now() })}\n`);
  }
}

// Never outlive the test: exit when the parent goes away (stdin closes) or after a minute regardless.
process.stdin.once('end', () => process.exit(1));
setTimeout(() => process.exit(2), 60_000).unref();

process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  await Promise.all([crawl(slowHost, Number(slowDelay)), crawl(fastHost, Number(fastDelay))]);
  await scheduler.close();
  client.destroy();
  process.stdout.write('done\n');
  process.exit(0);
});
