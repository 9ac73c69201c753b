/**
 * Credentials in a URL never leave politely: every error, decision, event, logger call, stats and CLI
 * output of a run full of `user:secret@` URLs is scanned for the secret (issue 10, item 4).
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redirect, startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { type CliIo, main } from '../../src/cli/main.js';
import { createPoliteness, type PolitelyEvent } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';

const SECRET = 'hunter2secret';
const USER = 'crawleruser';

/** Everything a user could see of a value: its JSON, its string form and Node's inspection (cause, props). */
function visible(value: unknown): string {
  let json = '';
  try {
    json = JSON.stringify(value) ?? '';
  } catch {
    // Cyclic: inspect covers it.
  }
  return `${json}\n${String(value)}\n${inspect(value, { depth: 8, showHidden: true })}`;
}

describe('no credentials in errors, decisions, events, logs, stats or CLI output', () => {
  let site: TestHost;
  let moved: TestHost;
  let dir: string;
  beforeAll(async () => {
    site = await startHost({
      ip: '127.0.0.43',
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /private\nCrawl-delay: 100\n') },
    });
    // robots.txt redirects to a URL carrying credentials, then to an invalid one carrying them.
    moved = await startHost({
      ip: '127.0.0.44',
      routes: { '/robots.txt': redirect(`http://${USER}:${SECRET}@exa mple.com/robots.txt`) },
    });
    dir = await mkdtemp(join(tmpdir(), 'politely-credentials-'));
  });
  afterAll(async () => {
    await Promise.all([site.close(), moved.close(), rm(dir, { recursive: true, force: true })]);
  });

  const withCredentials = (host: TestHost, path: string) => {
    const url = new URL(host.url(path));
    url.username = USER;
    url.password = SECRET;
    return url.href;
  };

  it('through the facade', async () => {
    const seen: unknown[] = [];
    const events: PolitelyEvent[] = [];
    const log = (...args: unknown[]) => {
      seen.push(args);
    };
    const politeness = createPoliteness({
      userAgent: 'PoliteBot/1.0',
      scheduler: 'memory',
      pacing: { minDelayMs: 0, maxCrawlDelayMs: 1000 },
      robots: { timeoutMs: 2000 },
      logger: { warn: log, info: log, debug: log },
      onEvent: (event) => events.push(event),
      store: {
        get: () => Promise.reject(new Error('store down')),
        set: () => Promise.reject(new Error('store down')),
        delete: () => Promise.reject(new Error('store down')),
      },
    });
    const attempts: (() => Promise<unknown>)[] = [
      () => politeness.check(withCredentials(site, '/public')),
      () => politeness.check(new URL(withCredentials(site, '/private/x'))),
      () => politeness.admit(withCredentials(site, '/private/x')),
      () => politeness.admit(withCredentials(site, '/public')),
      () => politeness.check(withCredentials(moved, '/page')),
      () => politeness.check(`http://${USER}:${SECRET}@127.0.0.45:1/unreachable`),
      () => politeness.check(`http://${USER}:${SECRET}@exa mple.com/x`),
      () => politeness.check(`ftp://${USER}:${SECRET}@example.com/x`),
      () =>
        adapterKit(politeness).pass(
          adapterKit(politeness).checkCached(withCredentials(site, '/private/y')) as never,
        ),
    ];
    for (const attempt of attempts) {
      try {
        seen.push(await attempt());
      } catch (error) {
        seen.push(error);
        seen.push((error as Error).message);
      }
    }
    seen.push(adapterKit(politeness).checkCached(withCredentials(site, '/private/z')));
    seen.push(politeness.stats());
    await politeness.close();

    // The run did go through the paths that could leak: disallowed, crawl-delay skip, invalid, unreachable.
    const errors = seen.filter((value): value is Error => value instanceof Error);
    expect(errors.map((error) => error.name)).toEqual(
      expect.arrayContaining(['RobotsDisallowedError', 'TypeError']),
    );
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['decision', 'robots-fetch', 'store-error']),
    );
    for (const value of [...seen, ...events]) {
      expect(visible(value)).not.toContain(SECRET);
    }
  });

  it('through the CLI', async () => {
    const robots = join(dir, 'robots.txt');
    await writeFile(robots, 'User-agent: *\nDisallow: /private\n');
    const written: string[] = [];
    const io: CliIo = {
      stdout: (t) => {
        written.push(t);
      },
      stderr: (t) => {
        written.push(t);
      },
      readFile: async (path) =>
        new Uint8Array(await import('node:fs/promises').then((fs) => fs.readFile(path))),
    };
    const runs = [
      ['check', withCredentials(site, '/private/x'), withCredentials(site, '/a'), '--agent', 'MyBot'],
      ['check', withCredentials(site, '/private/x'), '--agent', 'MyBot', '--json'],
      ['check', `http://${USER}:${SECRET}@exa mple.com/x`, '--agent', 'MyBot'],
      ['check', withCredentials(moved, '/x'), '--agent', 'MyBot', '--json'],
      ['explain', robots, withCredentials(site, '/private/x'), '--agent', 'MyBot'],
      ['explain', robots, withCredentials(site, '/private/x'), '--agent', 'MyBot', '--json'],
      ['lint', withCredentials(site, '/')],
      ['lint', withCredentials(moved, '/'), '--json'],
    ];
    for (const argv of runs) await main(argv, io);
    const output = written.join('');
    expect(output).toContain('DISALLOWED');
    expect(output).not.toContain(SECRET);
  });
});
