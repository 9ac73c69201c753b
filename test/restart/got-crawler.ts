/**
 * A got crawler for restart-kill.test.ts, run by tsx in a process of its own: one loop per host over
 * its pages through politeGot, with a Keyv-shaped store on a JSON file that is written synchronously
 * on every set (so what the store acknowledged survives SIGKILL, as a database's commit would).
 * Prints `ready` once loaded (a restart under test should not be timed by tsx's start-up), waits for
 * `go` on stdin, then opens the store and prints one line per page fetched; exits 0 when done.
 *
 * argv: storeFile urlsJson (`-`: no store)
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import got from 'got';
import { politeGot } from '../../packages/got-hook/src/index.js';

const [storeFile, urlsJson] = process.argv.slice(2);
if (!storeFile || !urlsJson) throw new Error('usage: got-crawler storeFile urlsJson');

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) if (line === 'go') break;
// An open stdin would keep the process alive once the crawl is done.
process.stdin.destroy();

type Entry = { readonly value: unknown; readonly expires: number | undefined };
const entries = new Map<string, Entry>(
  storeFile !== '-' && existsSync(storeFile)
    ? (JSON.parse(readFileSync(storeFile, 'utf8')) as Array<[string, Entry]>)
    : [],
);
// Written aside, then renamed over: a kill in the middle of a write in place left an empty file
// that the restarted process could not parse.
const save = () => {
  writeFileSync(`${storeFile}.tmp`, JSON.stringify([...entries]));
  renameSync(`${storeFile}.tmp`, storeFile);
};
const store = {
  get(key: string) {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires !== undefined && entry.expires <= Date.now()) return undefined;
    return entry.value;
  },
  set(key: string, value: unknown, ttl?: number) {
    entries.set(key, { value, expires: ttl === undefined ? undefined : Date.now() + ttl });
    save();
    return true;
  },
  delete(key: string) {
    const had = entries.delete(key);
    save();
    return had;
  },
};

// `-` as the store file: no store at all (scripts/restart-gaps.ts measures that too).
const client = got.extend(
  politeGot({
    userAgent: 'RestartBot/1.0 (+https://example.test/bot)',
    ...(storeFile === '-' ? {} : { store }),
    logger: false,
  }),
  { retry: { limit: 0 } },
);
const byHost = new Map<string, string[]>();
for (const url of JSON.parse(urlsJson) as string[]) {
  const host = new URL(url).host;
  byHost.set(host, [...(byHost.get(host) ?? []), url]);
}
await Promise.all(
  [...byHost.values()].map(async (urls) => {
    for (const url of urls) {
      await client(url);
      process.stdout.write(`fetched ${url}\n`);
    }
  }),
);
