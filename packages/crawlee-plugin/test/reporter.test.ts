/**
 * The reporter's memory: per-host skip counters are bounded (least recently skipped host forgotten
 * first), while each URL is still reported once and the totals count every skip.
 */

import { LogLevel, log } from '@crawlee/core';
import type { DisallowedDecision, Politeness } from '@politely/core';
import { ADAPTER_KIT } from '@politely/core/adapter';
import { expect, it } from 'vitest';
import { Reporter, SKIPPED_HOSTS_MEMORY } from '../src/reporter.js';

function decisionFor(host: string, path: string): DisallowedDecision {
  return {
    allowed: false,
    reason: 'disallowed',
    url: `http://${host}${path}`,
    hostKey: host,
    robotsUrl: `http://${host}/robots.txt`,
  } as DisallowedDecision;
}

it('bounds per-host skip counters, keeps the totals, and still reports each URL once', async () => {
  const events: string[] = [];
  const politeness = {
    [ADAPTER_KIT]: { reportSkip: (decision: DisallowedDecision) => void events.push(decision.url) },
    stats: () => ({ robotsFetches: { ok: 0, unavailable: 0, unreachable: 0 } }),
  } as unknown as Politeness;
  const crawleeSkips: string[] = [];
  const reporter = new Reporter({
    politeness,
    log: log.child({ prefix: 'reporter', level: LogLevel.OFF }),
    onSkippedRequest: ({ url }) => void crawleeSkips.push(url),
  });
  const hosts = Array.from({ length: SKIPPED_HOSTS_MEMORY + 5 }, (_, index) => `h${index}.test`);
  for (const host of hosts) {
    const decision = decisionFor(host, '/private');
    await reporter.skipped({ url: decision.url, stage: 'dequeue', decision });
  }
  // The first host comes back with a URL already reported and a new one.
  const again = decisionFor('h0.test', '/private');
  await reporter.skipped({ url: again.url, stage: 'dequeue', decision: again });
  const fresh = decisionFor('h0.test', '/private/other');
  await reporter.skipped({ url: fresh.url, stage: 'dequeue', decision: fresh });

  const stats = reporter.stats([], 0);
  expect(stats.hosts.length).toBe(SKIPPED_HOSTS_MEMORY);
  expect(stats.skipped.disallowed).toBe(hosts.length + 1);
  expect(crawleeSkips).toHaveLength(hosts.length + 1);
  expect(new Set(crawleeSkips).size).toBe(crawleeSkips.length);
  // h0 was skipped last, so it is remembered; h1..h5, skipped least recently, are forgotten.
  const remembered = new Set(stats.hosts.map((host) => host.host));
  expect(remembered.has('h0.test')).toBe(true);
  expect(['h1.test', 'h2.test', 'h5.test'].filter((host) => remembered.has(host))).toEqual([]);
});
