/**
 * The frontier by hand: a scraper of your own, two workers on a polite fetch, over two loopback hosts,
 * one of which asks for Crawl-delay 0.5. The slow host's pages come first in the list, yet the workers
 * never wait for it (two workers taking the list in order would both sit on the slow host until its
 * last page): the fast host's pages are all fetched before the slow host's last one, and the
 * slow host's server sees its requests at least 500 ms apart (a floor only: the machine may be busy);
 * its three gaps, 1.5 s, are the window the fast host's five pages have to fit in.
 */
import { createPoliteness, type Politeness } from '@politely/core';
import { createFrontier } from '@politely/core/frontier';
import { politeFetch } from '@politely/fetch';
import { afterEach, describe, expect, it } from 'vitest';
import { smallestGapMs, startHost, type TestHost, text } from '../helpers/hosts.js';

const hosts: TestHost[] = [];
const instances: Politeness[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

describe('a worker pool on the frontier', () => {
  it('fetches the fast host while the slow one waits out its Crawl-delay, without a worker waiting', async () => {
    const slow = await startHost({
      ip: '127.0.0.191',
      routes: { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.5\n') },
      fallback: text('slow page'),
    });
    const fast = await startHost({
      ip: '127.0.0.192',
      routes: { '/robots.txt': text('') },
      fallback: text('page'),
    });
    hosts.push(slow, fast);
    const politeness = createPoliteness({
      userAgent: 'PoolBot/1.0 (+https://example.test)',
      pacing: { minDelayMs: 0 },
      logger: false,
    });
    instances.push(politeness);
    const fetchPolitely = politeFetch(politeness);
    const frontier = createFrontier<{ url: string }>(politeness, { logger: false });

    const todo = [
      ...['/s1', '/s2', '/s3', '/s4'].map((path) => ({ url: slow.url(path) })),
      ...['/f1', '/f2', '/f3', '/f4', '/f5'].map((path) => ({ url: fast.url(path) })),
    ];
    const worker = async () => {
      for (;;) {
        const item = await frontier.next(() => todo.shift());
        if (item) {
          try {
            await (await fetchPolitely(item.url)).text();
          } finally {
            frontier.finished(item);
          }
        } else if (!(await frontier.waitForWork({ sourceEmpty: () => todo.length === 0 }))) {
          return; // nothing parked, held or being checked, and the list is empty: done
        }
      }
    };
    await Promise.all([worker(), worker()]);

    const slowPages = slow.log.filter((request) => request.path !== '/robots.txt');
    const fastPages = fast.log.filter((request) => request.path !== '/robots.txt');
    expect(slowPages.map((request) => request.path)).toEqual(['/s1', '/s2', '/s3', '/s4']);
    expect(fastPages.map((request) => request.path).sort()).toEqual(['/f1', '/f2', '/f3', '/f4', '/f5']);
    const lastSlow = Math.max(...slowPages.map((request) => request.at));
    expect(Math.max(...fastPages.map((request) => request.at))).toBeLessThan(lastSlow);
    // robots.txt itself is fetched before its Crawl-delay is known; the pages keep it.
    expect(smallestGapMs(slowPages)).toBeGreaterThanOrEqual(500);
  });
});
