/**
 * Issue 33 point 1, judged by the servers' request logs: a got crawler with a store, killed with
 * SIGKILL mid-crawl and started again at once on the same store, sends no request to a host
 * (robots.txt included) closer than the host's Crawl-delay to the last one before the kill. Before,
 * the restarted process knew nothing of the hosts' pace and sent its first page to each at once.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { smallestGapMs, startHost, type TestHost, text } from '../helpers/hosts.js';
import { startCrawlerChild, until } from './restart-run.js';

const CRAWL_DELAY_MS = 1000;
const PAGES = 5;
const children: ChildProcess[] = [];
const hosts: TestHost[] = [];
let dir: string | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The got crawler of got-crawler.ts on `storeFile`, loaded and waiting for `go`. */
function startCrawler(storeFile: string, urls: readonly string[]) {
  const crawler = startCrawlerChild('./got-crawler.ts', [storeFile, JSON.stringify(urls)], {});
  children.push(crawler.child);
  return crawler;
}

describe('a got crawler with a store, killed with SIGKILL and started again', () => {
  it("keeps every host's Crawl-delay across the restart, robots.txt included", async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-restart-'));
    const storeFile = join(dir, 'store.json');
    for (let i = 0; i < 4; i++) {
      hosts.push(
        await startHost({
          ip: `127.61.33.${10 + i}`,
          routes: { '/robots.txt': text(`User-agent: *\nCrawl-delay: ${CRAWL_DELAY_MS / 1000}\n`) },
          fallback: text('page'),
        }),
      );
    }
    const urls = hosts.flatMap((host) => Array.from({ length: PAGES }, (_, i) => host.url(`/p${i}`)));

    // The crawl resumes with the pages left after the first two of each host; its process is loaded
    // beforehand and told to go the moment the first one is dead (tsx's start-up is not the restart).
    const left = hosts.flatMap((host) => Array.from({ length: PAGES - 2 }, (_, i) => host.url(`/p${i + 2}`)));
    const first = startCrawler(storeFile, urls);
    const again = startCrawler(storeFile, left);
    await Promise.all([first.ready, again.ready]);
    first.go();
    await until(() => hosts.every((host) => host.requests().length >= 3), 'two pages on every host');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    again.go();
    const ended = await Promise.race([
      again.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('restarted crawl hung')), 90_000)),
    ]);
    expect(ended.code, ended.stderr).toBe(0);

    for (const host of hosts) {
      // Every page arrived, and no two requests to the host came closer than its Crawl-delay.
      expect(host.requests().filter((r) => r.path !== '/robots.txt').length).toBeGreaterThanOrEqual(PAGES);
      expect(smallestGapMs(host.requests())).toBeGreaterThanOrEqual(CRAWL_DELAY_MS);
    }
  }, 180_000);
});
