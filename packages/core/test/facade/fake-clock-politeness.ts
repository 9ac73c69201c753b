/**
 * A Politeness on the memory scheduler and a fake clock, for tests that take passes and hops and
 * assert the clock's time at which each may start. robots.txt comes at once from a fetch that
 * disallows /private and asks Crawl-delay 1; every instance made here is closed after each test.
 * Its fetch is a request to the host, followed by that delay like a page: a test that times its own
 * requests from a free host starts `pastRobotsTxt`.
 */
import { onTestFinished } from 'vitest';
import { mergeOptions, type OptionOverrides } from '../../../../test/helpers/options.js';
import { createPoliteness, type FetchLike, type Politeness } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
import type { FakeClock } from '../schedule/fake-clock.js';

export const robots: FetchLike = async () =>
  new Response('User-agent: *\nDisallow: /private\nCrawl-delay: 1\n', { status: 200 });

/** `createPoliteness` on `clock`, closed after the test; `options` override the defaults. */
export function politeOnClock(
  userAgent: string,
  clock: FakeClock,
  options: OptionOverrides = {},
): Politeness {
  const instance = createPoliteness(
    mergeOptions(
      {
        userAgent,
        logger: false,
        robots: { fetch: robots },
        clock,
        // robots.txt's own fetch takes a slot spaced by minDelayMs: none here, so passes start at once.
        pacing: { minDelayMs: 0, latencyFactor: 0 },
      },
      options,
    ),
  );
  // Per test, not an `afterEach` at this module's top level: these files share their modules
  // (project 'shared', isolate: false), so such a hook would be registered by the first file of a
  // worker only, and the next files' instances would stay open (15 after three files).
  onTestFinished(() => instance.close());
  return instance;
}

/**
 * The origin's robots.txt fetched (through `check(url)`) and the clock moved on to the host's next
 * start: robots.txt's Crawl-delay spaces what follows its fetch as it spaces pages, and a test that
 * times its own requests starts from a free host.
 */
export async function pastRobotsTxt(
  politeness: Politeness,
  clock: FakeClock,
  url = 'http://site.test/',
): Promise<void> {
  const fetchedAt = clock.now();
  const decision = await politeness.check(url);
  // The host's next start; a scheduler that cannot tell (no `peek`) is moved by the delay itself.
  const due = Math.max(await adapterKit(politeness).nextStart(url), fetchedAt + decision.delayMs);
  if (due > clock.now()) await clock.advance(due - clock.now());
}
