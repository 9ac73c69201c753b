/**
 * Issue 33 points 1 and 2 for @politely/crawlee, judged at the wire: the README's quick start on
 * Crawlee's defaults (storage on disk), SIGKILLed mid-crawl and resumed at once on the same storage
 * (`CRAWLEE_PURGE_ON_START=false`, as Crawlee documents resuming). Before, the resumed process knew
 * nothing of the hosts: it fetched every robots.txt again and sent it at once, closer to each host's
 * last page than its Crawl-delay. Now the plugin keeps pace and rules in Crawlee's own key-value store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CrawlerChild,
  judgeHosts,
  killAndResume,
  type RestartHosts,
  startCrawlerChild,
  startRestartHosts,
} from './restart-run.js';

const DELAY_S = 2;
const HOSTS = 4;
/** `/` and `/p1` ... `/p4`. */
const PAGES = 5;

const children: CrawlerChild[] = [];
let restart: RestartHosts | undefined;
let dir: string | undefined;

afterEach(async () => {
  for (const { child } of children.splice(0)) child.kill('SIGKILL');
  await restart?.close();
  restart = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a Crawlee crawl killed with SIGKILL and resumed on the same storage', () => {
  it("keeps every host's Crawl-delay and robots.txt rules, and loses no page", async () => {
    dir = mkdtempSync(join(tmpdir(), 'politely-crawlee-restart-'));
    restart = await startRestartHosts(HOSTS, DELAY_S, PAGES, '61.34');
    const startUrls = JSON.stringify(restart.hosts.map((h) => h.url('/')));
    const storage = { CRAWLEE_STORAGE_DIR: join(dir, 'storage') };
    const first = startCrawlerChild('./crawlee-crawler.ts', [startUrls], storage);
    const again = startCrawlerChild('./crawlee-crawler.ts', [startUrls], {
      ...storage,
      CRAWLEE_PURGE_ON_START: 'false',
    });
    children.push(first, again);

    // Killed once every host has had robots.txt, `/` and one page: mid-delay for each of them.
    const run = await killAndResume(restart.hosts, first, again, 3);
    expect(run.secondExit.code, run.secondExit.stderr).toBe(0);

    if (process.env.RESTART_DEBUG) {
      const t0 = run.requests[0]?.at ?? 0;
      for (const r of run.requests)
        console.log(r.ip, r.path, Math.round(r.at - t0), r.at > run.killedAt ? 'after' : '');
      console.log('killed', Math.round(run.killedAt - t0), run.source);
    }
    for (const host of judgeHosts(run, restart)) {
      // Point 1: the first request after the kill (robots.txt or a page) no closer to the last one
      // before it than the host's Crawl-delay, no two pages closer either, and robots.txt fetched
      // once over both processes. (robots.txt itself is spaced by minDelayMs, 1 s by default, from
      // the page after it: its Crawl-delay is not known before it is fetched.)
      expect(host.restartGapMs, host.ip).toBeGreaterThanOrEqual(DELAY_S * 1000);
      expect(host.minPageGapMs, host.ip).toBeGreaterThanOrEqual(DELAY_S * 1000);
      expect(host.minGapMs, host.ip).toBeGreaterThanOrEqual(1000);
      expect(host.robotsTxt, host.ip).toBe(1);
      // Point 2: every allowed page, at most the one in flight at the kill twice, nothing disallowed.
      expect(host.missing, host.ip).toEqual([]);
      expect(
        host.twice.filter((page) => !page.inFlightAtKill),
        host.ip,
      ).toEqual([]);
      expect(host.disallowed, host.ip).toBe(0);
    }
  }, 120_000);
});
