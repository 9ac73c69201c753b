/**
 * One killed-and-resumed crawl, judged at the wire, for crawlee-restart.test.ts and
 * scripts/restart-gaps.ts: loopback hosts (one 127.x IP each) with a Crawl-delay, a crawler process
 * SIGKILLed once every host has had `killAfter` requests (robots.txt included) and a second one, loaded
 * beforehand, told to go at once on the same storage. Returns every request line captured.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { html, startHost, type TestHost, text } from '../helpers/hosts.js';
import { startWireCapture, type WireRequest } from '../helpers/wire.js';

export interface RestartHosts {
  readonly hosts: TestHost[];
  /** The allowed pages of each host, by path: `/` links to `/p1` ... and to a disallowed page. */
  readonly pages: readonly string[];
  close(): Promise<void>;
}

export const DISALLOWED = '/private/secret';

/** `count` hosts on 127.<subnet>.<10+i> with `Crawl-delay: delayS`, each `pages` allowed pages. */
export async function startRestartHosts(
  count: number,
  delayS: number,
  pages: number,
  subnet: string,
): Promise<RestartHosts> {
  const paths = ['/', ...Array.from({ length: pages - 1 }, (_, i) => `/p${i + 1}`)];
  const links = [...paths.slice(1), DISALLOWED].map((path) => `<a href="${path}">${path}</a>`).join('\n');
  const hosts: TestHost[] = [];
  for (let i = 0; i < count; i++) {
    hosts.push(
      await startHost({
        ip: `127.${subnet}.${10 + i}`,
        routes: {
          '/robots.txt': text(`User-agent: *\nCrawl-delay: ${delayS}\nDisallow: /private/\n`),
          '/': html(`<html><body>${links}</body></html>`),
        },
        fallback: html('<html><body>page</body></html>'),
      }),
    );
  }
  return { hosts, pages: paths, close: () => Promise.all(hosts.map((h) => h.close())).then(() => {}) };
}

export interface CrawlerChild {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: string | null; stderr: string }>;
  readonly ready: Promise<void>;
  go(): void;
}

/** A crawler process (`script`, run by tsx), loaded and waiting for `go`. */
export function startCrawlerChild(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): CrawlerChild {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', path, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
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
  // A crawler that fails to load (an import error) says so at once rather than at the time limit.
  const ready = Promise.race([
    until(() => out.includes('ready\n'), 'the crawler to load', 120_000),
    exited.then(({ code, stderr: said }) => {
      if (!out.includes('ready\n')) throw new Error(`the crawler exited (${code}) before loading: ${said}`);
    }),
  ]);
  return { child, exited, ready, go: () => child.stdin?.end('go\n') };
}

/** Polls until `ready()` holds; a bound for a hang, not a speed limit. */
export async function until(ready: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + limitMs;
  while (!ready()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface RestartRun {
  readonly requests: WireRequest[];
  /** Date.now() when the first process was SIGKILLed. */
  readonly killedAt: number;
  readonly source: 'tcpdump' | 'server-log';
  readonly secondExit: { code: number | null; signal: string | null; stderr: string };
}

/**
 * Runs `first` until every host has had `killAfter` requests, SIGKILLs it and tells `second` (loaded
 * beforehand) to go at once. Both must have been started with `startCrawlerChild`.
 */
export async function killAndResume(
  hosts: readonly TestHost[],
  first: CrawlerChild,
  second: CrawlerChild,
  killAfter: number,
  limitMs = 120_000,
): Promise<RestartRun> {
  await Promise.all([first.ready, second.ready]);
  const capture = await startWireCapture(hosts.map((h) => ({ ip: h.ip, port: h.port, log: h.log })));
  let requests: WireRequest[] | undefined;
  try {
    first.go();
    await until(() => hosts.every((h) => h.log.length >= killAfter), `${killAfter} requests on every host`);
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    second.go();
    const killed = await first.exited;
    if (killed.signal !== 'SIGKILL')
      throw new Error(`the first crawler ended before the kill: ${killed.stderr}`);
    const secondExit = await Promise.race([
      second.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('resumed crawl hung')), limitMs)),
    ]);
    requests = await capture.stop();
    return { requests, killedAt, source: capture.source, secondExit };
  } finally {
    if (requests === undefined) await capture.stop().catch(() => {});
  }
}

export interface HostVerdict {
  readonly ip: string;
  /** Smallest gap between two requests to the host, robots.txt included, ms. */
  readonly minGapMs: number;
  /**
   * Smallest gap between two page requests to the host, ms. (Within one process, robots.txt is
   * fetched before its Crawl-delay is known and is spaced by minDelayMs from the next request.)
   */
  readonly minPageGapMs: number;
  /** The gap from the host's last request before the kill to its first after, ms. */
  readonly restartGapMs: number | undefined;
  readonly robotsTxt: number;
  readonly missing: readonly string[];
  /** Pages fetched more than once, and whether each was the host's last request before the kill. */
  readonly twice: readonly { path: string; inFlightAtKill: boolean }[];
  readonly disallowed: number;
}

/** What the wire says of each host. */
export function judgeHosts(run: RestartRun, restart: RestartHosts): HostVerdict[] {
  return restart.hosts.map((host) => {
    const seen = run.requests
      .filter((r) => r.ip === host.ip && r.port === host.port)
      .sort((a, b) => a.at - b.at);
    const gaps = seen.slice(1).map((r, i) => r.at - (seen[i]?.at ?? r.at));
    const pageTimes = seen.filter((r) => r.path !== '/robots.txt').map((r) => r.at);
    const pageGaps = pageTimes.slice(1).map((at, i) => at - (pageTimes[i] ?? at));
    const before = seen.filter((r) => r.at <= run.killedAt);
    const after = seen.filter((r) => r.at > run.killedAt);
    const lastBefore = before.at(-1);
    const pages = seen.filter((r) => r.path !== '/robots.txt');
    const counts = new Map<string, number>();
    for (const r of pages) counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
    return {
      ip: host.ip,
      minGapMs: gaps.length ? Math.min(...gaps) : Number.POSITIVE_INFINITY,
      minPageGapMs: pageGaps.length ? Math.min(...pageGaps) : Number.POSITIVE_INFINITY,
      restartGapMs: lastBefore && after[0] ? after[0].at - lastBefore.at : undefined,
      robotsTxt: seen.filter((r) => r.path === '/robots.txt').length,
      missing: restart.pages.filter((path) => !counts.has(path)),
      twice: [...counts]
        .filter(([, n]) => n > 1)
        .map(([path]) => ({ path, inFlightAtKill: lastBefore?.path === path })),
      disallowed: counts.get(DISALLOWED) ?? 0,
    };
  });
}
