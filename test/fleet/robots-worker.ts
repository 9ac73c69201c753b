/**
 * One crawler process of the fleet robots.txt test: a Keyv store on @keyv/redis (the fleet's shared
 * robots.txt cache) and a Redis scheduler with the test's own key prefix. Says `ready`, waits for `go`
 * on stdin, then admits and fetches its pages one after another, printing one JSON line per page.
 *
 * argv: redisUrl pacePrefix siteOrigin workerId pages minDelayMs
 */
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { createClient } from 'redis';
import { createPoliteness } from '../../packages/core/src/index.js';
import { createRedisScheduler } from '../../packages/core/src/schedule/redis-scheduler.js';
import { sendPolitely } from './polite-send.js';

const [redisUrl, pacePrefix, siteOrigin, workerId, pages, minDelayMs] = process.argv.slice(2);
if (!redisUrl || !pacePrefix || !siteOrigin || !workerId || !pages || !minDelayMs) {
  throw new Error('usage: robots-worker redisUrl pacePrefix siteOrigin workerId pages minDelayMs');
}

const store = new Keyv(new KeyvRedis(redisUrl, { throwOnConnectError: false }));
const client = createClient({ url: redisUrl });
client.on('error', (error: unknown) => process.stderr.write(`redis error: ${String(error)}\n`));
await client.connect();
const polite = createPoliteness({
  userAgent: 'politely-fleet-test',
  pacing: { minDelayMs: Number(minDelayMs) },
  store,
  scheduler: createRedisScheduler({ client, prefix: pacePrefix }),
  logger: false,
});
// Connect the store's client before `go`, so the processes really ask at the same instant.
await store.get('politely-test:warm-up');

// Never outlive the test: exit when the parent goes away (stdin closes) or after a minute regardless.
process.stdin.once('end', () => process.exit(1));
setTimeout(() => process.exit(2), 60_000).unref();

process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  for (let i = 0; i < Number(pages); i++) {
    const url = `${siteOrigin}/w${workerId}/p${i}`;
    const { decision } = await sendPolitely(polite, url);
    process.stdout.write(`${JSON.stringify({ url, source: decision.source })}\n`);
  }
  process.stdout.write(`${JSON.stringify({ stats: polite.stats() })}\n`);
  await polite.close();
  client.destroy();
  await store.disconnect();
  process.exit(0);
});
