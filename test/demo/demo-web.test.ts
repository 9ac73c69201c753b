/**
 * The demo web serves the situations it claims, every page is reachable from the start URLs, and its
 * judge tells a polite crawl from a careless one by the server logs (and, for gaps, at the wire).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  captureDemoWeb,
  type DemoWeb,
  judgeDemoWeb,
  robotsPaths,
  startDemoWeb,
} from '../../examples/demo-web/index.js';

let web: DemoWeb | undefined;
afterEach(async () => {
  await web?.close();
  web = undefined;
});

const get = (url: string) => fetch(url, { redirect: 'manual', headers: { 'user-agent': 'DemoWebTest/1.0' } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('demo web', () => {
  it('serves each robots.txt situation it describes', async () => {
    web = await startDemoWeb();
    const robots = async (key: Parameters<DemoWeb['host']>[0]) => {
      const response = await get(web?.host(key).url('/robots.txt') ?? '');
      return {
        status: response.status,
        location: response.headers.get('location'),
        body: await response.text(),
      };
    };
    expect(await robots('private-section')).toMatchObject({
      status: 200,
      body: expect.stringContaining('Disallow: /private/'),
    });
    expect(await robots('crawl-delay')).toMatchObject({
      status: 200,
      body: expect.stringContaining('Crawl-delay: 0.5'),
    });
    expect((await robots('robots-503')).status).toBe(503);
    expect((await robots('robots-404')).status).toBe(404);
    expect(await robots('robots-redirect')).toMatchObject({ status: 301, location: '/policies/robots.txt' });
    const trap = await get(web.host('redirect-trap').url('/old-admin'));
    expect(trap.status).toBe(301);
    expect(trap.headers.get('location')).toBe('/private/admin');
    // One loopback IP per host, so per-host pacing is keyed apart.
    expect(new Set(web.hosts.map((host) => host.hostname)).size).toBe(web.hosts.length);
  });

  it('links every page from the start URLs, across hosts', async () => {
    web = await startDemoWeb();
    const seen = new Set<string>();
    const queue = [...web.startUrls];
    while (queue.length > 0) {
      const url = queue.shift() as string;
      if (seen.has(url)) continue;
      seen.add(url);
      const response = await get(url);
      if (!response.headers.get('content-type')?.includes('text/html')) continue;
      for (const match of (await response.text()).matchAll(/href="([^"]+)"/g)) {
        queue.push(new URL(match[1] as string, url).href);
      }
    }
    const crossHostLinks = [...seen].filter((url) => !web?.startUrls.includes(url)).length;
    expect(crossHostLinks).toBeGreaterThan(0);
    for (const host of web.hosts) {
      for (const page of host.blueprint.pages)
        expect(seen, `${host.key}${page.path}`).toContain(host.url(page.path));
    }
  });

  it('judges a careless crawl as failing on exactly the hosts that need politeness', async () => {
    web = await startDemoWeb();
    // Everything at once, redirects followed, robots.txt read but ignored.
    await Promise.all(
      web.hosts.flatMap((host) => [
        fetch(host.url('/robots.txt')),
        ...host.blueprint.pages.map((page) => fetch(host.url(page.path))),
      ]),
    );
    const verdict = judgeDemoWeb(web, { minDelayMs: 0 });
    expect(verdict.ok).toBe(false);
    const failing = verdict.hosts.filter((host) => host.problems.length > 0).map((host) => host.key);
    expect(failing.sort()).toEqual([
      'crawl-delay',
      'private-section',
      'redirect-trap',
      'robots-503',
      'robots-redirect',
    ]);
  });

  it('judges a crawl that follows every expectation as passing', async () => {
    web = await startDemoWeb();
    const minDelayMs = 20;
    // Judged at the wire with no slack: each request leaves only after the previous one's response
    // and a sleep of the delay (+5 ms: a timer armed from the event loop's cached clock can fire a
    // little before that much real time has passed).
    const capture = await captureDemoWeb(web);
    await Promise.all(
      web.hosts.map(async (host) => {
        for (const path of robotsPaths(host.blueprint)) await get(host.url(path));
        const delay = Math.max(minDelayMs, host.blueprint.crawlDelayMs ?? 0);
        for (const page of host.blueprint.pages) {
          if (page.expect.outcome === 'skipped') continue;
          await get(host.url(page.path));
          await sleep(delay + 5);
        }
      }),
    );
    const wire = await capture.stop();
    const verdict = judgeDemoWeb(web, { minDelayMs, wire });
    expect(verdict.hosts.flatMap((host) => host.problems)).toEqual([]);
    expect(verdict.ok).toBe(true);
    const crawlDelay = verdict.hosts.find((host) => host.key === 'crawl-delay');
    expect(crawlDelay?.smallestGapMs).toBeGreaterThanOrEqual(500);
    expect(crawlDelay?.robotsFetches).toBe(1);
  });
});
