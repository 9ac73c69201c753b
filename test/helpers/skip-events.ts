/**
 * What an HTTP adapter's user sees when robots.txt refuses a request: one `skip` event through the
 * same `onEvent` option and `subscribe` as every other event, with the stage that refused it ('send'
 * for the request itself, 'redirect' for a hop), counted in `stats().skipped`. One suite, run by each
 * adapter's tests with its own hosts and client.
 */
import { isRobotsDisallowedError, type PolitelyEvent, type Politeness } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { type HostOptions, html, redirect, type TestHost, text } from './hosts.js';

export interface SkipEventsAdapter {
  /** A host on one of the adapter tests' own loopback addresses, closed after the test. */
  host(options: Omit<HostOptions, 'ip'>): Promise<TestHost>;
  /** A polite client with the test defaults plus `onEvent` when given, closed after the test. */
  client(onEvent?: (event: PolitelyEvent) => void): {
    readonly request: (url: string) => Promise<unknown>;
    readonly politeness: Politeness;
  };
}

const ROBOTS = text('User-agent: *\nDisallow: /private\n');

const skipsIn = (events: readonly PolitelyEvent[]) => events.filter((event) => event.type === 'skip');

export function describeSkipEvents(adapter: SkipEventsAdapter): void {
  describe('skip events', () => {
    it("a disallowed request: one skip at stage 'send' for a subscriber, counted in stats", async () => {
      const site = await adapter.host({ routes: { '/robots.txt': ROBOTS }, fallback: html('secret') });
      const { request, politeness } = adapter.client();
      const events: PolitelyEvent[] = [];
      politeness.subscribe((event) => events.push(event));

      await expect(request(site.url('/private/x'))).rejects.toSatisfy(isRobotsDisallowedError);

      expect(skipsIn(events)).toEqual([
        {
          type: 'skip',
          url: site.url('/private/x'),
          host: site.ip,
          stage: 'send',
          decision: expect.objectContaining({ allowed: false, reason: 'disallowed' }),
        },
      ]);
      expect(politeness.stats().skipped).toMatchObject({ send: 1, redirect: 0 });
      expect(site.log.map((logged) => logged.path)).toEqual(['/robots.txt']);
    });

    it("a redirect into a disallowed path: one skip at stage 'redirect' through onEvent", async () => {
      const site = await adapter.host({
        routes: { '/robots.txt': ROBOTS, '/go': redirect('/private/x') },
        fallback: html('secret'),
      });
      const events: PolitelyEvent[] = [];
      const { request } = adapter.client((event) => events.push(event));

      await expect(request(site.url('/go'))).rejects.toSatisfy(isRobotsDisallowedError);

      expect(skipsIn(events)).toMatchObject([{ url: site.url('/private/x'), stage: 'redirect' }]);
      expect(skipsIn(events)).toHaveLength(1);
    });

    it('an allowed request reports no skip', async () => {
      const site = await adapter.host({ routes: { '/robots.txt': ROBOTS }, fallback: html('ok') });
      const events: PolitelyEvent[] = [];
      const { request } = adapter.client((event) => events.push(event));

      await request(site.url('/open'));

      expect(skipsIn(events)).toEqual([]);
    });
  });
}
