/**
 * One crawler process of the fleet test. Connects to Redis, says `ready`, waits for `go` on stdin,
 * then crawls a slow host and a fast host at the same time through Politeness (the slow one's
 * robots.txt asks a Crawl-delay), sending each page for real and reporting the send (markSent) while
 * holding the host's in-flight place (polite-send.ts), and prints one JSON line per page:
 * {"host": ip, "sentAt": ...}.
 *
 * argv: redisUrl prefix slowOrigin fastOrigin minDelayMs count workerId
 */
import { createClient } from 'redis';
import { createPoliteness } from '../../packages/core/src/index.js';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';
import { sendPolitely } from './polite-send.js';

const [redisUrl, prefix, slowOrigin, fastOrigin, minDelayMs, count, workerId] = process.argv.slice(2);
if (!redisUrl || !prefix || !slowOrigin || !fastOrigin || !minDelayMs || !count || !workerId) {
  throw new Error('usage: worker redisUrl prefix slowOrigin fastOrigin minDelayMs count workerId');
}

const client = createClient({ url: redisUrl });
client.on('error', (error: unknown) => process.stderr.write(`redis error: ${String(error)}\n`));
await client.connect();
const polite = createPoliteness({
  userAgent: 'politely-fleet-test',
  pacing: { minDelayMs: Number(minDelayMs) },
  scheduler: createRedisScheduler({
    client,
    prefix,
    emit: (event) => process.stdout.write(`${JSON.stringify({ event: event.type })}\n`),
  }),
  logger: false,
});

async function crawl(origin: string): Promise<void> {
  for (let i = 0; i < Number(count); i++) {
    const url = `${origin}/w${workerId}/p${i}`;
    const { sentAt } = await sendPolitely(polite, url);
    process.stdout.write(`${JSON.stringify({ host: new URL(origin).hostname, sentAt })}\n`);
  }
}

// Never outlive the test: exit when the parent goes away (stdin closes) or after a minute regardless.
process.stdin.once('end', () => process.exit(1));
setTimeout(() => process.exit(2), 60_000).unref();

process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  await Promise.all([crawl(slowOrigin), crawl(fastOrigin)]);
  await polite.close();
  client.destroy();
  process.stdout.write('done\n');
  process.exit(0);
});
