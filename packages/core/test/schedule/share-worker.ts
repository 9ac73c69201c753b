/**
 * One scheduler of a fleet sharing hosts while Redis is away, in a process of its own so a test can
 * starve it of CPU alone (redis-fallback-share-starved.test.ts). Callers for every host, one after another per
 * host; each start printed as a JSON line {"host", "at"}, each event as {"event"}. On stdin: `starve
 * <ms>` blocks the event loop that long (a busy loop, as a process starved of CPU); `stop` ends the
 * callers, closes the scheduler, prints `done` and exits.
 *
 * argv: redisUrl prefix delayMs fallbackRetryMs commandTimeoutMs host...
 */
import { createInterface } from 'node:readline';
import { createClient } from 'redis';
import { isWaitTooLongError } from '../../src/kernel/errors.js';
import { createRedisScheduler } from '../../src/schedule/redis-scheduler.js';

const [url, prefix, delay, retry, timeout, ...hosts] = process.argv.slice(2);
if (!url || !prefix || !delay || !retry || !timeout || hosts.length === 0) {
  throw new Error('usage: share-worker redisUrl prefix delayMs fallbackRetryMs commandTimeoutMs host...');
}
const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

const client = createClient({ url, socket: { reconnectStrategy: () => 50 } });
client.on('error', () => {});
await client.connect();
const scheduler = createRedisScheduler({
  client,
  prefix,
  fallbackRetryMs: Number(retry),
  commandTimeoutMs: Number(timeout),
  emit: (event) => print({ event: event.type }),
});

let running = true;
const loops = hosts.map(async (host) => {
  while (running) {
    try {
      const { startAt } = await scheduler.reserve(host, Number(delay), { maxWaitMs: 20_000 });
      if (running) print({ host, at: startAt });
    } catch (error) {
      // Closed at `stop`; a wait past maxWaitMs asks again.
      if (running && !isWaitTooLongError(error)) throw error;
    }
  }
});

// Never outlive the test.
setTimeout(() => process.exit(2), 120_000).unref();
createInterface({ input: process.stdin }).on('line', async (line) => {
  const [command, ms] = line.split(' ');
  if (command === 'starve') {
    const until = performance.now() + Number(ms);
    while (performance.now() < until) {}
  } else if (command === 'stop') {
    running = false;
    await scheduler.close();
    await Promise.allSettled(loops);
    client.destroy();
    process.stdout.write('done\n');
    process.exit(0);
  }
});
process.stdout.write('ready\n');
