/**
 * Crawlee 4 readiness, on paper: Crawlee 4 (apify/crawlee master, not released; this repository runs
 * 3.18) tells a request manager that paces per domain by shape, `supportsDomainThrottling` in
 * packages/core/src/storages/throttling_request_manager.ts: the three methods below. Without them it
 * wraps the manager in its own ThrottlingRequestManager when `sameDomainDelaySecs` is set, whose
 * per-domain queues the requests would take instead of politely's. The check is restated here (a fact
 * from Crawlee's source, not its code), since no test can load Crawlee 4.
 */
import { describe, expect, it } from 'vitest';
import { withPoliteness } from '../src/index.js';
import { PoliteRequestManager } from '../src/polite-request-manager.js';

const THROTTLING_METHODS = ['recordDomainDelay', 'setCrawlDelay', 'assertNoStalledDomains'] as const;

describe("the request manager in Crawlee 4's shape", () => {
  it('has the methods Crawlee 4 looks for, and takes a 429 and a Crawl-delay as handled', async () => {
    const manager = Object.create(PoliteRequestManager.prototype) as PoliteRequestManager;
    for (const name of THROTTLING_METHODS) expect(typeof manager[name]).toBe('function');
    expect(manager.recordDomainDelay('https://a.test/x', 2000)).toBe(true);
    expect(manager.setCrawlDelay('https://a.test/x', 5)).toBe(true);
    await expect(manager.assertNoStalledDomains()).resolves.toBeUndefined();
  });
});

describe("an HTTP client in Crawlee 4's shape", () => {
  it('is refused when the crawler is set up, not at its first request', () => {
    // Crawlee 4's BaseHttpClient: sendRequest(Request) over the Fetch API, following redirects itself.
    const crawlee4Client = { sendRequest: async (request: globalThis.Request) => fetch(request) };
    expect(() =>
      withPoliteness({ httpClient: crawlee4Client as never }, { userAgent: 'MyBot/1.0', logger: false }),
    ).toThrow(/does not support Crawlee 4's HTTP clients yet/);
  });
});
