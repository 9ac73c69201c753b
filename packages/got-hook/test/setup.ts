/**
 * Shared fixtures for the got hook tests: loopback hosts closed after each test, and polite got
 * clients whose Politeness is closed after each test.
 */
import type { Politeness, PolitenessOptions } from '@politely/core';
import got, { type Got } from 'got';
import { afterEach } from 'vitest';
import { type HostOptions, startHost, type TestHost } from '../../../test/helpers/hosts.js';
import { type PoliteGotOptions, politeGot, politenessOf } from '../src/index.js';

export const USER_AGENT = 'PoliteBot/1.0 (+http://127.0.0.1/bot)';
export const PRODUCT_TOKEN = 'PoliteBot';

/**
 * Spacing is start-to-start on the client; the server logs arrivals. A kept-alive request arrives
 * about 1 ms after its slot starts, but the first one on a new connection pays the TCP handshake,
 * measured at up to ~40 ms on this loaded 2-core machine, so the gap after it can look that much
 * shorter. Without pacing the gaps would be near zero, so the check still fails when pacing is absent.
 */
export const SLACK_MS = 50;

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
  const extendOptions = politeGot({ userAgent: USER_AGENT, minDelayMs: 0, ...options });
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
