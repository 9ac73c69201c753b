/**
 * Issue 33 point 1, judged by the servers' request logs: a got crawler with a store, killed with
 * SIGKILL mid-crawl and started again at once on the same store, sends no request to a host
 * (robots.txt included) closer than the host's Crawl-delay to the last one before the kill. Before,
 * the restarted process knew nothing of the hosts' pace and sent its first page to each at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { smallestGapMs, startHost, type TestHost, text } from '../helpers/hosts.js';

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

function startCrawler(storeFile: string, urls: readonly string[]) {
  const script = fileURLToPath(new URL('./got-crawler.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, storeFile, JSON.stringify(urls)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += String(chunk);
  });
  const ready = until(() => out.includes('ready\n'), 'the crawler to load', 120_000);
  const go = () => child.stdin?.end('go\n');
  return { child, exited, ready, go };
}

/** Polls until `ready()` holds; a bound for a hang, not a speed limit. */
async function until(ready: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + limitMs;
  while (!ready()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
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
