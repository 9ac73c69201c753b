/**
 * End to end: the fetch-scraper example's breadth-first scrape of the demo web (seven hosts), judged
 * like the got example: nothing disallowed requested, robots.txt read once per host, every host paced
 * by max(minDelayMs, Crawl-delay); and the pages' request lines judged at the wire as well.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DemoWeb, judgeDemoWeb, startDemoWeb } from '../../../examples/demo-web/index.js';
import { scrape } from '../../../examples/fetch-scraper/scraper.js';
import { judgePacing, startWireCapture } from '../../../test/helpers/wire.js';
import { polite } from './setup.js';

const MIN_DELAY_MS = 200;

describe('fetch-scraper example over the demo web', () => {
  let web: DemoWeb | undefined;
  afterEach(async () => {
    await web?.close();
  });

  it('fetches what robots.txt allows, never what it forbids, at the pace asked', async () => {
    web = await startDemoWeb({ firstOctet: 161 });
    const demo = web;
    const capture = await startWireCapture(
      demo.hosts.map((host) => ({ ip: host.hostname, port: Number(new URL(host.origin).port) })),
    );

    const scraped = scrape(polite({ pacing: { minDelayMs: MIN_DELAY_MS } }), demo.startUrls, {
      follow: (url) => demo.hostOf(url.href) !== undefined,
    });
    await scraped.catch(() => {});
    const wire = await capture.stop();
    const outcomes = await scraped;

    const verdict = judgeDemoWeb(demo, { minDelayMs: MIN_DELAY_MS });
    expect(
      verdict.hosts.flatMap((host) => host.problems.map((problem) => `${host.key}: ${problem}`)),
    ).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.result === 'failed')).toEqual([]);
    const blocked = outcomes.flatMap((outcome) => (outcome.result === 'blocked' ? [outcome.reason] : []));
    expect(blocked.sort()).toEqual([
      'disallowed',
      'disallowed',
      'disallowed',
      'disallowed',
      'unreachable',
      'unreachable',
      'unreachable',
    ]);
    const asked = (ip: string) =>
      Math.max(MIN_DELAY_MS, demo.hosts.find((host) => host.hostname === ip)?.blueprint.crawlDelayMs ?? 0);
    const violations = [...judgePacing(wire, asked).values()].flatMap((host) =>
      host.violations.map((gap) => `${host.ip}: ${gap} ms`),
    );
    expect(violations).toEqual([]);
  });
});
