/**
 * A fleet worker as docs/fleet.md shows one (issue 43.1): got with politeGot on a Keyv store on
 * @keyv/redis, three pages, then `await politenessOf(client).close()` and `await store.disconnect()`.
 * It prints `closed` and then does nothing: the test judges whether anything still keeps it alive.
 *
 * argv: redisUrl namespace origin
 */
import KeyvRedis from '@keyv/redis';
import { politeGot, politenessOf } from '@politely/got';
import got from 'got';
import Keyv from 'keyv';

const [redisUrl, namespace, origin] = process.argv.slice(2);
if (!redisUrl || !namespace || !origin) throw new Error('usage: shutdown-worker redisUrl namespace origin');

const store = new Keyv(new KeyvRedis(redisUrl), { namespace });
const client = got.extend(
  politeGot({
    userAgent: 'ShutdownBot/1.0 (+https://example.com/bot)',
    store,
    logger: false,
    // The host's keys (pace, in-flight leases, signals) carry the test's prefix, so its cleanup finds them.
    pacing: { minDelayMs: 100, hostKey: (url) => `${namespace}-${url.hostname}` },
  }),
);
for (let i = 0; i < 3; i++) await client(`${origin}/p${i}`);
await politenessOf(client)?.close();
await store.disconnect();
process.stdout.write('closed\n');
// Never outlive the test by much; unref'd, so it keeps nothing alive itself.
setTimeout(() => process.exit(3), 60_000).unref();
