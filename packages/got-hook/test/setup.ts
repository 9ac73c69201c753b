/**
 * Shared fixtures for the got hook tests: loopback hosts closed after each test, and polite got
 * clients whose Politeness is closed after each test.
 */
import type { Politeness, PolitenessOptions } from '@politely/core';
import got, { type Got } from 'got';
import { afterEach } from 'vitest';
import { type HostOptions, startHost, type TestHost } from '../../../test/helpers/hosts.js';
import { mergeOptions } from '../../../test/helpers/options.js';
import { longestGaps, startWireCapture, type WireRequest } from '../../../test/helpers/wire.js';
import { type PoliteGotOptions, politeGot, politenessOf } from '../src/index.js';

export const USER_AGENT = 'PoliteBot/1.0 (+http://127.0.0.1/bot)';
export const PRODUCT_TOKEN = 'PoliteBot';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

let nextOctet = 2;
/** A host on its own loopback IP (127.0.0.2, .3, ...), closed after the test. */
export async function host(options: Omit<HostOptions, 'ip'>): Promise<TestHost> {
  const ip = `127.0.0.${nextOctet}`;
  nextOctet = nextOctet >= 250 ? 2 : nextOctet + 1;
  const started = await startHost({ ...options, ip });
  cleanups.push(() => started.close());
  return started;
}

/** politeGot options with test defaults (no base spacing unless asked), closed after the test. */
export function politeOptions(options: Partial<PolitenessOptions> = {}): PoliteGotOptions {
  const extendOptions = politeGot(
    mergeOptions({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } }, options),
  );
  track(politenessOf(extendOptions));
  return extendOptions;
}

export function track(politeness: Politeness): Politeness {
  cleanups.push(() => politeness.close());
  return politeness;
}

/** A polite got client that neither retries nor throws on HTTP errors, so server logs stay exact. */
export function politeClient(options: Partial<PolitenessOptions> = {}, base: Got = got): Got {
  return base.extend(politeOptions(options), { retry: { limit: 0 }, throwHttpErrors: false });
}

/** The paths a host saw, in arrival order. */
export function paths(target: TestHost): string[] {
  return target.log.map((request) => request.path);
}

/** Resolves with the rejection of a promise that must reject. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected the request to be rejected, but it resolved');
}

/**
 * Runs `crawl` while capturing at the wire what reached `targets`: spacing is judged from the kernel's
 * time of each request line, with the asked delay as the floor and no slack.
 */
export async function atTheWire(
  targets: readonly TestHost[],
  crawl: () => Promise<unknown>,
): Promise<WireRequest[]> {
  const capture = await startWireCapture(targets);
  let seen: WireRequest[];
  try {
    await crawl();
  } finally {
    // Stopped (and its tcpdump ended) whether or not the crawl failed.
    seen = await capture.stop();
  }
  return seen;
}

/** The requests for `path` that reached the host, in order. */
export const requestsTo = (seen: readonly WireRequest[], path: string) =>
  seen.filter((request) => request.path === path);

// Gaps as long as each can have been at the wire: asserted at least the delay, a gap fails only where
// the wire gap was surely short, tcpdump or not (wire.ts).
export { longestGaps } from '../../../test/helpers/wire.js';

/** The gap from the first request for `from` to the first for `to` (as longestGaps); undefined if one is missing. */
export function gapBetween(seen: readonly WireRequest[], from: string, to: string): number | undefined {
  const [first, second] = [requestsTo(seen, from)[0], requestsTo(seen, to)[0]];
  return first && second ? longestGaps([first, second])[0] : undefined;
}
