/**
 * Shared fixtures for the politeFetch tests: loopback hosts closed after each test, and polite fetch
 * functions whose Politeness is closed after each test.
 */
import type { Politeness } from '@politely/core';
import { afterEach } from 'vitest';
import { type HostOptions, startHost, type TestHost } from '../../../test/helpers/hosts.js';
import { mergeOptions } from '../../../test/helpers/options.js';
import type { AnyFetch } from '../src/fetch-shapes.js';
import { type PoliteFetchOptions, politeFetch, politenessOf } from '../src/index.js';

export const USER_AGENT = 'PoliteBot/1.0 (+http://127.0.0.1/bot)';
export const PRODUCT_TOKEN = 'PoliteBot';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

// Addresses of their own (127.0.0.200 and up), apart from the other packages' tests.
let nextOctet = 200;
/** A host on its own loopback IP, closed after the test. */
export async function host(options: Omit<HostOptions, 'ip'>): Promise<TestHost> {
  const ip = `127.0.0.${nextOctet}`;
  nextOctet = nextOctet >= 240 ? 200 : nextOctet + 1;
  const started = await startHost({ ...options, ip });
  cleanups.push(() => started.close());
  return started;
}

/** politeFetch with test defaults (no base spacing unless asked), closed after the test. */
export function polite<F extends AnyFetch = typeof globalThis.fetch>(
  options: Partial<PoliteFetchOptions<F>> = {},
): F {
  const fetch = politeFetch<F>(
    mergeOptions(
      {
        userAgent: USER_AGENT,
        pacing: { minDelayMs: 0 },
      },
      options,
    ) as PoliteFetchOptions<F>,
  );
  track(politenessOf(fetch));
  return fetch;
}

export function track(politeness: Politeness): Politeness {
  cleanups.push(() => politeness.close());
  return politeness;
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
