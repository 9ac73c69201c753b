/**
 * End to end: the got-scraper example's breadth-first scrape of the demo web (seven hosts), judged
 * from the servers' request logs (nothing disallowed requested, robots.txt read once per host) and at
 * the wire, with no slack and two CPU burners beside it: every host paced by max(minDelayMs, Crawl-delay).
 */
import got from 'got';
import { afterEach, describe, expect, it } from 'vitest';
import {
  captureDemoWeb,
  type DemoWeb,
  judgeDemoWeb,
  startDemoWeb,
} from '../../../examples/demo-web/index.js';
import { scrape } from '../../../examples/got-scraper/scraper.js';
import { burnCpu } from '../../../test/helpers/wire.js';
import { politeOptions } from './setup.js';

const MIN_DELAY_MS = 200;

describe('got-scraper example over the demo web', () => {
  let web: DemoWeb | undefined;
  let burners: { stop(): void } | undefined;
  afterEach(async () => {
    burners?.stop();
    await web?.close();
  });

  it('fetches what robots.txt allows, never what it forbids, at the pace asked', async () => {
    web = await startDemoWeb({ firstOctet: 141 });
    const demo = web;
    const client = got.extend(politeOptions({ pacing: { minDelayMs: MIN_DELAY_MS } }), {
      retry: { limit: 0 },
      throwHttpErrors: false,
    });

    const capture = await captureDemoWeb(demo);
    burners = burnCpu(2);
    const outcomes = await scrape(client, demo.startUrls, {
      follow: (url) => demo.hostOf(url.href) !== undefined,
    });
    const wire = await capture.stop();

    const verdict = judgeDemoWeb(demo, { minDelayMs: MIN_DELAY_MS, wire });
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
  });
});
